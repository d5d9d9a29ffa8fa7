package dev.ioqos.bench.agent;

import dev.ioqos.bench.agent.PodDriver.BenchPod;
import dev.ioqos.testkit.IoqosCrds;
import dev.ioqos.testkit.MetricLine;
import dev.ioqos.testkit.SandboxNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent benchmark: a real API server (with an audit log), the real agent jar as a separate
 * process on a sandbox node on tmpfs, and a driver playing scheduler and kubelet. Measures cold
 * start, event-to-applied latency, churn, a scrape against the bare reads, the footprint and the
 * API load, and writes a markdown report.
 */
public final class AgentBench {
  static final String NODE = "bench-node";
  static final String NAMESPACE = "bench";
  static final String AGENT_UA = "ioqos-agent/";
  static final String DRIVER_UA = "ioqos-bench/driver";
  static final String LOW_CAP = "254:16 rbps=max wbps=20971520 riops=max wiops=200";

  /** Tier high's weight 500 (io.weight's 1..10000) as bfq's 1..1000 scale has it. */
  static final String HIGH_BFQ = "default 136\n";

  static final Duration APPLY_TIMEOUT = Duration.ofSeconds(5);

  private final Options options;
  private final Report report = new Report();
  private final Deque<BenchPod> live = new ArrayDeque<>();
  private final Map<String, String> tiers = new HashMap<>();
  private final Map<String, Pod> objects = new HashMap<>();
  private Path work;
  private ControlPlane plane;
  private KubernetesClient client;
  private SandboxNode node;
  private PodDriver driver;
  private AppliedWatcher watcher;
  private AgentProcess agent;
  private AuditLog audit;
  private boolean closed;

  private AgentBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    AgentBench bench = new AgentBench(options);
    Thread cleanup = new Thread(bench::close, "bench-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    String markdown;
    try {
      markdown = bench.run();
    } finally {
      bench.close();
    }
    Files.writeString(options.out, markdown);
    System.out.println(markdown);
    System.out.println("(written to " + options.out.toAbsolutePath() + ")");
    System.exit(0);
  }

  private String run() throws Exception {
    if (!Files.isRegularFile(options.jar)) {
      throw new IllegalStateException("no agent jar at " + options.jar + ": build it first");
    }
    Machine machine = Machine.here();
    String started = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_DATE_TIME);
    work = Files.createTempDirectory(options.workRoot, "ioqos-bench-");
    log("work directory " + work + "; starting kube-apiserver + etcd");
    plane = ControlPlane.start(options.kubeApiTest, work);
    audit = new AuditLog(plane.auditLog);
    Config config = Config.fromKubeconfig(plane.kubeconfigYaml());
    config.setUserAgent(DRIVER_UA);
    config.setRequestTimeout(30_000);
    client = new KubernetesClientBuilder().withConfig(config).build();
    IoqosCrds.install(client, "ioqos-bench");
    node = new SandboxNode(work.resolve("node"));
    driver = new PodDriver(client, node, NODE, NAMESPACE);
    driver.prepareCluster();
    watcher = new AppliedWatcher();

