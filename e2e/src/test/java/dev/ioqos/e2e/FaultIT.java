package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.core.QosClass;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.LedgerEntry;
import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.Pods;
import dev.ioqos.testkit.Policies;
import dev.ioqos.testkit.SandboxNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite: the agent as its own process ({@code java -jar ioqos.jar run}) against the real
 * API server and a node's cgroup tree, killed with SIGKILL at random points of pod churn and
 * restarted, and with its state directory on a small filesystem that is filled and remounted
 * read-only mid-run. Two properties are checked throughout: every value a pod cgroup holds is in
 * the ledger on disk (write-ahead: nothing written that a restarted agent could not revert), and
 * after every restart each pod cgroup holds exactly what its tier says or the kernel defaults
 * (nothing stale, nothing lost). The figures go to {@code target/fault-suite.txt} and into
 * operations.md.
 */
class FaultIT {
  static final String LOW_CAP = "254:16 rbps=max wbps=20971520 riops=max wiops=200";
  static final int KILLS = Integer.getInteger("ioqos.fault.kills", 12);
  static final Duration CONVERGE = Duration.ofSeconds(60);
  static KubernetesClient client;

  @TempDir Path temp;
  SandboxNode node;
  String nodeName;
  String namespace;
  Path stateDir;
  Process agent;
  String viaProxy;
  final Map<String, Long> figures = new LinkedHashMap<>();

  @BeforeAll
  static void installCrds() throws Exception {
    client = TestCluster.get().newClient();
    Crds.installIoqos(client);
  }

