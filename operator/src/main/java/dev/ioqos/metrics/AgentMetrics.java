package dev.ioqos.metrics;

import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.IoSettings;
import dev.ioqos.probe.NodeCapabilities;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The agent's metrics: one meter registry for applies ({@link ApplyMetrics}), the node ({@link
 * NodeMetrics}), JOSDK and the JVM, and the per-pod series ({@link PodIoMetrics}), which are
 * written straight as text. {@link #scrape} reads the pods' files once and renders both into one
 * Prometheus text exposition.
 */
public final class AgentMetrics implements AutoCloseable {
  /** The Prometheus text exposition format, version 0.0.4. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  static final String READ_DURATION = "ioqos.metrics.read.duration";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final PodIoMetrics pods;
  private final ApplyMetrics apply = new ApplyMetrics();
  private final SliceMetrics slices = new SliceMetrics();
  private final LoopMetrics loop = new LoopMetrics();
  // Held here: the registry's function counters only keep a weak reference to it.
  private final NodeMetrics node;
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final Timer readDuration;

  /** Reads the pods' files for a scrape while the scrape's thread collects the registry. */
  private final ExecutorService reader =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "ioqos-metrics-read");
            thread.setDaemon(true);
            return thread;
          });

  /** The buffer of the last scrape, reused by the next one (none while a scrape holds it). */
  private final AtomicReference<Exposition> spare = new AtomicReference<>();

  /** The agent's metrics with the default snapshot age and the system clock. */
  public AgentMetrics(
      Supplier<NodeCapabilities> capabilities,
      Supplier<Optional<CgroupTree>> tree,
      Function<String, IoSettings> applied,
      Path sysfs,
      Path procfs) {
    this(
        capabilities,
        tree,
        applied,
        sysfs,
        procfs,
        PodIoMetrics.DEFAULT_MAX_AGE,
        System::nanoTime,
        true);
  }

  /**
   * @param maxAge how old a snapshot of a pod's (and the node's) files may be when scraped
   * @param nanoClock {@link System#nanoTime()} outside tests and benchmarks
   * @param jvm whether to add the JVM and process meters
   */
  public AgentMetrics(
      Supplier<NodeCapabilities> capabilities,
      Supplier<Optional<CgroupTree>> tree,
      Function<String, IoSettings> applied,
      Path sysfs,
      Path procfs,
      Duration maxAge,
      LongSupplier nanoClock,
      boolean jvm) {
    registry.config().meterFilter(new ExpositionHygiene());
    CgroupFiles files = new CgroupFiles();
    this.pods =
        new PodIoMetrics(
            files,
            tree,
            new DeviceNames(capabilities, sysfs),
            applied,
            () -> {
              NodeCapabilities caps = capabilities.get();
              return caps != null && caps.psi();
            },
            maxAge,
            nanoClock);
    apply.bindTo(registry);
    slices.bindTo(registry);
    loop.bindTo(registry);
    this.node = new NodeMetrics(capabilities, files, procfs, maxAge, nanoClock);
    node.bindTo(registry);
    if (jvm) {
      new JvmMemoryMetrics().bindTo(registry);
      gc.bindTo(registry);
      new ThreadMetrics(ManagementFactory.getThreadMXBean(), ThreadMetrics.STATES_AGE, nanoClock)
          .bindTo(registry);
      processCpu(registry);
      new UptimeMetrics().bindTo(registry);
      ProcessFileMetrics.bind(registry, nanoClock);
    }
    this.readDuration =
        Timer.builder(READ_DURATION)
            .description(
                "Time to read io.stat and io.pressure of every managed pod before a scrape")
            .register(registry);
  }

  /**
   * The agent's CPU time, as Prometheus's client libraries name it; rate() of it is the CPU use.
   * Micrometer's ProcessorMetrics is not bound: its usage gauges made the JDK re-read the
   * container's CPU files on every scrape (a third of the JVM meters' cost) to say what this
   * counter and node-exporter already say.
   */
  private static void processCpu(MeterRegistry registry) {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu", os, bean -> bean.getProcessCpuTime() / 1_000_000_000.0)
          .description("CPU time the agent's process used, user and system")
          .baseUnit("seconds")
          .register(registry);
    }
  }

  /** The registry, for JOSDK's metrics and for tests. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The latency loop's gauges. */
  public LoopMetrics loop() {
    return loop;
  }

  /** The QoS slices' weights. */
  public SliceMetrics slices() {
    return slices;
  }

  public PodIoMetrics pods() {
    return pods;
  }

  public ApplyMetrics apply() {
    return apply;
  }

  /**
   * Reads the pods' files (at most once per snapshot age) and writes the exposition: the registry's
   * meters, then the pods' series, in one write.
   */
  public void scrape(OutputStream out) throws IOException {
    Exposition text = render();
    try {
      text.writeTo(out);
    } finally {
      spare.set(text);
    }
  }

  /** Where a scrape's text goes, opened once its length is known. */
  @FunctionalInterface
  public interface Body {
    /** The stream for {@code length} bytes; closed by the scrape once written. */
    OutputStream open(int length) throws IOException;
  }

  /**
   * {@link #scrape(OutputStream)} for a receiver that wants the length first (an HTTP response with
   * a Content-Length rather than chunks).
   */
  public void scrape(Body body) throws IOException {
    Exposition text = render();
    try (OutputStream out = body.open(text.size())) {
      text.writeTo(out);
    } finally {
      spare.set(text);
    }
  }

  /** {@link #scrape(OutputStream)} as a string. */
  public String scrape() {
    Exposition text = render();
    try {
      return text.toString();
    } finally {
      spare.set(text);
    }
  }

  private Exposition render() {
    // The pods' files are read on the reader thread while this one collects the registry's meters
    // (the two touch nothing in common; node_exporter runs its collectors concurrently for the same
    // reason), and then this thread reads the pods the reader has not taken yet.
    PodIoMetrics.Refresh refresh = pods.refreshing();
    Future<?> read = helpOnReader(refresh);
    MetricSnapshots snapshots;
    try {
      snapshots = registry.getPrometheusRegistry().scrape();
    } finally {
      refresh.help();
      awaitRefresh(read);
    }
    readDuration.record(refresh.nanos(), TimeUnit.NANOSECONDS);
    Exposition text = spare.getAndSet(null);
    if (text == null) {
      text = new Exposition(64 * 1024);
    }
    text.reset();
    // The registry's snapshots in the library's text, written without its char-by-char writer.
    SnapshotText.write(snapshots, text);
    pods.render(text);
    return text;
  }

  /** Has the reader thread help with the refresh; null when it cannot (the agent is closing). */
  private Future<?> helpOnReader(PodIoMetrics.Refresh refresh) {
    try {
      return reader.submit(refresh::help);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  private static void awaitRefresh(Future<?> read) {
    if (read == null) {
      return;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          read.get();
          return;
        } catch (InterruptedException e) {
          // The scrape needs the pods' snapshot either way; the read takes milliseconds.
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    reader.shutdownNow();
    gc.close();
    pods.close();
    registry.close();
  }
}
