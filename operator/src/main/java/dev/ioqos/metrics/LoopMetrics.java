package dev.ioqos.metrics;

import dev.ioqos.core.IoLimits;
import dev.ioqos.core.policy.LatencyLoop;
import dev.ioqos.node.LatencyLoopStep;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The latency loop's gauges, per disk and per pod of the disks where it runs: the protected pods'
 * smoothed latency and target, the lower pods' throttled state and dynamic caps, the disk's mean
 * completion times. Series of pods and disks the loop no longer watches go.
 */
public final class LoopMetrics implements MeterBinder {
  static final String POD_LATENCY = "ioqos.latency.loop.pod.latency";
  static final String POD_TARGET = "ioqos.latency.loop.pod.target";
  static final String THROTTLED = "ioqos.latency.loop.pod.throttled";
  static final String CAP_BYTES = "ioqos.latency.loop.pod.cap.bytes.per.second";
  static final String DISK_LATENCY = "ioqos.latency.loop.disk.latency";

  private final Map<String, AtomicLong> values = new ConcurrentHashMap<>();
  private final Map<String, Meter.Id> ids = new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The gauges after one tick. */
  public void update(LatencyLoopStep.Report report, List<LatencyLoopStep.Member> members) {
    MeterRegistry target = registry;
    if (target == null) {
      return;
    }
    Set<String> seen = new HashSet<>();
    for (LatencyLoopStep.DiskReport disk : report.disks()) {
      String device = disk.disk().id().toString();
      Tags diskTags = Tags.of("device", device, "device_name", disk.disk().name());
      disk.result()
          .diskReadMicros()
          .ifPresent(
              us ->
                  set(
                      target,
                      seen,
                      DISK_LATENCY,
                      diskTags.and("direction", "read"),
                      us / 1e6,
                      "seconds",
                      "The disk's mean completion time in the loop's last period"));
      disk.result()
          .diskWriteMicros()
          .ifPresent(
              us ->
                  set(
                      target,
                      seen,
                      DISK_LATENCY,
                      diskTags.and("direction", "write"),
                      us / 1e6,
                      "seconds",
                      "The disk's mean completion time in the loop's last period"));
      for (LatencyLoop.PodState pod : disk.result().pods()) {
        LatencyLoopStep.Member member =
            members.stream().filter(m -> m.uid().equals(pod.uid())).findFirst().orElse(null);
        if (member == null) {
          continue;
        }
        Tags tags = diskTags.and("namespace", member.namespace(), "pod", member.name());
        if (pod.latencyTargetMicros().isPresent()) {
          set(
              target,
              seen,
              POD_TARGET,
              tags,
              pod.latencyTargetMicros().getAsLong() / 1e6,
              "seconds",
              "The latency target of a protected pod's tier, enforced by the loop");
          pod.latencyMicros()
              .ifPresent(
                  us ->
                      set(
                          target,
                          seen,
                          POD_LATENCY,
                          tags,
                          us / 1e6,
                          "seconds",
                          "A protected pod's latency as the loop estimates it (smoothed)"));
          continue;
        }
        set(
            target,
            seen,
            THROTTLED,
            tags,
            pod.throttled() ? 1 : 0,
            null,
            "1 while the loop holds the pod below its tier's static io.max");
        if (pod.throttled()) {
          capBytes(target, seen, tags, "read", pod.limits().get(IoLimits.Key.RBPS));
          capBytes(target, seen, tags, "write", pod.limits().get(IoLimits.Key.WBPS));
        }
      }
    }
    for (String key : List.copyOf(values.keySet())) {
      if (!seen.contains(key)) {
        values.remove(key);
        Meter.Id id = ids.remove(key);
        if (id != null) {
          target.remove(id);
        }
      }
    }
  }

  private void capBytes(
      MeterRegistry target,
      Set<String> seen,
      Tags tags,
      String direction,
      java.util.OptionalLong value) {
    if (value.isPresent()) {
      set(
          target,
          seen,
          CAP_BYTES,
          tags.and("direction", direction),
          value.getAsLong(),
          null,
          "The dynamic io.max byte cap the loop holds a lower-tier pod at");
    }
  }

  private void set(
      MeterRegistry target,
      Set<String> seen,
      String name,
      Tags tags,
      double value,
      String unit,
      String description) {
    String key = name + " " + tags;
    seen.add(key);
    values
        .computeIfAbsent(
            key,
            k -> {
              AtomicLong bits = new AtomicLong();
              Gauge.Builder<AtomicLong> builder =
                  Gauge.builder(name, bits, b -> Double.longBitsToDouble(b.get()))
                      .description(description)
                      .tags(tags);
              if (unit != null) {
                builder.baseUnit(unit);
              }
              ids.put(k, builder.register(target).getId());
              return bits;
            })
        .set(Double.doubleToLongBits(value));
  }
}
