package dev.ioqos.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The weights of kubelet's QoS slices as the agent's slice step left them, one gauge per slice and
 * weight file ({@code ioqos_qos_slice_io_weight{slice,file}}), and the slice weights it found
 * re-written behind its back and repaired ({@code ioqos_qos_slice_drift_repaired_total}).
 */
public final class SliceMetrics implements MeterBinder {
  static final String WEIGHT = "ioqos.qos.slice.io.weight";
  static final String DRIFT = "ioqos.qos.slice.drift.repaired";

  private final Map<String, AtomicInteger> values = new ConcurrentHashMap<>();
  private final Map<String, Meter.Id> ids = new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;
  private volatile Counter drift;

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
    this.drift =
        Counter.builder(DRIFT)
            .description(
                "QoS slice weights found different from what ioqos wrote (kubelet or systemd"
                    + " re-wrote them), then repaired")
            .register(registry);
  }

  /**
   * The slice weights after a step, as {@code slice path -> (file -> default weight)}; series of
   * slices and files no longer listed go.
   */
  public void update(Map<String, Map<String, Integer>> weights, int driftRepaired) {
    MeterRegistry target = registry;
    if (target == null) {
      return;
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    weights.forEach(
        (slice, files) ->
            files.forEach(
                (file, weight) -> {
                  String key = slice + " " + file;
                  seen.add(key);
                  values
                      .computeIfAbsent(
                          key,
                          k -> {
                            AtomicInteger value = new AtomicInteger();
                            ids.put(
                                k,
                                Gauge.builder(WEIGHT, value, AtomicInteger::get)
                                    .description(
                                        "The default weight of a QoS slice (kubepods burstable or"
                                            + " besteffort) in io.weight or io.bfq.weight, as the"
                                            + " slice step left it")
                                    .tag("slice", slice)
                                    .tag("file", file)
                                    .register(target)
                                    .getId());
                            return value;
                          })
                      .set(weight);
                }));
    for (String key : java.util.List.copyOf(values.keySet())) {
      if (!seen.contains(key)) {
        values.remove(key);
        Meter.Id id = ids.remove(key);
        if (id != null) {
          target.remove(id);
        }
      }
    }
    if (driftRepaired > 0) {
      drift.increment(driftRepaired);
    }
  }
}
