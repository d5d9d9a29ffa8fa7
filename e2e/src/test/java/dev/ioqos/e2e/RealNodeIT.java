package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.IoWeight;
import dev.ioqos.testkit.Policies;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A real node (issue 15): kubelet, containerd and runc in a Debian 6.12 guest under QEMU, joined to
 * a control plane on this host ({@link RealNode}); ioqos installed from {@code deploy/} as users
 * install it, its image built by Jib; pods that kubelet and containerd created, in each QoS class.
 * Every value is checked by reading the kernel's files in the guest, not the agent's report. The
 * steps build on each other (one boot for the class), in order. Without QEMU, the kernel package or
 * the node's binaries it fails with the harness's reason; it never skips.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class RealNodeIT {
  /** The reader's latency target in the loop test, as a multiple of its solo mean. */
  static final double LOOP_TARGET_FACTOR = 1.5;

  static final String NS = "real-node";
  static final String AGENT_NS = "ioqos-system";
  static final String DISK = "254:16"; // vdb: kubelet's root dir is on its partition vdb1
  static final long CAP_BPS = 10L * 1024 * 1024;
  static final int HIGH = 500;
  static final int STANDARD = 200;
  static final int LOW = 10;

  RealNode node;
  KubernetesClient client;
  Path e2e;
  Path work;
  final List<String> report = new ArrayList<>();

  /** kubelet's cgroup driver for this run: cgroupfs or systemd. */
  abstract String driver();

  /** The pod's cgroup directory as kubelet names it with this driver, below /sys/fs/cgroup. */
  abstract String podCgroup(String qosClass, String uid);

  @BeforeAll
  void startTheNode() throws Exception {
    e2e = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    work = e2e.resolve("target/real-node-" + driver());
    long t0 = System.nanoTime();
    String images =
        // The reactor built operator/target/ioqos.jar before this module: Jib packs that jar.
        RealNode.script(
            e2e,
            Map.of("IOQOS_IMAGES_SKIP_BUILD", "1"),
            Files.createDirectories(work).resolve("images.log"),
            Duration.ofMinutes(20),
            "node/images");
    // One more boot when the guest kernel crashed while the node came up (see
    // RealNode.kernelCrash): an emulator fault, never a node that failed on its own.
    for (int attempt = 1; ; attempt++) {
      try {
        bringUp(ownImages(Path.of(lastLine(images))), t0);
        return;
      } catch (RealNode.RealNodeException e) {
        String crash = e.kernelCrash;
        if (node != null) {
          node.close();
        }
        if (attempt > 1 || crash == null) {
          throw e;
        }
        Files.move(
            work.resolve("console.log"),
            work.resolve("console.crashed.log"),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        say("the guest kernel crashed while the node came up (%s); booting it again", crash);
        node = null;
      }
    }
  }

  /**
   * This run's own links to the image tars: the cache is shared by every checkout on the machine,
   * and another run rebuilding ioqos.tar from its own jar (a rename over the file) must not change
   * what this node imports. A hard link keeps the file this run built.
   */
  Path ownImages(Path cached) throws java.io.IOException {
    Path own = work.resolve("images");
    if (Files.exists(own)) {
      try (var old = Files.list(own)) {
        for (Path file : old.toList()) {
          Files.delete(file);
        }
      }
    }
    Files.createDirectories(own);
    try (var tars = Files.list(cached)) {
      for (Path tar : tars.filter(p -> p.toString().endsWith(".tar")).toList()) {
        Path link = own.resolve(tar.getFileName());
        try {
          Files.createLink(link, tar);
        } catch (java.io.IOException | UnsupportedOperationException e) {
          Files.copy(tar, link);
        }
      }
    }
    return own;
  }

  private void bringUp(Path images, long t0) throws Exception {
    node = RealNode.start(e2e, work, images, driver(), Duration.ofMinutes(12));
    client = node.client();
    say(
        "node %s Ready %.0f s after boot started (%s driver)",
        node.name(), node.bootToReady.toMillis() / 1e3, driver());
    long t1 = System.nanoTime();
    node.kubectl("apply", "--server-side", "-k", install().toString());
    Pod agent = awaitAgentReady(Duration.ofMinutes(8));
    say(
        "agent pod %s Ready %.0f s after `kubectl apply -k` of deploy/ rendered with"
            + " agent.cgroupDriver=%s (whole start %.0f s)",
        agent.getMetadata().getName(),
        (System.nanoTime() - t1) / 1e9,
        driver(),
        (System.nanoTime() - t0) / 1e9);
  }

  /**
   * deploy/ as deploy/render makes it, but with the node's cgroup driver set as an installer who
   * knows it sets agent.cgroupDriver: the agent's container then gets the host's cgroup tree
   * read-only and kubelet's kubepods cgroup read-write (agent.cgroupWriteScope auto). Everything
   * else is deploy/'s own (DeployManifestsIT keeps deploy/ equal to the default render).
   */
  Path install() throws java.io.IOException {
    Path install = work.resolve("install");
    Map<String, String> files =
        DeployManifestsIT.render(
            DeployManifestsIT.DEPLOY_VALUES + "agent: {cgroupDriver: " + driver() + "}\n");
    for (Map.Entry<String, String> file : files.entrySet()) {
      Path path = install.resolve(file.getKey());
      Files.createDirectories(path.getParent());
      Files.writeString(path, file.getValue());
    }
    return install;
  }

  @AfterAll
  void stopTheNode() throws Exception {
    Files.write(work.resolve("report.txt"), report, StandardCharsets.UTF_8);
    report.forEach(System.out::println);
    if (node != null) {
      node.close();
    }
  }

  void say(String format, Object... args) {
    String line = String.format(format, args);
    report.add(line);
    System.out.println("[real-node] " + line);
  }

  // -------------------------------------------------------------------------------------------
  // The shipped manifests on a real node

  @Test
  @Order(1)
  void theDaemonSetAndTheAggregatorRunWithTheShippedManifests() throws Exception {
    Pod agent = awaitAgentReady(Duration.ofMinutes(2));
    assertThat(
            agent.getSpec().getContainers().get(0).getSecurityContext().getCapabilities().getDrop())
        .containsExactly("ALL");
    assertThat(agent.getSpec().getNodeName()).isEqualTo(node.name());
    Pod aggregator =
        eventually(
            () ->
                pods(AGENT_NS, "app.kubernetes.io/component", "aggregator").stream()
                    .filter(RealNodeIT::ready)
                    .findFirst()
                    .orElse(null),
            p -> p != null,
            Duration.ofMinutes(5),
            "the aggregator Deployment's pod becomes Ready");
    assertThat(aggregator.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    IoNodeState state =
        eventually(
            () -> client.resources(IoNodeState.class).withName(node.name()).get(),
            s -> s != null && s.getStatus() != null && s.getStatus().getCgroup() != null,
            Duration.ofMinutes(2),
            "the agent publishes the node's IoNodeState");
    assertThat(state.getStatus().getCgroup().getVersion()).isEqualTo("v2");
    assertThat(state.getStatus().getCgroup().getDriver()).isEqualTo(driver());
    assertThat(state.getStatus().getCgroup().getIoControllerEnabled())
        .as(
            "the agent finds the io controller delegated down kubepods on the node; its"
                + " conditions say: %s",
            state.getStatus().getConditions())
        .isTrue();
    say("agent container memory.current %.1f MiB (idle, no managed pods)", agentMemoryMiB());

    // Least privilege: in the agent's own mount namespace the host's cgroup tree is read-only and
    // only kubelet's kubepods cgroup is writable (the driver is set at install).
    String kubepods = driver().equals("systemd") ? "/kubepods.slice" : "/kubepods";
    String mounts =
        node.sh(
            AGENT_PID
                + " awk '$5 ~ /^\\/host\\/sys\\/fs\\/cgroup/ {print $4, $5, $6}'"
                + " /proc/$pid/mountinfo");
    say("the agent's cgroup mounts (root, mount point, options):%n%s", mounts.strip());
    assertThat(mounts.lines())
        .anyMatch(l -> l.matches("/ /host/sys/fs/cgroup ro,.*"))
        .anyMatch(l -> l.matches(kubepods + " /host/sys/fs/cgroup" + kubepods + " rw,.*"))
        .hasSize(2);
    // ... and the node says so.
    IoNodeState scoped =
        eventually(
            () -> client.resources(IoNodeState.class).withName(node.name()).get(),
            s ->
                s.getStatus().getConditions().stream()
                    .anyMatch(c -> c.getType().equals("CgroupWriteScope")),
            Duration.ofMinutes(2),
            "the IoNodeState has the condition CgroupWriteScope");
    assertThat(scoped.getStatus().getConditions())
        .filteredOn(c -> c.getType().equals("CgroupWriteScope"))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo("KubepodsOnly");
              assertThat(c.getMessage()).endsWith("but " + kubepods);
            });
  }

  // -------------------------------------------------------------------------------------------
  // Tiers on pods kubelet created

  @Test
  @Order(2)
  void eachPodsKubeletCgroupHoldsItsTier() throws Exception {
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(NS)
                .addToLabels("ioqos-e2e", "real-node")
                .endMetadata()
                .build())
        .serverSideApply();
    client.resource(policy()).serverSideApply();
    eventuallyInGuest(
        "test -e /run/ioqos-images-imported",
        Duration.ofMinutes(5),
        "the workload images are in containerd");
    Pod db = create(pod("db", "high", "Guaranteed", "busybox", "sleep", "36000"));
    Pod backup = create(pod("backup", "low", "Burstable", "busybox", "sleep", "36000"));
    Pod web = create(pod("web", null, "BestEffort", "busybox", "sleep", "36000"));
    long t0 = System.nanoTime();
    for (Pod pod : List.of(db, backup, web)) {
      awaitRunning(pod.getMetadata().getName());
    }
    say("3 pods Running %.0f s after creation", (System.nanoTime() - t0) / 1e9);
    expectTier("db", "Guaranteed", HIGH, false);
    expectTier("backup", "Burstable", LOW, true);
    expectTier("web", "BestEffort", STANDARD, false);
    // kubelet's own layout: the container cgroups are children of the pod's.
    String children = node.sh("ls " + cgroupDir("backup", "Burstable"));
    assertThat(children)
        .contains("io.max")
        .containsPattern("(?m)^[0-9a-f]{64}$|cri-containerd-[0-9a-f]{64}\\.scope");
    assertThat(events("backup")).anyMatch(e -> "Applied".equals(e.getReason()));
  }

  @Test
  @Order(3)
  void aTierChangeIsWrittenToTheKernel() throws Exception {
    node.kubectl("annotate", "pod", "-n", NS, "backup", "ioqos.dev/tier=high", "--overwrite");
    expectTier("backup", "Burstable", HIGH, false);
    node.kubectl("annotate", "pod", "-n", NS, "backup", "ioqos.dev/tier=low", "--overwrite");
    expectTier("backup", "Burstable", LOW, true);
  }

  @Test
  @Order(4)
  void metricsAreScrapedFromTheAgentsPodIp() throws Exception {
    Pod agent = awaitAgentReady(Duration.ofMinutes(1));
    String ip = agent.getStatus().getPodIP();
    // The install serves /metrics over HTTPS to tokens allowed to get it (metrics.secure).
    RealNode.Result probe =
        node.run(
            "curl -sk -o /dev/null -w '%{http_code} %{time_appconnect}' https://"
                + ip
                + ":8080/metrics",
            Duration.ofSeconds(120));
    if (probe.status() != 0) {
      // What found the missing DNS: curl's view, then the agent's threads during a handshake.
      String verbose =
          node.run(
                  AGENT_PID
                      + " curl -vsk --max-time 20 -o /dev/null https://"
                      + ip
                      + ":8080/readyz 2>&1 | tail -n 12;"
                      + " (curl -sk --max-time 20 -o /dev/null https://"
                      + ip
                      + ":8080/readyz &); sleep 3; kill -3 $pid; sleep 3;"
                      + " tail -n 600 /var/log/pods/"
                      + AGENT_NS
                      + "_ioqos-agent-*/agent/*.log | grep -A 25 'ioqos-metrics-https' | head"
                      + " -n 120",
                  Duration.ofSeconds(120))
              .output();
      throw new AssertionError(
          "curl in the guest could not reach the agent's HTTPS port (exit "
              + probe.status()
              + "):\n"
              + verbose
              + diagnosis());
    }
    String[] anonymous = probe.output().strip().split(" ");
    assertThat(anonymous[0]).as("no token").isEqualTo("401");
    say("TLS handshake from the guest's curl: %s s", anonymous[1]);
    String metrics = node.sh(scrape(ip));
    assertThat(metrics)
        .contains("ioqos_pod_io_weight{")
        .containsPattern(
            "ioqos_pod_io_max_bytes_per_second\\{[^}]*pod=\"backup\"[^}]*} 1.048576E7");
    say("scraped %d bytes of metrics from the agent's pod IP %s", metrics.length(), ip);
  }

  @Test
  @Order(5)
  void aCappedWriterPodWritesAtItsCap() throws Exception {
    String fio =
        "fio --name=w --filename=/data/f --rw=write --bs=1M --size=256M --direct=1 --ioengine=libaio"
            + " --iodepth=4 --time_based --runtime=20 --output-format=json --output=/data/fio.json"
            + " && touch /data/done; sleep 36000";
    create(pod("writer", "low", "Burstable", "fio", "sh", "-c", fio));
    awaitRunning("writer");
    expectTier("writer", "Burstable", LOW, true);
    String uid = uid("writer");
    String data = "/var/lib/kubelet/pods/" + uid + "/volumes/kubernetes.io~empty-dir/data";
    eventuallyInGuest(
        "test -e " + data + "/done", Duration.ofMinutes(3), "fio in the writer pod finishes");
    String json = node.sh("cat " + data + "/fio.json");
    double bytesPerSecond = fio(json, "write", "bw_bytes");
    say(
        "capped writer pod (fio, direct): %.2f MiB/s against a cap of %.0f MiB/s",
        bytesPerSecond / 1048576.0, CAP_BPS / 1048576.0);
    assertThat((double) bytesPerSecond).isBetween(CAP_BPS * 0.95, CAP_BPS * 1.05);

    // The agent keeps each pod's io.stat open from scrape to scrape and reads it again at offset 0
    // (HeldFile): a scrape, 16 MiB more written by the pod, a scrape again; each must show what the
    // kernel counts at that moment.
    String scrape = scrape(awaitAgentReady(Duration.ofMinutes(1)).getStatus().getPodIP());
    String stat = cgroupDir("writer", "Burstable") + "/io.stat";
    String kernel = "grep '^" + DISK + " ' " + stat + " | tr ' ' '\\n' | sed -n 's/^wbytes=//p'";
    long[] first = {Long.parseLong(node.sh(kernel).trim()), 0};
    double scraped = writtenBytes(node.sh(scrape), "writer");
    first[1] = Long.parseLong(node.sh(kernel).trim());
    exec(
        "writer",
        "fio --name=more --filename=/data/more --rw=write --bs=1M --size=16M --direct=1",
        false);
    long[] second = {Long.parseLong(node.sh(kernel).trim()), 0};
    double again = writtenBytes(node.sh(scrape), "writer");
    second[1] = Long.parseLong(node.sh(kernel).trim());
    say(
        "the writer's wbytes on %s as scraped: %.0f (kernel %d..%d), then after 16 MiB more %.0f"
            + " (kernel %d..%d)",
        DISK, scraped, first[0], first[1], again, second[0], second[1]);
    assertThat(scraped).isBetween((double) first[0], (double) first[1]);
    assertThat(again)
        .as("the second scrape reads the kept-open io.stat afresh")
        .isBetween((double) second[0], (double) second[1])
        .isGreaterThanOrEqualTo(scraped + 16 * 1048576.0);
  }

  /** The pod's {@code ioqos_pod_io_written_bytes_total} on {@link #DISK} in a scrape's text. */
  static double writtenBytes(String metrics, String pod) {
    Matcher line =
        Pattern.compile(
                "(?m)^ioqos_pod_io_written_bytes_total\\{device=\""
                    + DISK
                    + "\",[^}]*pod=\""
                    + pod
                    + "\"[^}]*} (\\S+)$")
            .matcher(metrics);
    assertThat(line.find()).as("%s's written bytes on %s in:%n%s", pod, DISK, metrics).isTrue();
    return Double.parseDouble(line.group(1));
  }

  @Test
  @Order(6)
  void aBufferedWriterIsThrottledAtWriteback() throws Exception {
    // As most applications write: through the page cache, no O_DIRECT. kubelet enables the memory
    // and io controllers, so the kernel charges the pod's dirty pages and their writeback to the
    // pod's cgroup: `write()` returns at memory speed until the dirty limit, then the writer waits
    // for writeback, which runs at the cap.
    create(pod("buffered", "low", "Burstable", "busybox", "sleep", "36000"));
    awaitRunning("buffered");
    expectTier("buffered", "Burstable", LOW, true);
    String stat = cgroupDir("buffered", "Burstable") + "/io.stat";
    String written = "grep '^" + DISK + " ' " + stat + " | tr ' ' '\\n' | sed -n 's/^wbytes=//p'";
    String dd =
        exec("buffered", "dd if=/dev/zero of=/data/big bs=1M count=1024 2>&1 | tail -1", true);
    node.sh("sleep 10");
    long w0 = Long.parseLong(node.sh(written).trim());
    long t0 = System.nanoTime();
    node.sh("sleep 60", Duration.ofSeconds(90));
    long w1 = Long.parseLong(node.sh(written).trim());
    double rate = (w1 - w0) / ((System.nanoTime() - t0) / 1e9);
    String ddSaid = node.sh("cat " + dataDir("buffered") + "/exec.out").trim();
    say(
        "buffered writer (dd bs=1M count=1024, no oflag=direct) in tier low: writeback %.2f MiB/s over 60 s"
            + " (io.stat wbytes) against a cap of %.0f MiB/s; dd said: %s",
        rate / 1048576.0, CAP_BPS / 1048576.0, ddSaid.isEmpty() ? "(still writing)" : ddSaid);
    assertThat(rate).isBetween(CAP_BPS * 0.5, CAP_BPS * 1.05);
  }

  @Test
  @Order(7)
  void aReaderNextToAWriterWithAndWithoutTheCap() throws Exception {
    // The kernel demo's noisy neighbour with real pods: a 4 KiB random reader alone, next to a
    // sequential writer in an uncapped tier, and next to the same writer in tier low.
    create(pod("reader", "high", "Burstable", "fio", "sleep", "36000"));
    create(pod("neighbour", "high", "Burstable", "fio", "sleep", "36000"));
    awaitRunning("reader");
    awaitRunning("neighbour");
    expectTier("neighbour", "Burstable", HIGH, false);
    String read =
        "fio --name=r --filename=/data/r --rw=randread --bs=4k --size=64M --direct=1 --ioengine=libaio"
            + " --iodepth=16 --time_based --runtime=15 --output-format=json";
    String write =
        "fio --name=w --filename=/data/w --rw=write --bs=1M --size=256M --direct=1 --ioengine=libaio"
            + " --iodepth=4 --time_based --runtime=20 --output-format=json";
    exec(
        "reader",
        "fio --name=lay --filename=/data/r --rw=write --bs=1M --size=64M --direct=1",
        false);
    double alone = fio(exec("reader", read, false), "read", "iops");
    exec("neighbour", write, true);
    double uncapped = fio(exec("reader", read, false), "read", "iops");
    double uncappedWriter = fio(awaitExec("neighbour"), "write", "bw_bytes") / 1048576.0;
    node.kubectl("annotate", "pod", "-n", NS, "neighbour", "ioqos.dev/tier=low", "--overwrite");
    expectTier("neighbour", "Burstable", LOW, true);
    exec("neighbour", write, true);
    double capped = fio(exec("reader", read, false), "read", "iops");
    double cappedWriter = fio(awaitExec("neighbour"), "write", "bw_bytes") / 1048576.0;
    say(
        "noisy neighbour, real pods: reader %.0f IOPS alone; %.0f (%.0f%%) next to a writer at %.1f MiB/s;"
            + " %.0f (%.0f%%) with the writer in tier low at %.2f MiB/s",
        alone,
        uncapped,
        100 * uncapped / alone,
        uncappedWriter,
        capped,
        100 * capped / alone,
        cappedWriter);
    say(
        "agent container memory.current %.1f MiB with %d managed pods",
        agentMemoryMiB(), client.pods().inNamespace(NS).list().getItems().size());
    assertThat(alone).isPositive();
    // The cap holds the writer (upper bound); the lower bound only says the writer ran at the cap
    // and not slower for another reason. It is wider than the dedicated capped-writer test's 5%:
    // this writer shares the emulated node's two vCPUs with a 16-deep random reader, and on a
    // loaded host it measured 8.98 MiB/s once (RealNodeSystemdIT, the host running other guests).
    assertThat(cappedWriter * 1048576).isBetween(CAP_BPS * 0.8, CAP_BPS * 1.05);
  }

  @Test
  @Order(7)
  void aLatencyTargetThrottlesTheWriterOnlyWhileTheReaderReads() throws Exception {
    // The latency loop (kernels without io.latency, as this Debian 6.12) in the DaemonSet's agent:
    // a 4 KiB random reader (QD1) in a tier with a latencyTarget and a 1 MiB sequential writer
    // (QD8) in a lower tier without a static cap, on the disk of kubelet's root directory.
    for (String[] p : new String[][] {{"lreader", "protected"}, {"lwriter", "batch"}}) {
      Pod pod = pod(p[0], p[1], "Burstable", "fio", "sleep", "36000");
      pod.getMetadata().setLabels(Map.of("ioqos-loop", "yes"));
      create(pod);
    }
    awaitRunning("lreader");
    awaitRunning("lwriter");
    String read =
        "fio --name=r --filename=/data/r --rw=randread --bs=4k --size=64M --direct=1"
            + " --ioengine=libaio --iodepth=1 --ramp_time=2 --runtime=12 --time_based"
            + " --output-format=json";
    String write =
        "fio --name=w --filename=/data/w --rw=write --bs=1M --size=256M --direct=1"
            + " --ioengine=libaio --iodepth=8 --time_based --output-format=json --runtime=";
    exec(
        "lreader",
        "fio --name=lay --filename=/data/r --rw=write --bs=1M --size=64M --direct=1",
        false);
    String solo = exec("lreader", read, false);
    double soloMeanUs = fio(solo, "read", "clat_ns", "mean") / 1000;
    double writerAlone =
        fio(exec("lwriter", write + "8 --ramp_time=1", false), "write", "bw_bytes");
    // The writers run until stopped, and the reader starts once the writer's bytes flow: an exec
    // in a container takes seconds to start on the emulated node.
    exec("lwriter", write + "120", true);
    awaitWriting("lwriter");
    String noisy = exec("lreader", read, false);
    stopFio("lwriter");
    awaitExec("lwriter");

    // Now the tiers exist: the reader protected at 1.5x its solo mean latency (at least 200 us),
    // first in dry run: the loop computes (the agent's CPU as with the loop), writes nothing.
    // 1.5x, not 2x: a solo run slowed by the loaded emulated node gave a target that contention
    // barely exceeded, and the loop had nothing to correct (CI, systemd node).
    long targetUs = Math.max(200, Math.round(LOOP_TARGET_FACTOR * soloMeanUs));
    loopPolicy(targetUs, "DryRun");
    try {
      eventually(
          () -> eventsWithReason("lwriter", "DryRun"),
          events -> events.stream().anyMatch(e -> e.getMessage().contains("real-node-loop")),
          Duration.ofMinutes(2),
          "the writer in the loop policy's dry run");
      exec("lwriter", write + "120", true);
      awaitWriting("lwriter");
      String dry = exec("lreader", read, false);
      stopFio("lwriter");
      awaitExec("lwriter");
      assertThat(node.sh("cat " + cgroupDir("lwriter", "Burstable") + "/io.max").trim())
          .as("nothing written in dry run")
          .isEmpty();

      loopPolicy(targetUs, "Enforce");
      eventually(
          () -> client.resources(IoNodeState.class).withName(node.name()).get(),
          state ->
              state.getStatus().getConditions().stream()
                  .anyMatch(c -> c.getType().equals("LatencyLoop") && "True".equals(c.getStatus())),
          Duration.ofMinutes(2),
          "the IoNodeState's LatencyLoop condition says the loop runs");
      // The writer's written bytes and its io.max wbps ("max" when none) every half second, by a
      // script in the guest (one awk per sample: the emulated node forks slowly under load).
      String writerDir = cgroupDir("lwriter", "Burstable");
      String sampler =
          String.join(
              "\n",
              "echo $$ > /tmp/wlog.pid",
              "while :; do",
              "  t=$(date +%s%3N)",
              "  awk -v t=\"$t\" -v d=" + DISK + " '",
              "    FILENAME ~ /io.stat$/ && $1 == d { for (i = 2; i <= NF; i++)"
                  + " if ($i ~ /^wbytes=/) b = substr($i, 8) }",
              "    FILENAME ~ /io.max$/ && $1 == d { for (i = 2; i <= NF; i++)"
                  + " if ($i ~ /^wbps=/) m = substr($i, 6) }",
              "    END { print t, (b == \"\" ? 0 : b), (m == \"\" ? \"max\" : m) }' "
                  + writerDir
                  + "/io.stat "
                  + writerDir
                  + "/io.max >> /tmp/wlog",
              "  sleep 0.5",
              "done",
              "");
      node.sh(
          "rm -f /tmp/wlog; echo "
              + java.util.Base64.getEncoder()
                  .encodeToString(sampler.getBytes(StandardCharsets.UTF_8))
              + " | base64 -d > /tmp/wsample.sh; setsid sh /tmp/wsample.sh >/dev/null 2>&1"
              + " < /dev/null &");
      exec("lwriter", write + "120", true);
      awaitWriting("lwriter");
      node.sh("sleep 5");
      double cpu0 = agentCpuSeconds();
      long execStart = Long.parseLong(node.sh("date +%s%3N").trim());
      String loop = exec("lreader", read, false);
      long execEnd = Long.parseLong(node.sh("date +%s%3N").trim());
      double contendedCpu = (agentCpuSeconds() - cpu0) / ((execEnd - execStart) / 1e3);
      // fio's own times (guest clock): an exec takes seconds to start on the emulated node.
      long readerEnd = fioJson(loop).path("timestamp_ms").asLong();
      long readerStart =
          readerEnd - 2000 - fioJson(loop).path("jobs").path(0).path("job_runtime").asLong();
      node.sh("sleep 11");
      String writerMax = node.sh("cat " + writerDir + "/io.max").trim();
      stopFio("lwriter");
      awaitExec("lwriter");
      node.sh("kill $(cat /tmp/wlog.pid)");
      double cpu1 = agentCpuSeconds();
      node.sh("sleep 10");
      double idleCpu = (agentCpuSeconds() - cpu1) / 10;
      // (guest ms, bytes written, wbps: -1 for max)
      List<long[]> samples =
          node.sh("cat /tmp/wlog")
              .lines()
              .map(l -> l.trim().split(" "))
              .filter(f -> f.length == 3)
              .map(
                  f ->
                      new long[] {
                        Long.parseLong(f[0]),
                        Long.parseLong(f[1]),
                        f[2].equals("max") ? -1 : Long.parseLong(f[2])
                      })
              .toList();
      List<String> shownSamples = samples.stream().map(java.util.Arrays::toString).toList();
      long firstThrottle =
          samples.stream()
              .filter(x -> x[0] >= readerStart && x[2] >= 0)
              .mapToLong(x -> x[0] - readerStart)
              .findFirst()
              .orElse(-1);
      long lastChange = -1;
      int changes = 0;
      for (int i = 1; i < samples.size(); i++) {
        long[] x = samples.get(i);
        if (x[0] >= readerStart && x[0] <= readerEnd && x[2] != samples.get(i - 1)[2]) {
          lastChange = x[0] - readerStart;
          changes++;
        }
      }
      double before = rate(samples, readerStart - 5000, readerStart);
      double during = rate(samples, readerStart + 2000, readerEnd);
      double after = rate(samples, readerEnd, readerEnd + 10_000);
      // The enforced throttle's Event (the dry run's says "dry run"): without one the loop never
      // acted, and no release can follow.
      List<Event> throttled =
          eventsWithReason("lwriter", "LatencyThrottled").stream()
              .filter(e -> !e.getMessage().startsWith("dry run"))
              .toList();
      double noisyMeanUs = fio(noisy, "read", "clat_ns", "mean") / 1000;
      double dryMeanUs = fio(dry, "read", "clat_ns", "mean") / 1000;
      double loopMeanUs = fio(loop, "read", "clat_ns", "mean") / 1000;
      // On failure: the reader's means say whether this run's contention reached the target at all
      // (a loaded emulated node can slow the solo run as much as the contended ones), and the
      // writer's Events (dry run included) whether a throttle was announced at all.
      assertThat(throttled)
          .as(
              () ->
                  String.format(
                          "the loop throttled the writer while the reader read (target %d us;"
                              + " reader mean alone %.0f us, next to the writer %.0f us, dry run"
                              + " %.0f us, with the loop %.0f us; the writer's Events %s",
                          targetUs,
                          soloMeanUs,
                          noisyMeanUs,
                          dryMeanUs,
                          loopMeanUs,
                          events("lwriter").stream()
                              .map(e -> e.getReason() + " x" + e.getCount() + ": " + e.getMessage())
                              .toList())
                      + "; writer samples "
                      + shownSamples
                      + ")"
                      + diagnosis())
          .isNotEmpty();
      eventually(
          () -> eventsWithReason("lwriter", "LatencyReleased"),
          released -> !released.isEmpty(),
          Duration.ofMinutes(2),
          "a LatencyReleased Event on the writer once the reader stopped");
      double soloIops = fio(solo, "read", "iops");
      double noisyIops = fio(noisy, "read", "iops");
      double dryIops = fio(dry, "read", "iops");
      double loopIops = fio(loop, "read", "iops");
      say(
          "latency loop, real pods (target %d us = %.1fx the solo mean): reader %.0f IOPS alone (mean %.0f"
              + " us, p99 %.2f ms); next to the writer, no loop policy: %.0f (%.0f%%, mean %.0f us,"
              + " p99 %.2f ms); the loop in dry run (the control): %.0f (%.0f%%, mean %.0f us, p99"
              + " %.2f ms); with the agent's loop: %.0f (%.0f%%, mean %.0f us, p99 %.2f ms)",
          targetUs,
          LOOP_TARGET_FACTOR,
          soloIops,
          soloMeanUs,
          fio(solo, "read", "clat_ns", "percentile", "99.000000") / 1e6,
          noisyIops,
          100 * noisyIops / soloIops,
          noisyMeanUs,
          fio(noisy, "read", "clat_ns", "percentile", "99.000000") / 1e6,
          dryIops,
          100 * dryIops / soloIops,
          dryMeanUs,
          fio(dry, "read", "clat_ns", "percentile", "99.000000") / 1e6,
          loopIops,
          100 * loopIops / soloIops,
          loopMeanUs,
          fio(loop, "read", "clat_ns", "percentile", "99.000000") / 1e6);
      say(
          "latency loop, the writer: alone %.0f MiB/s; in the loop run before the reader %.0f, while"
              + " it read %.1f, within 10 s after it stopped %.0f MiB/s (%.0f%% of alone); its"
              + " io.max 11 s after the reader stopped: '%s'; %d LatencyThrottled Event(s)",
          writerAlone / 1048576,
          before / 1048576,
          during / 1048576,
          after / 1048576,
          100 * after / writerAlone,
          writerMax,
          throttled.size());
      say(
          "latency loop, settling (the writer's io.max, %d samples): first cap %.1f s after the"
              + " reader started, last change of the cap %.1f s after (%d changes while it read,"
              + " over %.1f s); agent container CPU %.1f%% of a core while the reader read, %.1f%%"
              + " in the 10 s after the writer stopped",
          samples.size(),
          firstThrottle / 1e3,
          lastChange / 1e3,
          changes,
          (readerEnd - readerStart) / 1e3,
          100 * contendedCpu,
          100 * idleCpu);
      assertThat(firstThrottle)
          .as("a cap on the writer while the reader read, in the samples: %s", shownSamples)
          .isBetween(0L, readerEnd - readerStart);
      assertThat(loopIops)
          .as("the reader with the loop against the same reader with the loop in dry run")
          .isGreaterThan(dryIops);
      assertThat(after)
          .as("the writer once the reader stopped against the writer while the reader read")
          .isGreaterThan(1.5 * during);
    } finally {
      client.resources(IoPolicy.class).withName("real-node-loop").delete();
      client.pods().inNamespace(NS).withName("lreader").delete();
      client.pods().inNamespace(NS).withName("lwriter").delete();
    }
  }

  /** Waits until the pod's bytes written to the disk grow: its writer runs. */
  void awaitWriting(String pod) throws Exception {
    String bytes =
        "grep '^"
            + DISK
            + " ' "
            + cgroupDir(pod, "Burstable")
            + "/io.stat | tr ' ' '\\n' | sed -n 's/^wbytes=//p'";
    eventuallyInGuest(
        "a=$(" + bytes + "); sleep 1; b=$(" + bytes + "); test \"${b:-0}\" -gt \"${a:-0}\"",
        Duration.ofMinutes(2),
        pod + " writes to " + DISK);
  }

  /** Stops the fio processes in the pod's cgroup with SIGINT; fio then writes its report. */
  void stopFio(String pod) throws Exception {
    node.sh(
        "for p in $(cat "
            + cgroupDir(pod, "Burstable")
            + "/*/cgroup.procs); do test \"$(cat /proc/$p/comm)\" = fio && kill -INT $p; done;"
            + " true");
  }

  /**
   * Starts reading {@code read} (a guest command) every {@code seconds} in the guest by a loop of
   * its own, whatever the guest's answers to the test cost; the samples go to /tmp/{@code name}.
   */
  void startReading(String name, String read, String seconds) throws Exception {
    node.sh(
        "rm -f /tmp/"
            + name
            + "; setsid sh -c 'echo $$ > /tmp/"
            + name
            + ".pid; while :; do { "
            + read
            + "; echo ---; } >> /tmp/"
            + name
            + "; sleep "
            + seconds
            + "; done' >/dev/null 2>&1 < /dev/null & sleep "
            + seconds);
  }

  /** Stops the loop {@link #startReading} started and returns its samples, oldest first. */
  List<String> stopReading(String name) throws Exception {
    node.sh("kill $(cat /tmp/" + name + ".pid)");
    return List.of(node.sh("cat /tmp/" + name).split("---\n")).stream()
        .filter(sample -> !sample.isBlank())
        .toList();
  }

  /** The latency loop's policy for the pods labelled ioqos-loop=yes, in {@code mode}. */
  void loopPolicy(long targetUs, String mode) {
    client
        .resource(
            Policies.load(
                client,
                String.join(
                    "\n",
                    "apiVersion: ioqos.dev/v1alpha1",
                    "kind: IoPolicy",
                    "metadata: {name: real-node-loop}",
                    "spec:",
                    "  mode: " + mode,
                    "  priority: 10",
                    "  namespaceSelector: {matchLabels: {ioqos-e2e: real-node}}",
                    "  podSelector: {matchLabels: {ioqos-loop: \"yes\"}}",
                    "  tiers:",
                    "    - {name: protected, weight: 100, latencyTarget: " + targetUs + "us}",
                    "    - {name: batch, weight: 100}",
                    "")))
        .serverSideApply();
  }

  /** Bytes per second between two guest times (ms) from (time, bytes) samples. */
  static double rate(List<long[]> samples, long from, long to) {
    // The samples at the window's ends or just outside it (a loaded guest samples late).
    long[] first =
        samples.stream().filter(s -> s[0] <= from).reduce((a, b) -> b).orElse(samples.get(0));
    long[] last =
        samples.stream()
            .filter(s -> s[0] >= to)
            .findFirst()
            .orElse(samples.get(samples.size() - 1));
    if (last[0] <= first[0]) {
      throw new AssertionError(
          "no two samples between "
              + from
              + " and "
              + to
              + ": "
              + samples.stream().map(java.util.Arrays::toString).toList());
    }
    return (last[1] - first[1]) * 1000.0 / (last[0] - first[0]);
  }

  List<Event> eventsWithReason(String pod, String reason) {
    return events(pod).stream().filter(e -> reason.equals(e.getReason())).toList();
  }

  /** The agent container's memory.current, read from its cgroup on the node, in MiB. */
  double agentMemoryMiB() throws Exception {
    return Long.parseLong(agentCgroupFile("memory.current").trim()) / 1048576.0;
  }

  /** The agent container's CPU time so far (its cgroup's cpu.stat usage_usec), in seconds. */
  double agentCpuSeconds() throws Exception {
    return agentCgroupFile("cpu.stat")
            .lines()
            .filter(l -> l.startsWith("usage_usec "))
            .mapToLong(l -> Long.parseLong(l.substring("usage_usec ".length()).trim()))
            .findFirst()
            .orElseThrow()
        / 1e6;
  }

  /** A file of the agent container's cgroup on the node. */
  String agentCgroupFile(String name) throws Exception {
    return node.sh(
        "p=$(pgrep -f 'ioqos.jar run' | head -1); cat /sys/fs/cgroup$(sed -n 's/^0:://p'"
            + " /proc/$p/cgroup)/"
            + name);
  }

  /**
   * Runs {@code command} with sh in the pod's container, as {@code kubectl exec} would (through
   * containerd: the API server cannot reach this node's kubelet), its output to /data/exec.out;
   * returns the output, or "" at once when {@code background}.
   */
  String exec(String pod, String command, boolean background) throws Exception {
    String id =
        client
            .pods()
            .inNamespace(NS)
            .withName(pod)
            .get()
            .getStatus()
            .getContainerStatuses()
            .get(0)
            .getContainerID();
    String container = id.substring(id.indexOf("://") + 3);
    String out = dataDir(pod) + "/exec.out";
    String run =
        "rm -f "
            + out
            + " "
            + out
            + ".done; ctr -n k8s.io task exec --exec-id e"
            + System.nanoTime()
            + " "
            + container
            + " sh -c '"
            + command
            + " > /data/exec.out 2>&1; touch /data/exec.out.done'";
    if (background) {
      node.sh("(" + run + ") > /dev/null 2>&1 &");
      return "";
    }
    node.sh(run, Duration.ofMinutes(3));
    return node.sh("cat " + out);
  }

  String awaitExec(String pod) throws Exception {
    eventuallyInGuest(
        "test -e " + dataDir(pod) + "/exec.out.done",
        Duration.ofMinutes(2),
        "the exec in " + pod + " ends");
    return node.sh("cat " + dataDir(pod) + "/exec.out");
  }

  String dataDir(String pod) {
    return "/var/lib/kubelet/pods/" + uid(pod) + "/volumes/kubernetes.io~empty-dir/data";
  }

  /** fio's JSON output (what follows anything printed before it). */
  static com.fasterxml.jackson.databind.JsonNode fioJson(String json) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(json.substring(json.indexOf('{')));
  }

  /**
   * A figure of fio's first job in its JSON output, e.g. ("read", "iops") or ("read", "clat_ns",
   * "mean").
   */
  static double fio(String json, String direction, String... path) throws Exception {
    var node = fioJson(json).path("jobs").path(0).path(direction);
    for (String field : path) {
      node = node.path(field);
    }
    if (!node.isNumber()) {
      throw new AssertionError(
          "fio printed no " + direction + "." + String.join(".", path) + ": " + json);
    }
    return node.asDouble();
  }

  // -------------------------------------------------------------------------------------------
  // Revert, forget, restart

  @Test
  @Order(8)
  void aStaticPodIsCappedInTheCgroupKubeletNamesAfterItsConfigHash() throws Exception {
    // Static pods (kubeadm's control plane) run under their manifest's hash; the mirror pod in
    // the API has a UID of its own, which names no cgroup.
    Pod manifest = pod("static-writer", "low", "Burstable", "busybox", "sleep", "36000");
    String yaml =
        java.util.Base64.getEncoder()
            .encodeToString(
                io.fabric8.kubernetes.client.utils.Serialization.asYaml(manifest)
                    .getBytes(StandardCharsets.UTF_8));
    node.sh("echo " + yaml + " | base64 -d > /etc/kubernetes/manifests/static-writer.yaml");
    String mirrorName = "static-writer-" + node.name();
    try {
      Pod mirror =
          eventually(
              () -> client.pods().inNamespace(NS).withName(mirrorName).get(),
              p -> p != null && "Running".equals(p.getStatus().getPhase()),
              Duration.ofMinutes(4),
              "the static pod's mirror pod is Running");
      String hash = mirror.getMetadata().getAnnotations().get("kubernetes.io/config.mirror");
      assertThat(hash).matches("[0-9a-f]{32}").isNotEqualTo(mirror.getMetadata().getUid());
      String dir = "/sys/fs/cgroup" + podCgroup("Burstable", hash);
      String max = DISK + " rbps=max wbps=" + CAP_BPS + " riops=max wiops=200";
      eventuallyInGuest(
          "test \"$(cat " + dir + "/io.max)\" = '" + max + "'",
          Duration.ofMinutes(2),
          "the static pod's cgroup " + dir + " holds io.max '" + max + "'");
      eventually(
          () -> events(mirrorName),
          list -> list.stream().anyMatch(e -> "Applied".equals(e.getReason())),
          Duration.ofMinutes(1),
          "an Applied Event on the mirror pod");
    } finally {
      node.sh("rm -f /etc/kubernetes/manifests/static-writer.yaml");
      eventually(
          () -> client.pods().inNamespace(NS).withName(mirrorName).get(),
          p -> p == null,
          Duration.ofMinutes(2),
          "the mirror pod is gone with its manifest");
    }
  }

  /**
   * The control plane's kube-apiserver stopped for 20 s and started again (etcd keeps the data):
   * the agent's watches break, kubelet keeps the pods running, and nothing the agent applied is
   * reverted meanwhile (checked every second in the kernel's files); once the API server is back
   * the agent follows a tier change made after it.
   */
  @Test
  @Order(9)
  void anApiServerRestartRevertsNothingAndTheAgentFollowsAfterIt() throws Exception {
    expectTier("backup", "Burstable", LOW, true);
    expectTier("db", "Guaranteed", HIGH, false);
    String backup = cgroupDir("backup", "Burstable");
    String db = cgroupDir("db", "Guaranteed");
    String read = "cat " + backup + "/io.max " + backup + "/io.bfq.weight " + db + "/io.bfq.weight";
    String held = node.sh(read);
    // Read every second in the guest by a loop of its own, whatever the guest's answers to the
    // test cost, from before the API server stops until it answers again.
    startReading("held", read, "1");
    Duration outage = node.restartApiServer(Duration.ofSeconds(20));
    List<String> samples = stopReading("held");
    say(
        "kube-apiserver stopped and restarted: unreachable %.1f s, the pods' files read %d times"
            + " meanwhile, unchanged",
        outage.toMillis() / 1e3, samples.size());
    assertThat(samples)
        .as("the kernel's files, read every second while the API server was unreachable")
        .hasSizeGreaterThanOrEqualTo((int) (outage.toSeconds() / 2))
        .allSatisfy(sample -> assertThat(sample.strip()).isEqualTo(held.strip()));
    long t0 = System.nanoTime();
    node.kubectl("annotate", "pod", "-n", NS, "backup", "ioqos.dev/tier=high", "--overwrite");
    expectTier("backup", "Burstable", HIGH, false);
    say(
        "a tier change after the restart applied %.1f s after the annotation",
        (System.nanoTime() - t0) / 1e9);
    node.kubectl("annotate", "pod", "-n", NS, "backup", "ioqos.dev/tier=low", "--overwrite");
    expectTier("backup", "Burstable", LOW, true);
    assertThat(node.sh(read)).isEqualTo(held);
  }

  @Test
  @Order(20)
  void aRestartedAgentRewritesNothingThatHolds() throws Exception {
    Pod before = awaitAgentReady(Duration.ofMinutes(1));
    long applied = events("db").stream().filter(e -> "Applied".equals(e.getReason())).count();
    node.kubectl("delete", "pod", "-n", AGENT_NS, before.getMetadata().getName(), "--wait=true");
    long t0 = System.nanoTime();
    Pod after =
        eventually(
            () ->
                agentPod()
                    .filter(
                        p ->
                            !p.getMetadata().getUid().equals(before.getMetadata().getUid())
                                && ready(p))
                    .orElse(null),
            p -> p != null,
            Duration.ofMinutes(6),
            "the DaemonSet's new agent pod becomes Ready");
    say("restarted agent pod Ready after %.0f s", (System.nanoTime() - t0) / 1e9);
    expectTier("db", "Guaranteed", HIGH, false);
    expectTier("backup", "Burstable", LOW, true);
    Thread.sleep(5000);
    assertThat(events("db").stream().filter(e -> "Applied".equals(e.getReason())).count())
        .as("no new Applied Event for a pod whose values held across the restart")
        .isEqualTo(applied);
    assertThat(after.getMetadata().getName()).isNotEqualTo(before.getMetadata().getName());
  }

  @Test
  @Order(21)
  void anAgentKilledAtRandomMomentsOfTierChangesLeavesEveryPodAtItsTier() throws Exception {
    // The fault suite's kill -9 (FaultIT) on the real node: a tier change, a random wait, SIGKILL
    // of the agent's JVM; kubelet restarts the container. After each restart every pod's kernel
    // files hold its tier (nothing lost), and db, whose tier never changes, is never reverted on
    // the way (read every half second from the kill until after the restart: nothing stale).
    long seed = Long.getLong("ioqos.fault.seed", System.nanoTime());
    java.util.Random random = new java.util.Random(seed);
    // One round by default: under emulation a restarted agent takes 3 to 6 minutes to be Ready
    // (JVM start on the emulated CPU plus kubelet's crash-loop back-off). -Dioqos.realnode.kills=N
    int rounds = Integer.getInteger("ioqos.realnode.kills", 1);
    String db = cgroupDir("db", "Guaranteed");
    String readDb = "cat " + db + "/io.max " + db + "/io.bfq.weight";
    expectTier("db", "Guaranteed", HIGH, false);
    String dbHeld = node.sh(readDb);
    List<String> figures = new ArrayList<>();
    int checked = 0;
    for (int round = 1; round <= rounds; round++) {
      boolean backupCapped = round % 2 == 0;
      boolean webCapped = round % 2 == 1;
      node.kubectl(
          "annotate",
          "pod",
          "-n",
          NS,
          "backup",
          "ioqos.dev/tier=" + (backupCapped ? "low" : "high"),
          "--overwrite");
      if (webCapped) {
        node.kubectl("annotate", "pod", "-n", NS, "web", "ioqos.dev/tier=low", "--overwrite");
      } else {
        node.kubectl("annotate", "pod", "-n", NS, "web", "ioqos.dev/tier-");
      }
      long delay = random.nextInt(3000);
      Thread.sleep(delay);
      Pod before = awaitAgentReady(Duration.ofMinutes(1));
      int restarts = before.getStatus().getContainerStatuses().get(0).getRestartCount();
      startReading("dbheld", readDb, "0.5");
      node.sh(AGENT_PID + " kill -9 $pid");
      long t0 = System.nanoTime();
      eventually(
          () ->
              agentPod()
                  .filter(
                      p ->
                          ready(p)
                              && p.getStatus().getContainerStatuses().get(0).getRestartCount()
                                  > restarts)
                  .orElse(null),
          p -> p != null,
          Duration.ofMinutes(6),
          "kubelet restarts the killed agent's container and it becomes Ready");
      double ready = (System.nanoTime() - t0) / 1e9;
      expectTier("db", "Guaranteed", HIGH, false);
      expectTier("backup", "Burstable", backupCapped ? LOW : HIGH, backupCapped);
      expectTier("web", "BestEffort", webCapped ? LOW : STANDARD, webCapped);
      checked += 3;
      node.sh("sleep 3");
      List<String> samples = stopReading("dbheld");
      assertThat(samples)
          .as("db's files, read every 0.5 s from the kill until after the restart")
          .isNotEmpty()
          .allSatisfy(sample -> assertThat(sample.strip()).isEqualTo(dbHeld.strip()));
      figures.add(
          String.format(
              "round %d: killed %d ms after the tier change, Ready again %.0f s later, db read %d"
                  + " times meanwhile, unchanged",
              round, delay, ready, samples.size()));
    }
    node.kubectl("annotate", "pod", "-n", NS, "backup", "ioqos.dev/tier=low", "--overwrite");
    node.kubectl("annotate", "pod", "-n", NS, "web", "ioqos.dev/tier-");
    expectTier("backup", "Burstable", LOW, true);
    expectTier("web", "BestEffort", STANDARD, false);
    say(
        "kill -9 of the agent, %d rounds (seed %d): %d pod checks after the restarts, 0 stale, 0"
            + " lost;%n%s",
        rounds, seed, checked, String.join("\n", figures));
  }

  @Test
  @Order(30)
  void aDeletedPolicyIsRevertedInTheKernel() throws Exception {
    client.resources(IoPolicy.class).withName("real-node").delete();
    for (String[] pod :
        new String[][] {{"db", "Guaranteed"}, {"backup", "Burstable"}, {"web", "BestEffort"}}) {
      String dir = cgroupDir(pod[0], pod[1]);
      eventuallyInGuest(
          "test -z \"$(cat "
              + dir
              + "/io.max)\" && grep -qx 'default 100' "
              + dir
              + "/io.bfq.weight",
          Duration.ofMinutes(2),
          pod[0] + "'s cgroup is back at the kernel defaults");
    }
    eventually(
        () -> events("backup"),
        events -> events.stream().anyMatch(e -> "Reverted".equals(e.getReason())),
        Duration.ofMinutes(1),
        "a Reverted Event on backup");
  }

  @Test
  @Order(31)
  void aDeletedPodLeavesTheLedger() throws Exception {
    client.resource(policy()).serverSideApply();
    expectTier("backup", "Burstable", LOW, true);
    String uid = uid("backup");
    // The ledger (the agent's hostPath, /var/lib/ioqos on the node): a snapshot and a journal of
    // changes, where a forgotten pod's last line is {"uid":...,"entry":null}.
    String last =
        "j=$(grep -h '\"uid\":\""
            + uid
            + "\",\"entry\"' /var/lib/ioqos/ledger.journal | tail -1); ";
    String held =
        last
            + "if [ -n \"$j\" ]; then ! echo \"$j\" | grep -q '\"entry\":null'; else grep -q "
            + uid
            + " /var/lib/ioqos/ledger.json; fi";
    eventuallyInGuest(held, Duration.ofMinutes(1), "the ledger holds backup");
    // The agent keeps a managed pod's io.stat and io.pressure open between scrapes (HeldFile) and
    // closes them when it forgets the pod: its descriptors, as the node sees them.
    String ip = awaitAgentReady(Duration.ofMinutes(1)).getStatus().getPodIP();
    String descriptors =
        AGENT_PID
            + " ls -l /proc/$pid/fd | grep -e '"
            + uid
            + "' -e '"
            + uid.replace('-', '_')
            + "' | grep -c -e 'io.stat$' -e 'io.pressure$'";
    node.sh(scrape(ip) + " > /dev/null");
    assertThat(node.sh(descriptors + " || true").trim())
        .as("the agent's open descriptors in backup's cgroup after a scrape")
        .isEqualTo("2");
    node.kubectl("delete", "pod", "-n", NS, "backup", "--wait=true");
    eventuallyInGuest(
        "! { " + held + "; }", Duration.ofMinutes(2), "the ledger forgets the deleted pod");
    ip = awaitAgentReady(Duration.ofMinutes(1)).getStatus().getPodIP();
    eventuallyInGuest(
        "m=$(" + scrape(ip) + ") && ! echo \"$m\" | grep -q 'pod=\"backup\"'",
        Duration.ofMinutes(1),
        "the deleted pod's series leave the agent's metrics");
    assertThat(node.sh(descriptors + " || true").trim())
        .as("the agent's open descriptors in the deleted pod's cgroup")
        .isEqualTo("0");
  }

  /**
   * Per-volume targeting (issue 21) with volumes kubelet mounted: a local PersistentVolume on vda
   * (containerd's disk) and an emptyDir on vdb (kubelet's root dir). The policy targets the pod's
   * volume {@code data} only: the cap lands on vda alone, fio in the pod writes at the cap there
   * and uncapped on the emptyDir.
   */
  @Test
  @Order(8)
  void aPodVolumePolicyCapsTheVolumesDiskOnly() throws Exception {
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(NS)
                .addToLabels("ioqos-e2e", "real-node")
                .endMetadata()
                .build())
        .serverSideApply();
    eventuallyInGuest(
        "test -e /run/ioqos-images-imported",
        Duration.ofMinutes(5),
        "the workload images are in containerd");
    String pvPath = "/var/lib/containerd/ioqos-local-pv";
    node.sh("mkdir -p " + pvPath);
    var serialization = client.getKubernetesSerialization();
    client
        .resource(
            serialization.unmarshal(
                String.join(
                    "\n",
                    "apiVersion: ioqos.dev/v1alpha1",
                    "kind: IoPolicy",
                    "metadata: {name: real-node-volumes}",
                    "spec:",
                    "  priority: 10",
                    "  namespaceSelector: {matchLabels: {ioqos-e2e: real-node}}",
                    "  podSelector: {matchLabels: {ioqos-e2e-volumes: 'true'}}",
                    "  devices: [{podVolumes: {names: [data]}}]",
                    "  defaultTier: capped",
                    "  tiers:",
                    "    - {name: capped, limits: {writeBytesPerSecond: 10Mi}}",
                    ""),
                IoPolicy.class))
        .serverSideApply();
    var pv =
        client
            .resource(
                serialization.unmarshal(
                    String.join(
                        "\n",
                        "apiVersion: v1",
                        "kind: PersistentVolume",
                        "metadata: {name: ioqos-local-pv}",
                        "spec:",
                        "  capacity: {storage: 1Gi}",
                        "  accessModes: [ReadWriteOnce]",
                        "  persistentVolumeReclaimPolicy: Retain",
                        "  storageClassName: ioqos-local",
                        "  local: {path: " + pvPath + "}",
                        "  nodeAffinity:",
                        "    required:",
                        "      nodeSelectorTerms:",
                        "        - matchExpressions:",
                        "            - {key: kubernetes.io/hostname, operator: In, values: ["
                            + node.name()
                            + "]}",
                        ""),
                    io.fabric8.kubernetes.api.model.PersistentVolume.class))
            .create();
    client
        .resource(
            serialization.unmarshal(
                String.join(
                    "\n",
                    "apiVersion: v1",
                    "kind: PersistentVolumeClaim",
                    "metadata: {name: data-vol, namespace: " + NS + "}",
                    "spec:",
                    "  accessModes: [ReadWriteOnce]",
                    "  storageClassName: ioqos-local",
                    "  volumeName: " + pv.getMetadata().getName(),
                    "  resources: {requests: {storage: 1Gi}}",
                    ""),
                io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class))
        .create();
    eventually(
        () -> client.persistentVolumeClaims().inNamespace(NS).withName("data-vol").get(),
        c -> c.getStatus() != null && "Bound".equals(c.getStatus().getPhase()),
        Duration.ofMinutes(2),
        "kube-controller-manager binds the claim to the local PV");
    // Wait for a go file, so that both runs start with the cap in place.
    String write =
        "fio --name=w --filename=%1$s/f --rw=write --bs=1M --size=128M --direct=1"
            + " --ioengine=libaio --iodepth=4 --time_based --runtime=15 --output-format=json"
            + " --output=%1$s/fio.json && rm -f %1$s/f";
    String script =
        "while [ ! -e /data/go ]; do sleep 1; done; "
            + String.format(write, "/data")
            + " && "
            + String.format(write, "/scratch")
            + " && touch /scratch/done; sleep 36000";
    Pod pod = pod("vol", null, "Burstable", "fio", "sh", "-c", script);
    pod.getMetadata().setLabels(Map.of("ioqos-e2e-volumes", "true"));
    var container = pod.getSpec().getContainers().get(0);
    container.getVolumeMounts().get(0).setName("scratch");
    container.getVolumeMounts().get(0).setMountPath("/scratch");
    container
        .getVolumeMounts()
        .add(
            new io.fabric8.kubernetes.api.model.VolumeMountBuilder()
                .withName("data")
                .withMountPath("/data")
                .build());
    pod.getSpec().getVolumes().get(0).setName("scratch");
    pod.getSpec()
        .getVolumes()
        .add(
            new io.fabric8.kubernetes.api.model.VolumeBuilder()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName("data-vol")
                .endPersistentVolumeClaim()
                .build());
    create(pod);
    awaitRunning("vol");
    String uid = uid("vol");
    String dir = cgroupDir("vol", "Burstable");
    String vdaCap = "254:0 rbps=max wbps=" + CAP_BPS + " riops=max wiops=max";
    eventuallyInGuest(
        "test \"$(cat " + dir + "/io.max)\" = '" + vdaCap + "'",
        Duration.ofMinutes(2),
        "the pod's io.max holds the cap on vda (the local PV's disk) and nothing else");
    String mounts = node.sh("grep " + uid + " /proc/1/mountinfo");
    say("kubelet's mounts of pod vol: %s", mounts.strip().replace("\n", " | "));
    // The node's state names the pod's own disk, from the volume kubelet mounted.
    var podDisks =
        eventually(
            () ->
                java.util.Optional.ofNullable(
                        client.resources(IoNodeState.class).withName(node.name()).get())
                    .map(IoNodeState::getStatus)
                    .map(status -> status.getPodDisks())
                    .flatMap(
                        list ->
                            list.stream()
                                .filter(
                                    d -> d.getName().equals("vol") && d.getNamespace().equals(NS))
                                .findFirst())
                    .orElse(null),
            java.util.Objects::nonNull,
            Duration.ofMinutes(1),
            "pod vol in IoNodeState " + node.name() + " status.podDisks");
    say(
        "IoNodeState podDisks of vol: disks %s, volumes %s",
        podDisks.getDisks(),
        podDisks.getVolumes().stream()
            .map(v -> v.getName() + " (" + v.getKind() + ") -> " + v.getDisks())
            .toList());
    assertThat(podDisks.getDisks()).containsExactly("254:0 (vda)");
    assertThat(podDisks.getVolumes())
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.getName()).isEqualTo("data");
              assertThat(v.getDisks()).containsExactly("254:0 (vda)");
            });
    node.sh("touch " + pvPath + "/go");
    String scratch = "/var/lib/kubelet/pods/" + uid + "/volumes/kubernetes.io~empty-dir/scratch";
    eventuallyInGuest(
        "test -e " + scratch + "/done", Duration.ofMinutes(3), "fio in pod vol finishes");
    double onVolume = fio(node.sh("cat " + pvPath + "/fio.json"), "write", "bw_bytes");
    double onScratch = fio(node.sh("cat " + scratch + "/fio.json"), "write", "bw_bytes");
    say(
        "podVolumes [data]: io.max '%s'; fio (direct) %.2f MiB/s on the local PV (vda) against a"
            + " cap of %.0f MiB/s, %.2f MiB/s on the emptyDir (vdb)",
        vdaCap, onVolume / 1048576.0, CAP_BPS / 1048576.0, onScratch / 1048576.0);
    assertThat(onVolume).isBetween(CAP_BPS * 0.95, CAP_BPS * 1.05);
    assertThat(onScratch).isGreaterThan(CAP_BPS * 3.0);
    client.pods().inNamespace(NS).withName("vol").delete();
    client.resources(IoPolicy.class).withName("real-node-volumes").delete();
  }

  // -------------------------------------------------------------------------------------------

  IoPolicy policy() throws Exception {
    return client
        .getKubernetesSerialization()
        .unmarshal(
            String.join(
                "\n",
                "apiVersion: ioqos.dev/v1alpha1",
                "kind: IoPolicy",
                "metadata: {name: real-node}",
                "spec:",
                "  namespaceSelector: {matchLabels: {ioqos-e2e: real-node}}",
                "  defaultTier: standard",
                "  tiers:",
                "    - {name: high, weight: " + HIGH + "}",
                "    - {name: standard, weight: " + STANDARD + "}",
                "    - name: low",
                "      weight: " + LOW,
                "      limits: {writeBytesPerSecond: 10Mi, writeIOPS: 200}",
                ""),
            IoPolicy.class);
  }

  /** A pod from the node's local images (never pulled), in the QoS class asked for. */
  static Pod pod(String name, String tier, String qos, String image, String... command) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NS)
            .endMetadata()
            .withNewSpec()
            .withTerminationGracePeriodSeconds(1L)
            .addNewContainer()
            .withName("main")
            .withImage("ioqos.test/" + image + ":1")
            .withImagePullPolicy("Never")
            .withCommand(command)
            .addNewVolumeMount()
            .withName("data")
            .withMountPath("/data")
            .endVolumeMount()
            .endContainer()
            .addNewVolume()
            .withName("data")
            .withNewEmptyDir()
            .endEmptyDir()
            .endVolume()
            .endSpec();
    if (tier != null) {
      pod.editMetadata().addToAnnotations("ioqos.dev/tier", tier).endMetadata();
    }
    Map<String, Quantity> resources =
        Map.of("cpu", new Quantity("50m"), "memory", new Quantity("64Mi"));
    switch (qos) {
      case "Guaranteed" ->
          pod.editSpec()
              .editFirstContainer()
              .withNewResources()
              .withRequests(resources)
              .withLimits(resources)
              .endResources()
              .endContainer()
              .endSpec();
      case "Burstable" ->
          pod.editSpec()
              .editFirstContainer()
              .withNewResources()
              .withRequests(Map.of("cpu", new Quantity("10m")))
              .endResources()
              .endContainer()
              .endSpec();
      case "BestEffort" -> {}
      default -> throw new IllegalArgumentException(qos);
    }
    return pod.build();
  }

  Pod create(Pod pod) {
    return client.resource(pod).create();
  }

  private String scraperToken;

  /**
   * A guest command that scrapes the agent as Prometheus would: HTTPS (the agent's certificate is
   * self-signed) with the token of a ServiceAccount bound to the install's ClusterRole
   * ioqos-metrics-reader.
   */
  String scrape(String ip) {
    if (scraperToken == null) {
      MetricsScraper.account(client, NS, "scraper");
      MetricsScraper.allow(client, "real-node-scraper", NS, "scraper");
      scraperToken = MetricsScraper.token(client, NS, "scraper", 3600);
    }
    return "curl -sfk -H 'Authorization: Bearer "
        + scraperToken
        + "' https://"
        + ip
        + ":8080/metrics";
  }

  String uid(String pod) {
    return client.pods().inNamespace(NS).withName(pod).get().getMetadata().getUid();
  }

  /**
   * Guest shell that sets {@code pid} to the agent's process: the one whose mount table has the
   * host's cgroup tree at /host/sys/fs/cgroup.
   */
  static final String AGENT_PID =
      "pid=; for m in /proc/[0-9]*/mountinfo; do grep -qs ' /host/sys/fs/cgroup ' $m"
          + " && { pid=${m#/proc/}; pid=${pid%/mountinfo}; break; }; done;"
          + " test -n \"$pid\" || { echo 'no agent process'; exit 1; };";

  String cgroupDir(String pod, String qos) {
    return "/sys/fs/cgroup" + podCgroup(qos, uid(pod));
  }

  void expectTier(String pod, String qos, int weight, boolean capped) throws Exception {
    String dir = cgroupDir(pod, qos);
    String max = capped ? DISK + " rbps=max wbps=" + CAP_BPS + " riops=max wiops=200" : "";
    String bfq = "default " + IoWeight.toBfqWeight(weight);
    eventuallyInGuest(
        "test \"$(cat "
            + dir
            + "/io.max)\" = '"
            + max
            + "' && grep -qx '"
            + bfq
            + "' "
            + dir
            + "/io.bfq.weight",
        Duration.ofMinutes(2),
        pod
            + " ("
            + qos
            + ") holds io.max '"
            + max
            + "' and io.bfq.weight '"
            + bfq
            + "' in "
            + dir);
  }

  void eventuallyInGuest(String check, Duration within, String what) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    RealNode.Result last;
    do {
      last = node.run(check, Duration.ofSeconds(60));
      if (last.status() == 0) {
        return;
      }
      Thread.sleep(500);
    } while (System.nanoTime() < deadline);
    fail(
        what
            + " within "
            + within.toSeconds()
            + " s; last check `"
            + check
            + "` said: "
            + last.output());
  }

  void awaitRunning(String name) {
    eventually(
        () -> client.pods().inNamespace(NS).withName(name).get(),
        p -> p != null && "Running".equals(p.getStatus().getPhase()),
        Duration.ofMinutes(4),
        "pod " + name + " is Running");
  }

  Pod awaitAgentReady(Duration within) {
    return eventually(
        () -> agentPod().filter(RealNodeIT::ready).orElse(null),
        p -> p != null,
        within,
        "the agent DaemonSet's pod on " + node.name() + " becomes Ready");
  }

  java.util.Optional<Pod> agentPod() {
    return pods(AGENT_NS, "app.kubernetes.io/component", "agent").stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .findFirst();
  }

  List<Pod> pods(String namespace, String label, String value) {
    return client.pods().inNamespace(namespace).withLabel(label, value).list().getItems();
  }

  static boolean ready(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition condition : pod.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }

  List<Event> events(String pod) {
    return client
        .v1()
        .events()
        .inNamespace(NS)
        .withField("involvedObject.name", pod)
        .list()
        .getItems();
  }

  <T> T eventually(Supplier<T> value, Predicate<T> done, Duration within, String what) {
    long deadline = System.nanoTime() + within.toNanos();
    T last = null;
    RuntimeException error = null;
    do {
      node.checkAlive();
      try {
        last = value.get();
        error = null;
        if (done.test(last)) {
          return last;
        }
      } catch (RuntimeException e) {
        error = e;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    } while (System.nanoTime() < deadline);
    throw new AssertionError(
        what
            + " within "
            + within.toSeconds()
            + " s; last seen: "
            + (error != null ? error : last)
            + diagnosis());
  }

  String diagnosis() {
    return "\nkubelet's log ends:\n"
        + node.log("kubelet", 12)
        + "\ncontainerd's log ends:\n"
        + node.log("containerd", 6)
        + "\nthe agent container's logs end (kubelet's /var/log/pods, every attempt):\n"
        + agentLogs();
  }

  /** The agent's own output: the API server reaches no kubelet here, so no `kubectl logs`. */
  String agentLogs() {
    try {
      return node.sh(
          "for f in /var/log/pods/"
              + AGENT_NS
              + "_ioqos-agent-*/agent/*.log; do"
              + " [ -e \"$f\" ] || continue; echo \"== $f\"; tail -n 25 \"$f\"; done",
          Duration.ofSeconds(30));
    } catch (Exception e) {
      return "(could not read them: " + e + ")";
    }
  }

  static String lastLine(String text) {
    String[] lines = text.strip().split("\n");
    return lines[lines.length - 1].trim();
  }
}
