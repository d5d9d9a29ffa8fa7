package dev.ioqos.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Times every apply and revert of a pod (each is a series of cgroup writes and read-backs) and
 * counts their outcomes: {@code ioqos_apply_total{operation, result}} and {@code
 * ioqos_apply_duration_seconds{operation}}. Every series exists from the start at zero, so that
 * {@code increase()} sees the first failure.
 */
public final class ApplyMetrics implements MeterBinder {
  static final String TOTAL = "ioqos.apply";
  static final String DURATION = "ioqos.apply.duration";

  /** What was done to the pod's cgroup. */
  public enum Operation {
    /** Writing a tier's values. */
    APPLY,
    /** Restoring the kernel defaults after the pod left every policy. */
    REVERT;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How it ended. */
  public enum Result {
    /** Every write was accepted and read back. */
    SUCCESS,
    /** A write was refused or read back different. */
    FAILURE,
    /** The pod's cgroup is not there (not created yet by kubelet, or gone): nothing written. */
    CGROUP_MISSING;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Map<Operation, Timer> timers = new EnumMap<>(Operation.class);
  private final Map<Operation, Map<Result, Counter>> counters = new EnumMap<>(Operation.class);

  @Override
  public void bindTo(MeterRegistry registry) {
    for (Operation operation : Operation.values()) {
      timers.put(
          operation,
          Timer.builder(DURATION)
              .description(
                  "Time to write a pod's cgroup io files and read them back, per apply or revert")
              .tag("operation", operation.label())
              .serviceLevelObjectives(
                  Duration.ofMillis(1),
                  Duration.ofMillis(5),
                  Duration.ofMillis(25),
                  Duration.ofMillis(100),
                  Duration.ofMillis(500),
                  Duration.ofMillis(2500))
              .register(registry));
      Map<Result, Counter> byResult = new EnumMap<>(Result.class);
      for (Result result : Result.values()) {
        byResult.put(
            result,
            Counter.builder(TOTAL)
                .description(
                    "Applies and reverts of a pod's io settings by outcome; failure means the"
                        + " kernel refused a value or read back another")
                .tag("operation", operation.label())
                .tag("result", result.label())
                .register(registry));
      }
      counters.put(operation, byResult);
    }
  }

  /** Counts one apply or revert by how it ended and records how long its writes took. */
  public void record(Operation operation, Result result, Duration took) {
    Timer timer = timers.get(operation);
    if (timer != null) {
      timer.record(took);
      counters.get(operation).get(result).increment();
    }
  }
}
