package dev.ioqos.metrics;

import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.core.IoPressure;
import dev.ioqos.core.KernelFormatException;
import dev.ioqos.core.PressureLine;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.probe.CgroupVersion;
import dev.ioqos.probe.NodeCapabilities;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The node's side: what the last capability probe found, as 0/1 gauges per capability, and the
 * node-wide I/O pressure from {@code <procfs>/pressure/io} (read at most once per {@code maxAge}).
 */
public final class NodeMetrics implements MeterBinder {
  static final String CAPABILITY = "ioqos.node.capability";
  static final String PRESSURE_WAITING = "ioqos.node.io.pressure.waiting";
  static final String PRESSURE_STALLED = "ioqos.node.io.pressure.stalled";

  /** The capabilities exported, in order, with what makes each true. */
  static final Map<String, Predicate<NodeCapabilities>> CAPABILITIES = capabilities();

  private final Supplier<NodeCapabilities> capabilities;
  private final CgroupFiles files;
  private final Path pressureFile;
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;
  private volatile IoPressure pressure;
  private volatile long readAtNanos;

  public NodeMetrics(
      Supplier<NodeCapabilities> capabilities,
      CgroupFiles files,
      Path procfs,
      Duration maxAge,
      LongSupplier nanoClock) {
    this.capabilities = capabilities;
    this.files = files;
    this.pressureFile = procfs.resolve("pressure/io");
    this.maxAgeNanos = maxAge.toNanos();
    this.nanoClock = nanoClock;
  }

  private static Map<String, Predicate<NodeCapabilities>> capabilities() {
    Map<String, Predicate<NodeCapabilities>> all = new LinkedHashMap<>();
    all.put("cgroup_v2", c -> c.cgroupVersion() == CgroupVersion.V2);
    all.put("io_controller", NodeCapabilities::ioUsable);
    all.put("psi", NodeCapabilities::psi);
    all.put("io_latency", NodeCapabilities::ioLatency);
    all.put("iocost", NodeCapabilities::iocostAvailable);
    all.put(
        "weights",
        c -> c.devices().stream().anyMatch(d -> d.weightMechanism() != WeightMechanism.NONE));
    return Collections.unmodifiableMap(all);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    CAPABILITIES.forEach(
        (name, test) ->
            Gauge.builder(CAPABILITY, capabilities, caps -> has(caps.get(), test))
                .strongReference(true)
                .description(
                    "1 when the node has the capability at the last probe, else 0: cgroup_v2,"
                        + " io_controller (io delegated down to kubepods), psi, io_latency, iocost"
                        + " (io.cost.qos exists), weights (a disk enforces weights: iocost or bfq)")
                .tag("capability", name)
                .register(registry));
    IoPressure first = sample();
    if (first == null) {
      return; // No PSI on this kernel: the probe reports psi 0, no pressure series.
    }
    counter(
        registry,
        PRESSURE_WAITING,
        "Time at least one task on the node waited on I/O (/proc/pressure/io some total)",
        IoPressure::some);
    if (first.full().isPresent()) {
      counter(
          registry,
          PRESSURE_STALLED,
          "Time all non-idle tasks on the node were stalled on I/O at once (/proc/pressure/io"
              + " full total)",
          p -> p.full().orElse(null));
    }
  }

  private static double has(NodeCapabilities caps, Predicate<NodeCapabilities> test) {
    return caps != null && test.test(caps) ? 1 : 0;
  }

  private void counter(
      MeterRegistry registry,
      String name,
      String description,
      Function<IoPressure, PressureLine> line) {
    FunctionCounter.builder(
            name,
            this,
            node -> {
              IoPressure current = node.sample();
              PressureLine selected = current == null ? null : line.apply(current);
              return selected == null ? 0 : selected.totalSeconds();
            })
        .description(description + ", as the kernel counts it since boot")
        .baseUnit("seconds")
        .register(registry);
  }

  /** The node's pressure, read again when older than {@code maxAge}; the last good one on error. */
  synchronized IoPressure sample() {
    long now = nanoClock.getAsLong();
    if (pressure != null && now - readAtNanos < maxAgeNanos) {
      return pressure;
    }
    try {
      pressure = IoPressure.parse(pressureFile.toString(), files.readPath(pressureFile));
    } catch (CgroupIoException | KernelFormatException e) {
      // Kept: a counter must not drop to zero because one read failed.
    }
    readAtNanos = now;
    return pressure;
  }
}