  @BeforeEach
  void setUp(TestInfo test) {
    String id =
        test.getTestMethod().orElseThrow().getName().toLowerCase().replaceAll("[^a-z0-9]", "");
    id = id.length() > 40 ? id.substring(0, 40) : id;
    nodeName = "fault-" + id;
    namespace = "fault-" + id;
    node = new SandboxNode(temp.resolve("node"));
    stateDir = temp.resolve("state");
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .withLabels(Map.of("ioqos-test", namespace))
                .endMetadata()
                .build())
        .createOr(e -> e.update());
    client
        .resource(
            Policies.load(
                client, Policies.highAndLow(namespace, "ioqos-test", namespace, true, "")))
        .createOr(e -> e.update());
  }

  @AfterEach
  void tearDown() throws Exception {
    kill();
    client.resources(dev.ioqos.api.v1alpha1.IoPolicy.class).withName(namespace).delete();
    client.pods().inNamespace(namespace).delete();
  }

  @Test
  void killedAtRandomPointsOfChurnTheAgentLosesNothingAndLeavesNothingStale() throws Exception {
    long seed = Long.getLong("ioqos.fault.seed", System.nanoTime());
    Random random = new Random(seed);
    Map<String, Pod> pods = new LinkedHashMap<>();
    int created = 0;
    long checked = 0;
    long stale = 0;
    long lost = 0;
    long unrecorded = 0;
    long operations = 0;
    for (int round = 1; round <= KILLS; round++) {
      startAgent();
      // From the moment the agent holds its state directory (the ledger is open next): before
      // that there is nothing of it to kill but a starting JVM.
      Eventually.value(
          () -> Files.exists(stateDir.resolve("ioqos.lock")),
          Boolean::booleanValue,
          CONVERGE,
          "the agent holds its state directory");
      long killAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300 + random.nextInt(4000));
      while (System.nanoTime() < killAt) {
        int choice = random.nextInt(10);
        if (pods.size() < 4 || (choice < 4 && pods.size() < 12)) {
          String name = "p" + created++;
          Pod pod =
              client.resource(Pods.onNode(namespace, name, nodeName, randomTier(random))).create();
          node.createPod(uid(pod), QosClass.BURSTABLE);
          pods.put(name, pod);
        } else if (choice < 8) {
          Pod pod = pods.get(pick(random, pods));
          String tier = randomTier(random);
          pods.put(
              pod.getMetadata().getName(),
              client
                  .pods()
                  .inNamespace(namespace)
                  .withName(pod.getMetadata().getName())
                  .edit(
                      p -> {
                        if (p.getMetadata().getAnnotations() == null) {
                          p.getMetadata().setAnnotations(new LinkedHashMap<>());
                        }
                        if (tier == null) {
                          p.getMetadata().getAnnotations().remove(Pods.TIER_ANNOTATION);
                        } else {
                          p.getMetadata().getAnnotations().put(Pods.TIER_ANNOTATION, tier);
                        }
                        return p;
                      }));
        } else {
          Pod pod = pods.remove(pick(random, pods));
          client.resource(pod).delete();
          node.removePod(uid(pod), QosClass.BURSTABLE);
        }
        operations++;
        Eventually.sleep(Duration.ofMillis(random.nextInt(150)));
      }
      kill();
      // Write-ahead: what the cgroups hold now, the ledger on disk must hold (else a restarted
      // agent could never revert it).
      unrecorded += unrecordedValues(pods);
      startAgent();
      Map<String, String> wrong = awaitConverged(pods);
      checked += pods.size();
      for (String problem : wrong.values()) {
        if (problem.startsWith("stale")) {
          stale++;
        } else {
          lost++;
        }
      }
      kill();
    }
    figures.put("seed (-Dioqos.fault.seed)", seed);
    figures.put("kills", (long) KILLS);
    figures.put("restarts", (long) KILLS);
    figures.put("churn operations", operations);
    figures.put("pods created", (long) created);
    figures.put("pod checks after restarts", checked);
    figures.put("stale values", stale);
    figures.put("lost values", lost);
    figures.put("values held by a cgroup but not by the ledger", unrecorded);
    report("kill -9 during churn");
    assertThat(stale).as("stale values").isZero();
    assertThat(lost).as("lost values").isZero();
    assertThat(unrecorded).as("values no ledger holds").isZero();
  }

  @Test
  void aFullOrReadOnlyStateDirectoryStopsWritesAndTheAgentCatchesUpWhenItClears() throws Exception {
    assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "mounting a size-limited tmpfs needs root (CI runs as root)");
    Files.createDirectories(stateDir);
    run("mount", "-t", "tmpfs", "-o", "size=256k", "ioqos-fault", stateDir.toString());
    try {
      startAgent();
      Pod first = createPod("first", "low");
      awaitFile(first, "io.max", LOW_CAP);

      // 1. Disk full.
      Path filler = stateDir.resolve("filler");
      fill(filler);
      long faults = 1;
      Pod blocked = createPod("blocked", "low");
      assertNothingWrittenFor(blocked, Duration.ofSeconds(6));
      assertThat(event(blocked, "LedgerNotWritten").getMessage()).contains("No space left");
      awaitCondition("LedgerWritable", "False");
      assertThat(agent.isAlive()).as("the agent runs on with a full state directory").isTrue();
      assertThat(unrecordedValues(Map.of("first", first, "blocked", blocked))).isZero();

      // A restart on the full disk: the journal cannot be folded, the agent must not crash-loop
      // nor revert what was applied.
      kill();
      faults++;
      startAgent();
      Eventually.sleep(Duration.ofSeconds(8));
      assertThat(agent.isAlive()).as("the agent starts on a full state directory").isTrue();
      assertThat(file(first, "io.max")).contains(LOW_CAP);
      assertNothingWrittenFor(blocked, Duration.ofSeconds(1));

      Files.delete(filler);
      awaitFile(blocked, "io.max", LOW_CAP);
      awaitCondition("LedgerWritable", "True");

      // 2. Read-only (as after an I/O error on ext4 with errors=remount-ro): a read-only bind
      // mount over the directory (a plain remount is refused while the agent holds its lock file
      // open for writing).
      run("mount", "--bind", stateDir.toString(), stateDir.toString());
      run("mount", "-o", "remount,ro,bind", stateDir.toString());
      faults++;
      Pod readOnly = createPod("readonly", "low");
      assertNothingWrittenFor(readOnly, Duration.ofSeconds(6));
      assertThat(agent.isAlive()).isTrue();
      assertThat(event(readOnly, "LedgerNotWritten").getMessage()).contains("Read-only");
      run("umount", stateDir.toString());
      awaitFile(readOnly, "io.max", LOW_CAP);

      kill();
      Map<String, Pod> all = Map.of("first", first, "blocked", blocked, "readonly", readOnly);
      long unrecorded = unrecordedValues(all);
      figures.put("faults injected (disk full, restart on a full disk, read-only)", faults);
      figures.put("pods checked", (long) all.size());
      figures.put("values held by a cgroup but not by the ledger", unrecorded);
      figures.put("agent exits", 0L);
      report("full and read-only state directory");
      assertThat(unrecorded).isZero();
    } finally {
      kill();
      while (new ProcessBuilder("umount", "-l", stateDir.toString()).start().waitFor() == 0) {
        // the read-only bind mount (when a failure left it), then the tmpfs
      }
    }
  }

  @Test
  void anUnreachableApiServerAndAFailedNodeReadAtStartRevertNothing() throws Exception {
    String selected = "ioqos-fault";
    client.resources(dev.ioqos.api.v1alpha1.IoPolicy.class).withName(namespace).delete();
    client
        .resource(
            Policies.load(
                client,
                Policies.highAndLow(
                    namespace + "-nodes",
                    "ioqos-test",
                    namespace,
                    true,
                    "  nodeSelector: {matchLabels: {" + selected + ": 'on'}}\n")))
        .create();
    client
        .nodes()
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName(nodeName)
                .withLabels(Map.of(selected, "on"))
                .endMetadata()
                .build())
        .createOr(e -> e.update());
    String yaml = TestCluster.get().kubeconfigYaml();
    java.net.URI api = java.net.URI.create(TestCluster.get().config().getMasterUrl());
    try (CuttableProxy proxy = new CuttableProxy(api)) {
      viaProxy =
          yaml.replace(api.getHost() + ":" + api.getPort(), api.getHost() + ":" + proxy.port());
      assertThat(viaProxy).isNotEqualTo(yaml);
      startAgent();
      Map<String, Pod> pods = new LinkedHashMap<>();
      pods.put("a", createPod("a", "low"));
      pods.put("b", createPod("b", "high"));
      pods.put("c", createPod("c", null));
      assertThat(awaitConverged(pods)).isEmpty();

      // 1. The API server goes away during churn.
      proxy.cut();
      Map<String, String> before = snapshot(pods);
      Pod b = pods.get("b");
      pods.put(
          "b",
          client
              .pods()
              .inNamespace(namespace)
              .withName("b")
              .edit(
                  p -> {
                    p.getMetadata().getAnnotations().put(Pods.TIER_ANNOTATION, "low");
                    return p;
                  }));
      pods.put("d", createPod("d", "low"));
      long reverted =
          changedDuring(
              Map.of("a", pods.get("a"), "b", b, "c", pods.get("c")),
              before,
              Duration.ofSeconds(8));
      assertThat(agent.isAlive()).as("the agent survives an API outage").isTrue();
      proxy.restore();
      Map<String, String> wrongAfterOutage = awaitConverged(pods);

      // 2. A restart whose first GET of the node fails: labels unknown, not "not selected".
      kill();
      proxy.cut();
      before = snapshot(pods);
      startAgent();
      Eventually.value(
          () -> Files.exists(stateDir.resolve("ioqos.lock")),
          Boolean::booleanValue,
          CONVERGE,
          "the agent holds its state directory");
      Eventually.sleep(Duration.ofSeconds(2));
      proxy.restore();
      reverted += changedDuring(pods, before, Duration.ofSeconds(10));
      Map<String, String> wrongAfterRestart = awaitConverged(pods);

      figures.put("API outages (connections cut, new ones refused)", 2L);
      figures.put("restarts with the node unreadable", 1L);
      figures.put("pods checked", (long) pods.size() * 2);
      figures.put("values reverted or changed while facts were unknown", reverted);
      figures.put("stale or lost after the API came back", (long) wrongAfterOutage.size());
      figures.put("stale or lost after the restart", (long) wrongAfterRestart.size());
      report("API server unreachable, node unreadable at start");
      assertThat(reverted).as("values reverted during the outage").isZero();
      assertThat(wrongAfterOutage).isEmpty();
      assertThat(wrongAfterRestart).isEmpty();
    } finally {
      viaProxy = null;
      kill();
      client.nodes().withName(nodeName).delete();
      client
          .resources(dev.ioqos.api.v1alpha1.IoPolicy.class)
          .withName(namespace + "-nodes")
          .delete();
    }
  }

  Map<String, String> snapshot(Map<String, Pod> pods) {
    Map<String, String> files = new LinkedHashMap<>();
    pods.forEach(
        (name, pod) -> files.put(name, file(pod, "io.max") + "|" + file(pod, "io.bfq.weight")));
    return files;
  }

  /** How many of the pods' cgroups changed from {@code before} within {@code time}. */
  long changedDuring(Map<String, Pod> pods, Map<String, String> before, Duration time) {
    long end = System.nanoTime() + time.toNanos();
    java.util.Set<String> changed = new java.util.TreeSet<>();
    while (System.nanoTime() < end) {
      Map<String, String> now = snapshot(pods);
      before.forEach(
          (name, files) -> {
            if (now.containsKey(name) && !now.get(name).equals(files)) {
              changed.add(name + ": " + files + " -> " + now.get(name));
            }
          });
      Eventually.sleep(Duration.ofMillis(50));
    }
    changed.forEach(line -> System.out.println("changed while unknown: " + line));
    return changed.size();
  }

  // --- the agent process ---

  void startAgent() throws IOException {
    Path e2e = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Path jar = e2e.resolveSibling("operator/target/ioqos.jar").normalize();
    assertThat(jar).as("the product jar, built before the e2e tests").isRegularFile();
    Path kubeconfig =
        viaProxy != null
            ? Files.writeString(temp.resolve("kubeconfig-proxy"), viaProxy)
            : TestCluster.get().writeKubeconfig(temp);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar.toString()));
    command.add("run");
    command.addAll(node.rootOptions());
    command.addAll(
        List.of("--state-dir", stateDir.toString(), "--resync", "PT2S", "--metrics-port", "0"));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(temp.resolve("agent.log").toFile()));
    builder.environment().put("NODE_NAME", nodeName);
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    agent = builder.start();
  }

  /** SIGKILL, as the OOM killer or a node crash would. */
  void kill() throws InterruptedException {
    if (agent != null && agent.isAlive()) {
      agent.destroyForcibly();
      agent.waitFor(30, TimeUnit.SECONDS);
    }
  }

  // --- what the cgroups must hold ---

  /** Waits until every pod holds what its tier says; returns the pods that never did. */
  Map<String, String> awaitConverged(Map<String, Pod> pods) {
    long deadline = System.nanoTime() + CONVERGE.toNanos();
    Map<String, String> wrong = mismatches(pods);
    while (!wrong.isEmpty() && System.nanoTime() < deadline) {
      Eventually.sleep(Duration.ofMillis(250));
      wrong = mismatches(pods);
    }
    return wrong;
  }

  Map<String, String> mismatches(Map<String, Pod> pods) {
    Map<String, String> wrong = new LinkedHashMap<>();
    for (Pod pod : pods.values()) {
      String tier = pod.getMetadata().getAnnotations().get(Pods.TIER_ANNOTATION);
      String max = file(pod, "io.max");
      String bfq = file(pod, "io.bfq.weight");
      boolean capped = max.contains("wbps=20971520");
      String wantBfq =
          "low".equals(tier)
              ? "default 10\n"
              : "high".equals(tier) ? "default 136\n" : "default 100\n";
      if ("low".equals(tier)) {
        if (!capped || !bfq.equals(wantBfq)) {
          wrong.put(pod.getMetadata().getName(), "lost: tier low, io.max " + max + ", bfq " + bfq);
        }
      } else if (capped || !bfq.equals(wantBfq)) {
        wrong.put(
            pod.getMetadata().getName(),
            (capped || (tier == null && !bfq.equals(wantBfq)) ? "stale" : "lost")
                + ": tier "
                + tier
                + ", io.max "
                + max
                + ", bfq "
                + bfq);
      }
    }
    return wrong;
  }

  /**
   * Values the pods' cgroups hold that the ledger on disk does not (read from a copy, so that the
   * agent's next start sees the files as they were).
   */
  long unrecordedValues(Map<String, Pod> pods) throws IOException {
    Path copy = Files.createTempDirectory(temp, "ledger-copy");
    Files.createDirectories(stateDir);
    try (var files = Files.list(stateDir)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().startsWith("ledger")).toList()) {
        Files.copy(file, copy.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Ledger ledger = Ledger.open(copy);
    long unrecorded = 0;
    for (Pod pod : pods.values()) {
      LedgerEntry entry = ledger.get(uid(pod)).orElse(null);
      String max = file(pod, "io.max");
      String bfq = file(pod, "io.bfq.weight");
      if (max.contains("wbps=20971520") && (entry == null || entry.held().limits().isEmpty())) {
        unrecorded++;
      }
      if (!bfq.equals("default 100\n") && (entry == null || entry.held().bfqWeight().isEmpty())) {
        unrecorded++;
      }
    }
    return unrecorded;
  }

  // --- helpers ---

  Pod createPod(String name, String tier) {
    Pod pod = client.resource(Pods.onNode(namespace, name, nodeName, tier)).create();
    node.createPod(uid(pod), QosClass.BURSTABLE);
    return pod;
  }

  String file(Pod pod, String name) {
    try {
      return Files.readString(node.podDir(uid(pod), QosClass.BURSTABLE).resolve(name));
    } catch (IOException e) {
      return "";
    }
  }

  void awaitFile(Pod pod, String name, String line) {
    Eventually.value(
        () -> file(pod, name), text -> text.contains(line), CONVERGE, name + " holds " + line);
  }

  void assertNothingWrittenFor(Pod pod, Duration time) {
    long end = System.nanoTime() + time.toNanos();
    while (System.nanoTime() < end) {
      assertThat(file(pod, "io.max")).as("io.max of a pod the ledger cannot record").isEmpty();
      assertThat(file(pod, "io.bfq.weight")).isEqualTo("default 100\n");
      Eventually.sleep(Duration.ofMillis(100));
    }
  }

  Event event(Pod pod, String reason) {
    return Eventually.value(
            () ->
                client.v1().events().inNamespace(namespace).list().getItems().stream()
                    .filter(
                        e -> e.getInvolvedObject().getName().equals(pod.getMetadata().getName()))
                    .filter(e -> e.getReason().equals(reason))
                    .findFirst(),
            java.util.Optional::isPresent,
            CONVERGE,
            "event " + reason)
        .get();
  }

  void awaitCondition(String type, String status) {
    Eventually.value(
        () -> client.resources(IoNodeState.class).withName(nodeName).get(),
        state ->
            state != null
                && state.getStatus() != null
                && state.getStatus().getConditions() != null
                && state.getStatus().getConditions().stream()
                    .anyMatch(c -> c.getType().equals(type) && c.getStatus().equals(status)),
        CONVERGE,
        "condition " + type + "=" + status);
  }

  static void fill(Path file) {
    byte[] block = new byte[4096];
    try (OutputStream out = Files.newOutputStream(file)) {
      while (true) {
        out.write(block);
        out.flush();
      }
    } catch (IOException full) {
      // No space left on device: that was the point.
    }
  }

  static void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor()).as(String.join(" ", command) + ": " + out).isZero();
  }

  void report(String name) throws IOException {
    Path e2e = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    StringBuilder text = new StringBuilder(name).append('\n');
    figures.forEach(
        (key, value) -> text.append("  ").append(key).append(": ").append(value).append('\n'));
    Files.createDirectories(e2e.resolve("target"));
    Files.writeString(
        e2e.resolve("target/fault-suite.txt"),
        text.toString(),
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    System.out.print(text);
  }

  static String randomTier(Random random) {
    return switch (random.nextInt(3)) {
      case 0 -> "low";
      case 1 -> "high";
      default -> null;
    };
  }

  static String pick(Random random, Map<String, Pod> pods) {
    List<String> names = new ArrayList<>(pods.keySet());
    return names.get(random.nextInt(names.size()));
  }

  static String uid(Pod pod) {
    return pod.getMetadata().getUid();
  }
}
