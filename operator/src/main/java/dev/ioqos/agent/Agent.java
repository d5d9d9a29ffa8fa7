package dev.ioqos.agent;

import dev.ioqos.api.PolicyValidity;
import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.IocostSwitch;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.policy.LatencyLoop;
import dev.ioqos.metrics.AgentMetrics;
import dev.ioqos.metrics.ApplyMetrics;
import dev.ioqos.metrics.TierState;
import dev.ioqos.node.CgroupWriteScope;
import dev.ioqos.node.LatencyLoopStep;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.LedgerEntry;
import dev.ioqos.node.LedgerWriteException;
import dev.ioqos.node.LoopLedger;
import dev.ioqos.node.NodeEngine;
import dev.ioqos.node.PodPass;
import dev.ioqos.node.PodTarget;
import dev.ioqos.node.QosSliceStep;
import dev.ioqos.node.SliceLedger;
import dev.ioqos.node.StateDirLock;
import dev.ioqos.probe.DiskCapability;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent: wires the node engine, the ledger and the reporters to a JOSDK operator whose pod
 * informer sees only this node's pods, and runs the periodic work (re-probe, node labels,
 * forgetting vanished pods, writing the IoNodeState when it changed).
 */
public final class Agent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  /**
   * A reconcile is a few cgroup reads and writes and no API call (Events go through their own
   * thread), so a few threads keep up with any node; JOSDK's default of 50 cost memory (stacks) and
   * gained nothing.
   */
  static final int RECONCILE_THREADS = 4;

  private final AgentConfig config;
  private final NodeEngine engine;
  private final Ledger ledger;
  private final QosSliceStep sliceStep;
  private volatile QosSliceStep.Report slices;
  private final NodeStateReporter nodeState;
  private final NodeLabels nodeLabels;
  private final PodHandler handler;
  private final Operator operator;
  private final PodReconciler reconciler;
  private final AgentMetrics metrics;
  private final EventReporter events;

  /** As long as the chart's startup probe waits (300 x 2 s). */
  static final Duration CACHE_SYNC_TIMEOUT = Duration.ofMinutes(10);

  private final Liveness liveness;
  private final ScheduledExecutorService periodic =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "ioqos-periodic");
            thread.setDaemon(true);
            return thread;
          });
  private final LatencyLoopStep loopStep;
  private final ScheduledExecutorService loopTimer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "ioqos-latency-loop");
            thread.setDaemon(true);
            return thread;
          });
  private final StateDirLock stateLock;
  private volatile boolean started;
  private boolean closed;

  public Agent(AgentConfig config, KubernetesClient client) {
    this.config = config;
    this.engine = new NodeEngine(config.node());
    // Held for the agent's lifetime (the kernel drops it when the process dies, also on kill -9):
    // ioqos reconcile refuses a state directory an agent writes.
    this.stateLock = StateDirLock.acquire(config.stateDir());
    this.ledger = Ledger.open(config.stateDir());
    this.sliceStep =
        new QosSliceStep(engine, SliceLedger.open(config.stateDir()), ledger, config.dryRun());
    this.loopStep =
        new LatencyLoopStep(
            engine,
            LoopLedger.open(config.stateDir()),
            config.dryRun(),
            LatencyLoop.Parameters.DEFAULT);
    // Before any pod pass: a previous run's dynamic caps go back to the tiers' static values.
    loopStep
        .restoreRecorded()
        .forEach(line -> LOG.info("latency loop: restored after a restart: {}", line));
    this.metrics =
        new AgentMetrics(
            engine::capabilities,
            engine::tree,
            uid -> ledger.get(uid).map(LedgerEntry::held).orElse(IoSettings.NONE),
            config.node().sysfs(),
            config.node().procfs());
    FunctionCounter.builder("ioqos.ledger.write.failures", ledger, Ledger::writeFailures)
        .description(
            "Ledger writes that failed (disk full, read-only, I/O error); their cgroup writes did"
                + " not happen")
        .register(metrics.registry());
    Gauge.builder("ioqos.ledger.writable", ledger, l -> l.problem().isEmpty() ? 1 : 0)
        .description("1 while the last ledger write succeeded, 0 after a failed one")
        .register(metrics.registry());
    Clock clock = Clock.systemUTC();
    this.events = new EventReporter(client, config.nodeName(), Duration.ofMinutes(10), clock);
    this.nodeState = new NodeStateReporter(client, config.nodeName(), clock);
    this.nodeLabels = new NodeLabels(client, config.nodeName());
    this.handler =
        new PodHandler(
            new PodPass(engine, ledger, config.dryRun()),
            ledger,
            events,
            nodeState,
            podMetrics(metrics),
            new Backoff(Duration.ofMillis(100), Duration.ofSeconds(30)),
            loopStep);
    // The periodic loop beats every second but also runs the resync: twice a resync plus a minute
    // before it counts as stalled. A pass that runs two minutes is stuck in the kernel or a lock.
    this.liveness =
        new Liveness(clock, config.resync().multipliedBy(2).plusSeconds(60), Duration.ofMinutes(2));
    this.reconciler =
        new PodReconciler(
            handler, nodeLabels, new PolicyValidity(), liveness, new ClaimVolumes(client));
    this.operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withConcurrentReconciliationThreads(RECONCILE_THREADS)
                    // JOSDK gives up (and the agent exits) when the informers have not synced
                    // within 2 minutes by default. On a starved node (the real-node test under
                    // a 500m limit without KVM) the first lists alone take minutes: wait as long
                    // as the DaemonSet's startup probe does, and let the probe decide.
                    .withCacheSyncTimeout(CACHE_SYNC_TIMEOUT)
                    .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(metrics.registry())));
    ControllerConfiguration<Pod> base =
        ControllerConfigurationOverrider.override(
                operator.getConfigurationService().getConfigurationFor(reconciler))
            .withReconciliationMaxInterval(config.resync())
            .build();
    operator.register(reconciler, NodeScope.onlyNode(base, config.nodeName()));
  }

  /** The pass's reports into the agent's meters. */
  private static PodMetricsSink podMetrics(AgentMetrics metrics) {
    return new PodMetricsSink() {
      @Override
      public void tier(
          String uid,
          String namespace,
          String name,
          String tier,
          String cgroupPath,
          TierState state,
          List<DeviceId> disks) {
        metrics.pods().managed(uid, namespace, name, tier, cgroupPath, state, disks);
      }

      @Override
      public void forget(String uid) {
        metrics.pods().forget(uid);
      }

      @Override
      public void kernelCall(
          ApplyMetrics.Operation operation, ApplyMetrics.Result result, Duration took) {
        metrics.apply().record(operation, result, took);
      }
    };
  }

  /** Starts the informers (waits for their first sync) and the periodic work. */
  public void start() {
    enableIocostIfOptedIn();
    reportNodeConditions();
    operator.start();
    started = true;
    long resyncMillis = config.resync().toMillis();
    periodic.scheduleWithFixedDelay(this::publishSafely, 1, 1, TimeUnit.SECONDS);
    // Once soon after the first reconciles, then at every resync.
    periodic.schedule(
        () -> {
          try {
            runSliceStep();
          } catch (RuntimeException e) {
            LOG.error("QoS slice step failed", e);
          }
        },
        5,
        TimeUnit.SECONDS);
    long loopMillis = LatencyLoop.Parameters.DEFAULT.periodMillis();
    loopTimer.scheduleWithFixedDelay(
        this::loopSafely, loopMillis, loopMillis, TimeUnit.MILLISECONDS);
    periodic.scheduleWithFixedDelay(
        this::resyncSafely, resyncMillis, resyncMillis, TimeUnit.MILLISECONDS);
    // A slice weight re-written behind ioqos's back (systemd, every minute on a systemd node) is
    // repaired within a second rather than at the next resync.
    periodic.scheduleWithFixedDelay(this::sliceDriftSafely, 1, 1, TimeUnit.SECONDS);
    LOG.info(
        "ioqos agent started on node {} (dry run: {}, iocost opt-in: {})",
        config.nodeName(),
        config.dryRun(),
        config.enableIocost());
    CgroupWriteScope scope = cgroupWriteScope();
    if (!scope.narrow()) {
      // Told, not warned: a supported install (cgroupDriver auto) and a sandbox tree are like this;
      // the IoNodeState condition CgroupWriteScope carries it.
      LOG.info("{}", scope.message());
    }
  }

  private CgroupWriteScope cgroupWriteScope() {
    return CgroupWriteScope.of(
        config.node().cgroupfs(), engine.layout(), config.enableIocost(), Files::isWritable);
  }

  public boolean started() {
    return started;
  }

  /**
   * Why /healthz should fail, or empty while the agent makes progress: an informer that stopped for
   * good (not running; one that lost its watch while the API server is away is not stuck, and
   * restarting every agent of the cluster during an API outage would only add load when it
   * returns), the periodic loop or a pod pass stalled ({@link Liveness}). Before start returned
   * nothing is judged: the startup probe covers that time.
   */
  public Optional<String> stuck() {
    if (!started) {
      return Optional.empty();
    }
    List<String> stopped =
        operator
            .getRuntimeInfo()
            .unhealthyInformerWrappingEventSourceHealthIndicator()
            .values()
            .stream()
            .flatMap(sources -> sources.entrySet().stream())
            .filter(source -> stoppedForGood(source.getValue()))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    if (!stopped.isEmpty()) {
      return Optional.of("informers stopped: " + stopped);
    }
    return liveness.problem();
  }

  private static boolean stoppedForGood(InformerWrappingEventSourceHealthIndicator<?> source) {
    Map<String, InformerHealthIndicator> informers = source.informerHealthIndicators();
    return informers.values().stream().anyMatch(informer -> !informer.isRunning());
  }

  /** Ready for /readyz: the informers synced (start returned) and the node was probed. */
  public boolean ready() {
    return started && engine.capabilities() != null;
  }

  /** The agent's meters, served by a {@link dev.ioqos.metrics.MetricsServer}. */
  public AgentMetrics metrics() {
    return metrics;
  }

  public NodeEngine engine() {
    return engine;
  }

  public Ledger ledger() {
    return ledger;
  }

  private void resyncSafely() {
    try {
      engine.refresh();
      enableIocostIfOptedIn();
      reportNodeConditions();
      if (nodeLabels.refresh()) {
        // Node labels changed: every pod's policy choice may change.
        reconciler.reconcileAll();
        LOG.info("labels of node {} changed", config.nodeName());
      }
      forgetVanishedPods();
      runSliceStep();
    } catch (RuntimeException e) {
      LOG.error("periodic resync failed", e);
    }
  }

  private void sliceDriftSafely() {
    try {
      if (sliceStep.drifted()) {
        runSliceStep();
      }
    } catch (RuntimeException e) {
      LOG.error("QoS slice drift check failed", e);
    }
  }

  /**
   * The node-level step after the pods' passes: the QoS slices' weights follow their active pods
   * (node.QosSliceStep), drift is repaired; reported as the node condition {@code QosSlices}, log
   * lines and the slice gauges.
   */
  void runSliceStep() {
    QosSliceStep.Report report;
    try {
      report = sliceStep.run();
    } catch (LedgerWriteException e) {
      // The slice ledger is written before a slice weight: nothing was written that it does not
      // hold; the next step (resync) tries again.
      LOG.warn("QoS slice step stopped: {}", e.getMessage());
      nodeState.condition("QosSlices", false, "LedgerNotWritten", e.getMessage());
      return;
    }
    slices = report;
    report.written().forEach(line -> LOG.info("QoS slice weight set: {}", line));
    report.restored().forEach(line -> LOG.info("QoS slice weight restored: {}", line));
    report.drift().forEach(line -> LOG.warn("QoS slice weight drifted, repaired: {}", line));
    metrics.slices().update(report.sliceWeights(), report.drift().size());
    if (report.problem().isPresent()) {
      return;
    }
    String message =
        !report.failures().isEmpty()
            ? report.failures().get(0).getMessage()
            : !report.notEnforced().isEmpty()
                ? String.join("; ", report.notEnforced())
                : report.managing()
                    ? "QoS slice weights follow their active pods: " + report.sliceWeights()
                    : "no managed pod: QoS slices at their original weights";
    nodeState.condition(
        "QosSlices",
        report.failures().isEmpty(),
        !report.failures().isEmpty()
            ? "WriteFailed"
            : !report.notEnforced().isEmpty() ? "NotEnforced" : "Applied",
        message);
  }

  /**
   * One period of the latency loop (node.LatencyLoopStep) where the kernel lacks io.latency: its
   * throttling starts and stops are logged and posted as Events (rate-limited by the reporter).
   */
  void loopSafely() {
    try {
      LatencyLoopStep.Report report = loopStep.tick();
      for (LatencyLoopStep.Transition t : report.transitions()) {
        LOG.info(
            "latency loop: pod {}/{} {}: io.max {}",
            t.pod().namespace(),
            t.pod().name(),
            t.throttled() ? "throttled" : "released",
            t.line());
        PodTarget target =
            new PodTarget(t.pod().uid(), t.pod().namespace(), t.pod().name(), t.pod().cgroupPath());
        events.post(target, t.event());
      }
      for (LatencyLoopStep.DiskReport disk : report.disks()) {
        disk.failures().forEach(e -> LOG.warn("latency loop: {}", e.getMessage()));
      }
      metrics.loop().update(report, loopStep.members());
      reportLoopCondition(report);
    } catch (RuntimeException e) {
      LOG.error("latency loop step failed", e);
    }
  }

  private String loopCondition = "";

  /**
   * The node condition {@code LatencyLoop}: where the loop runs (its disks, how many protected
   * pods), or why it does not. Changes only when those do, so the IoNodeState is not rewritten at
   * every throttle.
   */
  private void reportLoopCondition(LatencyLoopStep.Report report) {
    List<String> disks =
        loopStep.protectedDisks().stream().map(d -> d.name() + " " + d.id()).toList();
    long protectedPods =
        loopStep.members().stream().filter(m -> m.latencyTargetMicros().isPresent()).count();
    Optional<String> failure =
        report.disks().stream()
            .flatMap(d -> d.failures().stream())
            .map(CgroupIoException::getMessage)
            .findFirst();
    boolean runs = loopStep.needed() && !disks.isEmpty();
    String reason =
        failure.isPresent()
            ? "WriteFailed"
            : !loopStep.needed() ? "IoLatencyPresent" : runs ? "Running" : "NoLatencyTarget";
    String message =
        failure.orElse(
            !loopStep.needed()
                ? "the kernel has io.latency: latency targets are written to io.latency"
                : runs
                    ? "the latency loop protects "
                        + protectedPods
                        + " pod(s) with a latencyTarget on disks "
                        + String.join(", ", disks)
                    : "no pod of a tier with a latencyTarget on this node: the loop is idle");
    String key = reason + message;
    if (!key.equals(loopCondition)) {
      loopCondition = key;
      nodeState.condition("LatencyLoop", runs && failure.isEmpty(), reason, message);
    }
  }

  /** The latency loop, for the node state. */
  public LatencyLoopStep loopStep() {
    return loopStep;
  }

  /** The last slice step's report; null before the first one. */
  public QosSliceStep.Report slices() {
    return slices;
  }

  /** Ledger entries of pods no longer on this node: their cgroups went with them. */
  void forgetVanishedPods() {
    // The ledger first: a pod bound and recorded between the two reads is then among the pods
    // read second; read the other way round, it would be forgotten while its cgroup holds values.
    Collection<LedgerEntry> recorded = ledger.entries();
    Set<String> present = reconciler.podUids();
    for (LedgerEntry entry : recorded) {
      if (!present.contains(entry.uid())) {
        LOG.info(
            "forgetting pod {}/{}: it is no longer on this node", entry.namespace(), entry.name());
        handler.forget(entry.uid());
      }
    }
    for (String uid : metrics.pods().tracked()) {
      if (!present.contains(uid)) {
        // Pods ioqos never wrote to (dry run) have no ledger entry: their series go here.
        metrics.pods().forget(uid);
      }
    }
  }

  /**
   * With {@code --enable-iocost}, turns iocost on for every whole disk that lacks it, so that tier
   * weights are enforced; this changes the whole node and is reported as a condition.
   */
  private void enableIocostIfOptedIn() {
    if (!config.enableIocost() || config.dryRun()) {
      return;
    }
    IocostSwitch iocost = new IocostSwitch(new CgroupFiles(), config.node().cgroupfs());
    List<String> failures = new ArrayList<>();
    int enabled = 0;
    for (DiskCapability disk : engine.capabilities().devices()) {
      if (disk.iocost()) {
        continue;
      }
      try {
        iocost.enable(disk.majMin());
        enabled++;
        LOG.info("enabled iocost on {} ({}) as the admin opted in", disk.name(), disk.majMin());
      } catch (CgroupIoException e) {
        failures.add(disk.name() + ": " + e.getMessage());
      }
    }
    if (enabled > 0) {
      engine.refresh();
    }
    nodeState.condition(
        "IocostEnabled",
        failures.isEmpty(),
        failures.isEmpty() ? "OptedIn" : "EnableFailed",
        failures.isEmpty()
            ? "iocost is enabled on every disk (--enable-iocost)"
            : String.join("; ", failures));
  }

  private void reportNodeConditions() {
    // The ledger: a change it cannot record is not written to any cgroup, so a full or read-only
    // state directory stops ioqos from changing pods until it can write again (then it catches
    // up by itself).
    var ledgerProblem = ledger.problem();
    nodeState.condition(
        "LedgerWritable",
        ledgerProblem.isEmpty(),
        ledgerProblem.isEmpty() ? "Written" : "WriteFailed",
        ledgerProblem
            .map(e -> e.getMessage() + "; pods are not changed until it can be written")
            .orElse("the ledger in " + config.stateDir() + " records every value written"));
    CgroupWriteScope scope = cgroupWriteScope();
    nodeState.condition("CgroupWriteScope", scope.narrow(), scope.reason(), scope.message());
    var caps = engine.capabilities();
    nodeState.condition(
        "IoControllerReady",
        caps.ioUsable(),
        caps.ioUsable() ? "IoDelegated" : "IoNotUsable",
        caps.ioUsable()
            ? "io is enabled down to " + caps.kubepods().path()
            : engine
                .layoutProblem()
                .orElse(
                    "cgroup "
                        + caps.cgroupVersion()
                        + ", io controller "
                        + caps.ioController()
                        + ", io not enabled in cgroup.subtree_control along the kubepods"
                        + " path"));
    boolean weights =
        caps.devices().stream()
            .anyMatch(d -> d.weightMechanism() != dev.ioqos.core.policy.WeightMechanism.NONE);
    nodeState.condition(
        "WeightsEnforced",
        weights,
        weights ? "IocostOrBfq" : "NoWeightMechanism",
        weights
            ? "io weights are enforced on at least one disk"
            : "no disk has iocost enabled or the bfq scheduler: tier weights are not enforced");
    nodeState.condition(
        "IoLatencyAvailable",
        caps.ioLatency(),
        caps.ioLatency() ? "IoLatencyPresent" : "IoLatencyMissing",
        caps.ioLatency()
            ? "io.latency targets can be set"
            : "the kernel has no io.latency (CONFIG_BLK_CGROUP_IOLATENCY): latency targets are skipped");
  }

  private void publishSafely() {
    liveness.beat();
    events.summarize();
    try {
      nodeState.publish(engine.capabilities());
    } catch (RuntimeException e) {
      LOG.error("could not publish the node state", e);
    }
  }

  /** Writes the node state now (tests and shutdown). */
  public void publishNow() {
    publishSafely();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    loopTimer.shutdown();
    try {
      loopTimer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // Stopping the agent gives every throttled pod its tier's static values back.
    loopStep.restoreAll().forEach(line -> LOG.info("latency loop: restored at stop: {}", line));
    // Let a running publish or resync finish: interrupted, its API call fails and logs a warning.
    periodic.shutdown();
    try {
      if (!periodic.awaitTermination(5, TimeUnit.SECONDS)) {
        periodic.shutdownNow();
      }
    } catch (InterruptedException e) {
      periodic.shutdownNow();
      Thread.currentThread().interrupt();
    }
    operator.stop();
    events.close();
    metrics.close();
    stateLock.close();
  }
}