    report.header(options, machine, started, plane.version, work);
    calibrate();
    coldStart();
    Map<String, Object> idle = options.runs("steady") ? steadyState() : null;
    if (options.runs("status")) {
      policyStatusWrites();
    }
    if (options.runs("events")) {
      eventToApplied();
    }
    Map<String, Object> churn = options.runs("churn") ? churn() : null;
    if (options.runs("scrape")) {
      scrape();
    }
    if (idle != null && churn != null) {
      report.footprint(idle, churn);
      report.scaleOnPaper(idle, churn);
    }
    return report.markdown();
  }

  /** The method's own delay: a file written here, seen through the same WatchService. */
  private void calibrate() throws Exception {
    Path dir = Files.createDirectories(work.resolve("calibration"));
    watcher.watch(dir);
    Stats stats = new Stats();
    for (int i = 0; i < 200; i++) {
      String value = "v" + i;
      CompletableFuture<Long> seen = watcher.expect(dir, d -> read(d.resolve("f")).equals(value));
      long before = System.nanoTime();
      Files.writeString(dir.resolve("f"), value);
      stats.addNanos(seen.get(5, TimeUnit.SECONDS) - before);
      Thread.sleep(2);
    }
    watcher.unwatch(dir);
    report.calibration(stats);
  }

  private void coldStart() throws Exception {
    log("creating " + options.pods + " pods (bound, cgroup, Running)");
    List<CompletableFuture<Long>> applied = new ArrayList<>();
    for (int i = 0; i < options.pods; i++) {
      String tier = i % 2 == 0 ? "high" : "low";
      BenchPod pod = createPod(String.format("pod-%04d", i), tier);
      applied.add(watcher.expect(pod.dir(), d -> holds(d, tier)));
    }
    log("starting the agent");
    Instant from = Instant.now();
    long spawn = System.nanoTime();
    agent =
        AgentProcess.start(
            options.jar,
            options.jvmFlagList(),
            options.agentEnvMap(),
            node,
            NODE,
            plane.kubeconfig,
            work.resolve("state"),
            freePort(),
            work.resolve("agent.log"));
    long ready = 0;
    long deadline = spawn + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (agent.status("/readyz") == 200) {
        ready = System.nanoTime();
        break;
      }
      if (!agent.alive()) {
        throw new IllegalStateException("the agent exited; see " + agent.log);
      }
      Thread.sleep(5);
    }
    if (ready == 0) {
      throw new IllegalStateException("the agent was not ready within 90 s; see " + agent.log);
    }
    double cpuAtReady = agent.cpuSeconds();
    long first = Long.MAX_VALUE;
    long last = 0;
    int missing = 0;
    long applyDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (CompletableFuture<Long> future : applied) {
      try {
        long seen =
            future.get(Math.max(0, applyDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        first = Math.min(first, seen);
        last = Math.max(last, seen);
      } catch (TimeoutException e) {
        missing++;
      }
    }
    double cpuAtApplied = agent.cpuSeconds();
    Instant to = Instant.now();
    Instant startedLog = agentStartedLine();
    List<AuditLog.Request> requests = audit.requests(from, to, ua -> ua.startsWith(AGENT_UA));
    Instant firstRequest =
        requests.stream().map(AuditLog.Request::received).min(Instant::compareTo).orElse(null);
    report.coldStart(
        options.pods,
        ms(ready - spawn),
        ms(first - spawn),
        ms(last - spawn),
        ms(last - ready),
        missing,
        firstRequest == null ? Double.NaN : Duration.between(from, firstRequest).toNanos() / 1e6,
        startedLog == null ? Double.NaN : Duration.between(from, startedLog).toNanos() / 1e6,
        cpuAtReady,
        cpuAtApplied,
        AuditLog.byKind(requests));
  }

  /** Idle: nothing changes for a while (at least one resync period in a full run). */
  private Map<String, Object> steadyState() throws Exception {
    Thread.sleep(5_000);
    log("steady state for " + options.idleSeconds + " s");
    Map<String, Object> idle = new HashMap<>();
    Instant from = Instant.now();
    double cpu0 = agent.cpuSeconds();
    long mods0 = watcher.modifications();
    long rssMax = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < options.idleSeconds; i++) {
      Thread.sleep(1_000);
      rssMax = Math.max(rssMax, agent.procStatus("VmRSS"));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Instant to = Instant.now();
    idle.put("seconds", seconds);
    idle.put("cpu", (agent.cpuSeconds() - cpu0) / seconds);
    idle.put("rewrites", watcher.modifications() - mods0);
    idle.put("rss", agent.procStatus("VmRSS"));
    idle.put("rssMax", rssMax);
    idle.put("threads", agent.procStatus("Threads"));
    idle.put("threadNames", agent.threadNames());
    String metrics = agent.get("/metrics");
    idle.put("heapUsed", MetricLine.sum(metrics, "jvm_memory_used_bytes", Map.of("area", "heap")));
    idle.put(
        "heapCommitted",
        MetricLine.sum(metrics, "jvm_memory_committed_bytes", Map.of("area", "heap")));
    idle.put(
        "nonHeapUsed", MetricLine.sum(metrics, "jvm_memory_used_bytes", Map.of("area", "nonheap")));
    List<AuditLog.Request> requests = audit.requests(from, to, ua -> ua.startsWith(AGENT_UA));
    idle.put("requests", requests);
    report.steadyState(idle, AuditLog.byKind(requests));
    return idle;
  }

  /**
   * The aggregator writes IoPolicy status; the agent watches IoPolicies for their spec. Writes the
   * policy's status a few times and counts what the agent does about it.
   */
  private void policyStatusWrites() throws Exception {
    int writes = options.quick ? 3 : 5;
    long mods0 = watcher.modifications();
    double cpu0 = agent.cpuSeconds();
    long t0 = System.nanoTime();
    for (int i = 0; i < writes; i++) {
      var policy = client.resources(dev.ioqos.api.v1alpha1.IoPolicy.class).withName("bench").get();
      var status = new dev.ioqos.api.v1alpha1.IoPolicyStatus();
      status.setObservedGeneration(policy.getMetadata().getGeneration());
      status.setNodes(new dev.ioqos.api.v1alpha1.NodeCounts(1 + i, 1 + i, 0));
      policy.setStatus(status);
      client.resource(policy).updateStatus();
      Thread.sleep(2_000);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    report.policyStatus(
        writes, watcher.modifications() - mods0, (agent.cpuSeconds() - cpu0) / seconds);
  }

  private void eventToApplied() throws Exception {
    log(options.events + " tier changes, one at a time");
    List<BenchPod> pods = new ArrayList<>(live);
    Stats fromAck = new Stats();
    Stats fromSend = new Stats();
    int missed = 0;
    for (int i = 0; i < options.events; i++) {
      BenchPod pod = pods.get(i % pods.size());
      String tier = tiers.get(pod.name()).equals("high") ? "low" : "high";
      CompletableFuture<Long> seen = watcher.expect(pod.dir(), d -> holds(d, tier));
      long send = System.nanoTime();
      driver.setTier(pod.name(), tier);
      long ack = System.nanoTime();
      tiers.put(pod.name(), tier);
      try {
        long at = seen.get(APPLY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        fromAck.addNanos(Math.max(0, at - ack));
        fromSend.addNanos(at - send);
      } catch (TimeoutException e) {
        missed++;
      }
      Thread.sleep(5);
    }
    report.eventToApplied(fromAck, fromSend, missed);
  }

  private Map<String, Object> churn() throws Exception {
    int ticks = options.churnSeconds * options.churnRate;
    log(
        "churn: "
            + options.churnRate
            + " creations + deletions per second for "
            + options.churnSeconds
            + " s");
    Stats runningToApplied = new Stats();
    Stats boundToApplied = new Stats();
    AtomicInteger early = new AtomicInteger();
    AtomicInteger driverErrors = new AtomicInteger();
    AtomicLong rssMax = new AtomicLong();
    AtomicLong threadsMax = new AtomicLong();
    List<CompletableFuture<Long>> outstanding = new ArrayList<>();
    String metrics0 = agent.get("/metrics");
    int logProblems0 = agent.problems().size();
    Instant from = Instant.now();
    double cpu0 = agent.cpuSeconds();
    long t0 = System.nanoTime();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleAtFixedRate(
        () -> {
          try {
            rssMax.accumulateAndGet(agent.procStatus("VmRSS"), Math::max);
            threadsMax.accumulateAndGet(agent.procStatus("Threads"), Math::max);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        0,
        500,
        TimeUnit.MILLISECONDS);
    long period = TimeUnit.SECONDS.toNanos(1) / options.churnRate;
    for (int tick = 0; tick < ticks; tick++) {
      long due = t0 + tick * period;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      String tier = tick % 2 == 0 ? "high" : "low";
      try {
        long bound = System.nanoTime();
        Pod pod = driver.bind(String.format("churn-%05d", tick), tier);
        BenchPod created = driver.cgroup(pod);
        watcher.watch(created.dir());
        CompletableFuture<Long> seen = watcher.expect(created.dir(), d -> holds(d, tier));
        driver.running(pod);
        long running = System.nanoTime();
        seen.thenAccept(
            at -> {
              boundToApplied.addNanos(at - bound);
              if (at < running) {
                early.incrementAndGet();
              } else {
                runningToApplied.addNanos(at - running);
              }
            });
        outstanding.add(seen);
        live.addLast(created);
        tiers.put(created.name(), tier);
        BenchPod gone = live.removeFirst();
        watcher.unwatch(gone.dir());
        driver.delete(gone);
      } catch (RuntimeException e) {
        driverErrors.incrementAndGet();
        log("driver: " + e);
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    int timedOut = 0;
    for (CompletableFuture<Long> future : outstanding) {
      try {
        future.get(APPLY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException | java.util.concurrent.CancellationException e) {
        timedOut++;
      }
    }
    Instant to = Instant.now();
    double cpu = (agent.cpuSeconds() - cpu0) / seconds;
    sampler.shutdownNow();
    String metrics1 = agent.get("/metrics");
    double failures =
        MetricLine.sum(metrics1, "ioqos_apply_total", Map.of("result", "failure"))
            - MetricLine.sum(metrics0, "ioqos_apply_total", Map.of("result", "failure"));
    List<String> problems = agent.problems();
    List<String> newProblems = problems.subList(logProblems0, problems.size());
    Map<String, Object> churn = new HashMap<>();
    churn.put("seconds", seconds);
    churn.put("creations", outstanding.size());
    churn.put("cpu", cpu);
    churn.put("rssMax", rssMax.get());
    churn.put("threadsMax", threadsMax.get());
    churn.put(
        "heapUsed", MetricLine.sum(metrics1, "jvm_memory_used_bytes", Map.of("area", "heap")));
    churn.put(
        "heapCommitted",
        MetricLine.sum(metrics1, "jvm_memory_committed_bytes", Map.of("area", "heap")));
    List<AuditLog.Request> requests = audit.requests(from, to, ua -> ua.startsWith(AGENT_UA));
    List<AuditLog.Request> driverRequests = audit.requests(from, to, DRIVER_UA::equals);
    churn.put("requests", requests);
    report.churn(
        churn,
        runningToApplied,
        boundToApplied,
        early.get(),
        timedOut,
        driverErrors.get(),
        failures,
        newProblems,
        AuditLog.byKind(requests),
        driverRequests.size());
    return churn;
  }

  private void scrape() throws Exception {
    Thread.sleep(2_000);
    // On an agent at rest: a scrape sharing the CPU with the tail of the churn would be timed for
    // both.
    long settleFrom = System.nanoTime();
    double settleCpu;
    do {
      double cpu0 = agent.cpuSeconds();
      Thread.sleep(1_000);
      settleCpu = agent.cpuSeconds() - cpu0;
    } while (settleCpu > 0.03 && System.nanoTime() - settleFrom < TimeUnit.SECONDS.toNanos(60));
    report.settled((System.nanoTime() - settleFrom) / 1e9, settleCpu);
    List<Path> files = new ArrayList<>();
    for (BenchPod pod : live) {
      files.add(pod.dir().resolve("io.stat"));
      files.add(pod.dir().resolve("io.pressure"));
    }
    files.add(node.procfs.resolve("pressure/io"));
    Stats scrape = new Stats();
    Stats bare = new Stats();
    Stats exchange = new Stats();
    String body = "";
    for (int i = 0; i < 5; i++) {
      Thread.sleep(600);
      body = new String(agent.getBytes("/metrics"), StandardCharsets.UTF_8);
      bareRead(files);
    }
    double readSum0 = MetricLine.sum(body, "ioqos_metrics_read_duration_seconds_sum", Map.of());
    double readCount0 = MetricLine.sum(body, "ioqos_metrics_read_duration_seconds_count", Map.of());
    double cpu = 0;
    for (int i = 0; i < options.scrapes; i++) {
      // Longer than the pods' 500 ms snapshot age, so every scrape reads every file again.
      Thread.sleep(600);
      double cpu0 = agent.cpuSeconds();
      long t0 = System.nanoTime();
      byte[] bytes = agent.getBytes("/metrics");
      scrape.addNanos(System.nanoTime() - t0);
      cpu += agent.cpuSeconds() - cpu0;
      body = new String(bytes, StandardCharsets.UTF_8);
      // The same pause before the bare read: both start with caches a scraper's interval cold.
      Thread.sleep(600);
      long t1 = System.nanoTime();
      bareRead(files);
      bare.addNanos(System.nanoTime() - t1);
      // What an HTTP exchange costs by itself after the same pause: the floor under the scrape.
      Thread.sleep(600);
      long t2 = System.nanoTime();
      agent.getBytes("/readyz");
      exchange.addNanos(System.nanoTime() - t2);
    }
    double reads =
        MetricLine.sum(body, "ioqos_metrics_read_duration_seconds_count", Map.of()) - readCount0;
    double readMs =
        1000
            * (MetricLine.sum(body, "ioqos_metrics_read_duration_seconds_sum", Map.of()) - readSum0)
            / reads;
    report.scrape(
        live.size(),
        files.size(),
        scrape,
        bare,
        exchange,
        MetricLine.parse(body).size(),
        body.length(),
        readMs,
        1000 * cpu / options.scrapes);
  }

  private static long bareRead(List<Path> files) throws IOException {
    long total = 0;
    for (Path file : files) {
      total += Files.readAllBytes(file).length;
    }
    return total;
  }

  private BenchPod createPod(String name, String tier) throws IOException {
    Pod pod = driver.bind(name, tier);
    BenchPod created = driver.cgroup(pod);
    driver.running(pod);
    watcher.watch(created.dir());
    live.addLast(created);
    tiers.put(name, tier);
    objects.put(name, pod);
    return created;
  }

  /** Whether a pod directory holds the bench policy's values for {@code tier}. */
  static boolean holds(Path dir, String tier) {
    String bfq = read(dir.resolve("io.bfq.weight"));
    String max = read(dir.resolve("io.max"));
    return tier.equals("low")
        ? bfq.equals("default 10\n") && max.contains(LOW_CAP)
        : bfq.equals(HIGH_BFQ) && !max.contains("wbps=20971520");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private Instant agentStartedLine() throws IOException {
    for (String line : Files.readAllLines(agent.log)) {
      if (line.contains("ioqos agent started on node")) {
        return java.time.OffsetDateTime.parse(line.substring(0, line.indexOf(' '))).toInstant();
      }
    }
    return null;
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  static void log(String message) {
    System.err.println("[bench " + Instant.now() + "] " + message);
  }

  private synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (agent != null) {
        agent.close();
      }
      if (watcher != null) {
        watcher.close();
      }
      if (client != null) {
        client.close();
      }
    } catch (Exception e) {
      log("cleanup: " + e);
    }
    if (plane != null) {
      plane.close();
    }
  }
}
