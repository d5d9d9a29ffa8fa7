package dev.ioqos.e2e;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real Kubernetes node for the tests: the control plane on this host's loopback ({@code
 * e2e/node/cluster}: etcd, kube-apiserver, kube-controller-manager, kube-scheduler) and a Debian
 * 6.12 kernel under QEMU ({@code e2e/node/boot}) running containerd, runc, kube-proxy and kubelet,
 * registered with that API server. Shell scripts run in the guest through the mailbox ({@link
 * #sh}), so the tests read the kernel's own files. Every way it can fail to come up ends in one
 * {@link RealNodeException} sentence naming the cause.
 */
final class RealNode implements AutoCloseable {
  private final Path e2e;
  private final Path dir;
  private final Map<String, String> env;
  private final Process qemu;
  private final KubernetesClient client;
  private final AtomicInteger jobs = new AtomicInteger();
  final Duration bootToReady;

  /** The cause of a node that could not be brought up, in one sentence. */
  static final class RealNodeException extends RuntimeException {
    final String kernelCrash;

    RealNodeException(String message) {
      this(message, null);
    }

    RealNodeException(String message, String kernelCrash) {
      super(message);
      this.kernelCrash = kernelCrash;
    }
  }

  private RealNode(
      Path e2e,
      Path dir,
      Map<String, String> env,
      Process qemu,
      KubernetesClient client,
      Duration bootToReady) {
    this.e2e = e2e;
    this.dir = dir;
    this.env = env;
    this.qemu = qemu;
    this.client = client;
    this.bootToReady = bootToReady;
  }

  /**
   * Starts the control plane, boots the node with kubelet's cgroup driver {@code driver} and its
   * containerd holding the images in {@code images}, and returns once kubelet reports the node
   * Ready.
   */
  static RealNode start(Path e2e, Path dir, Path images, String driver, Duration readyWithin)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    script(e2e, dir.resolve("cluster.log"), Duration.ofMinutes(10), "node/cluster", "start", dir);
    Map<String, String> env = readEnv(dir.resolve("cluster.env"));
    Process qemu =
        new ProcessBuilder(
                e2e.resolve("node/boot").toString(), dir.toString(), images.toString(), driver)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("console.log").toFile())
            .start();
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(Path.of(env.get("KUBECONFIG")))))
            .build();
    long started = System.nanoTime();
    RealNode node = new RealNode(e2e, dir, env, qemu, client, Duration.ZERO);
    try {
      node.awaitReady(readyWithin);
    } catch (RuntimeException | InterruptedException e) {
      node.close();
      throw e;
    }
    return new RealNode(e2e, dir, env, qemu, client, Duration.ofNanos(System.nanoTime() - started));
  }

  KubernetesClient client() {
    return client;
  }

  /**
   * The first line of a guest kernel crash on the console, or null. Under multi-threaded TCG the
   * 6.12 guest now and then dies of an int3 Oops in its own code patching (static keys flipped as
   * cgroups and controllers come into use): a fault of the emulator, not of the node.
   */
  String kernelCrash() {
    try {
      Path console = dir.resolve("console.log");
      if (!Files.isRegularFile(console)) {
        return null;
      }
      for (String line : Files.readAllLines(console, StandardCharsets.UTF_8)) {
        if (line.contains("Oops:") || line.contains("Kernel panic")) {
          return line.trim();
        }
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** Throws a {@link RealNodeException} saying why when the guest is no longer running. */
  void checkAlive() {
    if (!qemu.isAlive()) {
      String crash = kernelCrash();
      throw crash != null
          ? new RealNodeException("the guest kernel crashed: " + crash, crash)
          : new RealNodeException("the guest ended" + guestTail());
    }
  }

  String name() {
    return env.get("NODE_NAME");
  }

  Path dir() {
    return dir;
  }

  /** Runs {@code kubectl} on the host against the node's API server; returns its output. */
  String kubectl(String... args) throws IOException, InterruptedException {
    List<String> argv =
        new ArrayList<>(List.of(env.get("KUBECTL"), "--kubeconfig", env.get("KUBECONFIG")));
    argv.addAll(List.of(args));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("kubectl " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  /**
   * Runs a bash script as root in the guest and returns what it printed; fails with its output when
   * it exits non-zero or the guest does not answer in time.
   */
  String sh(String script, Duration timeout) throws IOException, InterruptedException {
    Result result = run(script, timeout);
    if (result.status() != 0) {
      throw new IllegalStateException(
          "in the guest, exit " + result.status() + ": " + script + "\n" + result.output());
    }
    return result.output();
  }

  String sh(String script) throws IOException, InterruptedException {
    return sh(script, Duration.ofSeconds(120));
  }

  record Result(int status, String output) {}

  Result run(String script, Duration timeout) throws IOException, InterruptedException {
    Path mailbox = dir.resolve("mailbox");
    int n = jobs.incrementAndGet();
    Path tmp = mailbox.resolve(n + ".sh.tmp");
    Files.writeString(tmp, script + "\n");
    Files.move(tmp, mailbox.resolve(n + ".sh"), StandardCopyOption.ATOMIC_MOVE);
    Path rc = mailbox.resolve(n + ".rc");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!Files.exists(rc)) {
      checkAlive();
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the guest did not finish within " + timeout.toSeconds() + " s: " + script);
      }
      Thread.sleep(100);
    }
    String output = Files.readString(mailbox.resolve(n + ".out"), StandardCharsets.UTF_8);
    int status = Integer.parseInt(Files.readString(rc).trim());
    return new Result(status, output);
  }

  /** The last lines of a component's log in the guest (containerd, kubelet, kube-proxy). */
  String log(String component, int lines) {
    Path log = dir.resolve("mailbox/logs/" + component + ".log");
    try {
      return Files.isRegularFile(log) ? tail(Files.readString(log), lines) : "(no " + log + ")";
    } catch (IOException e) {
      return "(" + log + ": " + e.getMessage() + ")";
    }
  }

  private void awaitReady(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      String fatal = consoleFatal();
      if (fatal != null) {
        throw new RealNodeException("the node could not start: " + fatal);
      }
      checkAlive();
      Node node = null;
      try {
        node = client.nodes().withName(name()).get();
      } catch (RuntimeException e) {
        // The API server is up (cluster start waited for it); a failed read is retried.
      }
      if (node != null && isReady(node)) {
        return;
      }
      Thread.sleep(1000);
    }
    Node node = client.nodes().withName(name()).get();
    if (node == null) {
      throw new RealNodeException(
          "kubelet never registered node "
              + name()
              + " within "
              + within.toSeconds()
              + " s; kubelet's log ends:\n"
              + log("kubelet", 15));
    }
    throw new RealNodeException(
        "node "
            + name()
            + " registered but did not become Ready within "
            + within.toSeconds()
            + " s: "
            + node.getStatus().getConditions()
            + "\nkubelet's log ends:\n"
            + log("kubelet", 15));
  }

  static boolean isReady(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    for (NodeCondition condition : node.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }

  private String consoleFatal() {
    try {
      Path console = dir.resolve("console.log");
      if (!Files.isRegularFile(console)) {
        return null;
      }
      for (String line : Files.readAllLines(console, StandardCharsets.UTF_8)) {
        int at = line.indexOf("@@IOQOS FATAL ");
        if (at >= 0) {
          return line.substring(at + "@@IOQOS FATAL ".length());
        }
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  private String guestTail() {
    try {
      return "; the console ends:\n" + tail(Files.readString(dir.resolve("console.log")), 25);
    } catch (IOException e) {
      return "";
    }
  }

  static String tail(String text, int lines) {
    String[] all = text.split("\n");
    return String.join("\n", List.of(all).subList(Math.max(0, all.length - lines), all.length));
  }

  @Override
  public void close() {
    try {
      Files.writeString(dir.resolve("mailbox/poweroff"), "");
      if (!qemu.waitFor(60, TimeUnit.SECONDS)) {
        qemu.descendants().forEach(ProcessHandle::destroyForcibly);
        qemu.destroyForcibly();
      }
    } catch (IOException | InterruptedException e) {
      qemu.descendants().forEach(ProcessHandle::destroyForcibly);
      qemu.destroyForcibly();
    }
    client.close();
    try {
      script(
          e2e, dir.resolve("cluster-stop.log"), Duration.ofMinutes(1), "node/cluster", "stop", dir);
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException("cannot stop the control plane in " + dir, e);
    }
  }

  /**
   * Stops the control plane's kube-apiserver (SIGTERM, as a rolling restart of a control plane
   * does), leaves it down for {@code down}, then starts it again with the same command line on the
   * same port (etcd keeps the data) and waits for its /readyz. Returns how long it was unreachable.
   */
  Duration restartApiServer(Duration down) throws Exception {
    ProcessHandle apiserver =
        ProcessHandle.allProcesses()
            .filter(
                p ->
                    p.info().command().orElse("").endsWith("/kube-apiserver")
                        && String.join(" ", p.info().arguments().orElse(new String[0]))
                            .contains(dir.resolve("pki").toString()))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no kube-apiserver of " + dir + " runs"));
    List<String> argv = new ArrayList<>();
    argv.add(apiserver.info().command().orElseThrow());
    argv.addAll(List.of(apiserver.info().arguments().orElseThrow()));
    long t0 = System.nanoTime();
    apiserver.destroy();
    try {
      apiserver.onExit().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      apiserver.destroyForcibly();
      apiserver.onExit().get(30, TimeUnit.SECONDS);
    }
    Thread.sleep(down.toMillis());
    Process restarted =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("logs/kube-apiserver.restarted.log").toFile())
            .start();
    // `cluster stop` kills what DIR/pids lists.
    Files.writeString(
        dir.resolve("pids"),
        restarted.pid() + "\n",
        java.nio.file.StandardOpenOption.APPEND,
        java.nio.file.StandardOpenOption.CREATE);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (true) {
      try {
        if ("ok".equals(client.raw("/readyz"))) {
          break;
        }
      } catch (RuntimeException e) {
        // not up yet
      }
      if (!restarted.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "kube-apiserver did not come back (see "
                + dir.resolve("logs/kube-apiserver.restarted.log")
                + ")");
      }
      Thread.sleep(500);
    }
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  /** Runs a harness script from e2e/; fails with the tail of its output. Returns its stdout. */
  static String script(Path e2e, Path log, Duration timeout, String name, Object... args)
      throws IOException, InterruptedException {
    return script(e2e, Map.of(), log, timeout, name, args);
  }

  static String script(
      Path e2e, Map<String, String> env, Path log, Duration timeout, String name, Object... args)
      throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(e2e.resolve(name).toString()));
    for (Object arg : args) {
      argv.add(arg.toString());
    }
    Path out = Path.of(log + ".stdout");
    ProcessBuilder builder =
        new ProcessBuilder(argv).redirectError(log.toFile()).redirectOutput(out.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new RealNodeException(
          name + " did not finish within " + timeout.toSeconds() + " s; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new RealNodeException(
          name + " failed (exit " + process.exitValue() + "): " + tail(Files.readString(log), 8));
    }
    return Files.readString(out, StandardCharsets.UTF_8).trim();
  }

  static Map<String, String> readEnv(Path file) {
    try {
      Map<String, String> env = new LinkedHashMap<>();
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          env.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      return env;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
