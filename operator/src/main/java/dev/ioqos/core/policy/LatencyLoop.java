package dev.ioqos.core.policy;

import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoLimits.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Latency protection for one disk where the kernel has no io.latency: a pure controller that, at
 * each period, takes the disk's and the pods' I/O counter deltas and returns the io.max each
 * lower-tier pod should hold. It throttles only pods of a lower tier than a protected pod of the
 * same policy (a tier with a {@code latencyTarget}), and only while that protected pod does I/O and
 * its estimated latency is above its target; it never caps a pod below a floor nor above its tier's
 * static limits, and gives the disk back (the static limits) once the protected pods are idle.
 *
 * <p>The law: a protected pod's latency is estimated from the disk's completion times of the
 * directions it uses (ticks per completed I/O in {@code /sys/block/DISK/stat}), weighted by its own
 * reads and writes, and smoothed (EWMA, {@link Parameters#smoothing}). Above the target:
 * multiplicative decrease of each lower pod's scale (its cap relative to the rate it had when first
 * throttled) from the smaller of its scale and its observed rate, then one period of hold (the
 * effect of a write shows in the next period's counters). Below {@link Parameters#band} times the
 * target: additive increase of the scale; at 1 the cap is lifted. Between the two: hold. The dead
 * band is what keeps the loop from oscillating: as long as one increase step moves the latency by
 * less than the band's width, the scale stops inside the band and stays there.
 */
public final class LatencyLoop {

  /**
   * The loop's constants.
   *
   * @param periodMillis how often the caller samples and calls {@link #step}
   * @param smoothing the EWMA weight of the newest latency sample (1 = no smoothing)
   * @param decrease the factor a scale is multiplied by above the target
   * @param increase the scale added per period below the band
   * @param band the fraction of the target below which the scale increases
   * @param floorFraction the lowest scale: a throttled pod keeps at least this share of its rate
   * @param floorBytesPerSecond the lowest byte cap ever written
   * @param floorIops the lowest IOPS cap ever written
   * @param releaseAfterIdlePeriods periods without protected I/O after which caps are lifted
   * @param confirmPeriods consecutive periods above the target before a decrease (1: none): a
   *     single period's spike (seen under emulation: 4-19 ms for one period) does not halve a cap
   */
  public record Parameters(
      long periodMillis,
      double smoothing,
      double decrease,
      double increase,
      double band,
      double floorFraction,
      long floorBytesPerSecond,
      long floorIops,
      int releaseAfterIdlePeriods,
      int confirmPeriods) {

    /** The values the agent runs with (documented in the architecture page). */
    public static final Parameters DEFAULT =
        new Parameters(250, 0.5, 0.5, 0.05, 0.8, 0.02, 1 << 20, 16, 2, 2);

    public Parameters {
      if (periodMillis <= 0
          || smoothing <= 0
          || smoothing > 1
          || decrease <= 0
          || decrease >= 1
          || increase <= 0
          || band <= 0
          || band >= 1
          || floorFraction <= 0
          || floorFraction >= 1
          || floorBytesPerSecond <= 0
          || floorIops <= 0
          || releaseAfterIdlePeriods < 1
          || confirmPeriods < 1) {
        throw new IllegalArgumentException("latency loop parameters out of range: " + this);
      }
    }
  }

  /**
   * One pod on the disk during one period.
   *
   * @param policy the policy that places the pod in its tier
   * @param rank the tier's position in the policy's {@code tiers} (0 = first, the highest)
   * @param latencyTargetMicros the tier's target; empty for a tier without one
   * @param staticLimits the tier's io.max on this disk ({@link IoLimits#NONE} when none)
   * @param delta the pod's io.stat counters on this disk since the previous period
   */
  public record PodSample(
      String uid,
      String policy,
      int rank,
      OptionalLong latencyTargetMicros,
      IoLimits staticLimits,
      Counters delta) {
    public PodSample {
      Objects.requireNonNull(uid, "uid");
      Objects.requireNonNull(policy, "policy");
      Objects.requireNonNull(latencyTargetMicros, "latencyTargetMicros");
      Objects.requireNonNull(staticLimits, "staticLimits");
      Objects.requireNonNull(delta, "delta");
    }

    boolean isProtected() {
      return latencyTargetMicros.isPresent();
    }

    /** True when this pod may be throttled for {@code guard}: same policy, lower tier. */
    boolean below(PodSample guard) {
      return !isProtected() && policy.equals(guard.policy) && rank > guard.rank;
    }
  }

  /** io.stat deltas of one pod on one disk. */
  public record Counters(long rbytes, long wbytes, long rios, long wios) {
    public static final Counters ZERO = new Counters(0, 0, 0, 0);

    long ios() {
      return rios + wios;
    }

    long get(Key key) {
      return switch (key) {
        case RBPS -> rbytes;
        case WBPS -> wbytes;
        case RIOPS -> rios;
        case WIOPS -> wios;
      };
    }
  }

  /**
   * The disk's deltas from {@code /sys/block/DISK/stat}: completed reads and writes and the
   * milliseconds they took in total (fields 1, 4, 5 and 8).
   */
  public record DiskCounters(long reads, long readMillis, long writes, long writeMillis) {}

  /** What one pod holds after a period. */
  public record PodState(
      String uid,
      boolean throttled,
      double scale,
      IoLimits limits,
      OptionalDouble latencyMicros,
      OptionalLong latencyTargetMicros) {}

  /**
   * The loop's answer for a period.
   *
   * @param pods every pod of the sample, protected ones with their smoothed latency
   * @param changed the pods whose io.max must be written now, with the line to write (the static
   *     limits when a cap is lifted)
   * @param diskReadMicros the disk's mean read completion time in the period, when it read
   * @param diskWriteMicros the disk's mean write completion time in the period, when it wrote
   */
  public record Result(
      List<PodState> pods,
      Map<String, IoLimits> changed,
      OptionalDouble diskReadMicros,
      OptionalDouble diskWriteMicros) {
    public Result {
      pods = List.copyOf(pods);
      changed = Map.copyOf(changed);
    }

    public Optional<PodState> pod(String uid) {
      return pods.stream().filter(p -> p.uid().equals(uid)).findFirst();
    }
  }

  /** A throttled pod's memory. */
  private static final class Throttle {
    final Map<Key, Double> baseline = new LinkedHashMap<>();
    double scale = 1;
    boolean holdNext;
    IoLimits written = IoLimits.NONE;
  }

  private final Parameters parameters;
  private final Map<String, Double> smoothed = new HashMap<>();
  private final Map<String, Integer> above = new HashMap<>();
  private final Map<String, Throttle> throttles = new HashMap<>();
  private int idlePeriods;

  public LatencyLoop(Parameters parameters) {
    this.parameters = Objects.requireNonNull(parameters, "parameters");
  }

  public Parameters parameters() {
    return parameters;
  }

  /** The pods this loop currently holds below their static limits. */
  public Map<String, IoLimits> throttled() {
    Map<String, IoLimits> out = new LinkedHashMap<>();
    throttles.forEach((uid, t) -> out.put(uid, t.written));
    return out;
  }

  /**
   * Forgets a pod (gone, or no longer in a throttleable tier): the caller restores its static
   * limits itself.
   */
  public void forget(String uid) {
    throttles.remove(uid);
    smoothed.remove(uid);
    above.remove(uid);
  }

  /**
   * One period.
   *
   * @param seconds the period's actual length
   */
  public Result step(double seconds, DiskCounters disk, List<PodSample> pods) {
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("a period must have a positive length: " + seconds);
    }
    OptionalDouble readMicros = mean(disk.readMillis(), disk.reads());
    OptionalDouble writeMicros = mean(disk.writeMillis(), disk.writes());
    List<PodSample> violated = new ArrayList<>();
    List<PodSample> active = new ArrayList<>();
    boolean anyComfortable = false;
    for (PodSample pod : pods) {
      if (!pod.isProtected()) {
        continue;
      }
      if (pod.delta().ios() == 0) {
        smoothed.remove(pod.uid()); // idle: its next busy period starts afresh
        above.remove(pod.uid());
        continue;
      }
      active.add(pod);
      double sample = estimate(pod.delta(), readMicros, writeMicros);
      double latency =
          smoothed.containsKey(pod.uid())
              ? smoothed.get(pod.uid())
                  + parameters.smoothing() * (sample - smoothed.get(pod.uid()))
              : sample;
      smoothed.put(pod.uid(), latency);
      long target = pod.latencyTargetMicros().getAsLong();
      int periodsAbove = latency > target ? above.merge(pod.uid(), 1, Integer::sum) : 0;
      if (latency <= target) {
        above.remove(pod.uid());
      }
      if (periodsAbove >= parameters.confirmPeriods()) {
        violated.add(pod);
      } else if (latency > target) {
        continue; // above, not yet confirmed: hold
      } else if (latency < parameters.band() * target) {
        anyComfortable = true;
      }
    }
    idlePeriods = active.isEmpty() ? idlePeriods + 1 : 0;
    Map<String, IoLimits> changed = new LinkedHashMap<>();
    List<PodState> states = new ArrayList<>();
    for (PodSample pod : pods) {
      if (pod.isProtected()) {
        states.add(
            new PodState(
                pod.uid(),
                false,
                1,
                pod.staticLimits(),
                smoothed.containsKey(pod.uid())
                    ? OptionalDouble.of(smoothed.get(pod.uid()))
                    : OptionalDouble.empty(),
                pod.latencyTargetMicros()));
        continue;
      }
      boolean guarded = active.stream().anyMatch(pod::below);
      boolean hurting = violated.stream().anyMatch(pod::below);
      Throttle throttle = throttles.get(pod.uid());
      if (throttle == null && hurting && pod.delta().ios() > 0) {
        throttle = new Throttle();
        for (Key key : Key.values()) {
          double rate = pod.delta().get(key) / seconds;
          if (rate > 0) {
            throttle.baseline.put(key, rate);
          }
        }
        throttles.put(pod.uid(), throttle);
      }
      if (throttle != null) {
        if (!guarded && idlePeriods >= parameters.releaseAfterIdlePeriods()) {
          throttle.scale = 1; // the protected pods are idle: the disk goes back at once
        } else if (hurting && !throttle.holdNext && pod.delta().ios() > 0) {
          throttle.scale =
              Math.max(
                  parameters.floorFraction(),
                  Math.min(throttle.scale, observedScale(throttle, pod.delta(), seconds))
                      * parameters.decrease());
          throttle.holdNext = true;
        } else if (hurting) {
          // After a decrease, or a throttled pod that did no I/O: not the cause this period.
          throttle.holdNext = false;
        } else if (!guarded || (anyComfortable && violated.isEmpty())) {
          throttle.scale = Math.min(1, throttle.scale + parameters.increase());
          throttle.holdNext = false;
        }
        IoLimits next =
            throttle.scale >= 1 ? pod.staticLimits() : cap(throttle, pod.staticLimits());
        if (throttle.scale >= 1) {
          throttles.remove(pod.uid());
          if (!throttle.written.equals(IoLimits.NONE)) {
            changed.put(pod.uid(), next);
          }
          throttle = null;
        } else if (!next.equals(throttle.written)) {
          throttle.written = next;
          changed.put(pod.uid(), next);
        }
      }
      states.add(
          new PodState(
              pod.uid(),
              throttle != null,
              throttle == null ? 1 : throttle.scale,
              throttle == null ? pod.staticLimits() : throttle.written,
              OptionalDouble.empty(),
              OptionalLong.empty()));
    }
    return new Result(states, changed, readMicros, writeMicros);
  }

  /** The pod's rate this period relative to its baseline, on the key where it is highest. */
  private static double observedScale(Throttle throttle, Counters delta, double seconds) {
    double scale = 0;
    for (Map.Entry<Key, Double> entry : throttle.baseline.entrySet()) {
      scale = Math.max(scale, delta.get(entry.getKey()) / seconds / entry.getValue());
    }
    return scale;
  }

  /** The cap for a scale: each key the pod used, never below the floor nor above the static. */
  private IoLimits cap(Throttle throttle, IoLimits staticLimits) {
    IoLimits limits = staticLimits;
    for (Map.Entry<Key, Double> entry : throttle.baseline.entrySet()) {
      Key key = entry.getKey();
      boolean bytes = key == Key.RBPS || key == Key.WBPS;
      long floor =
          Math.max(
              bytes ? parameters.floorBytesPerSecond() : parameters.floorIops(),
              (long) (parameters.floorFraction() * entry.getValue()));
      long value = Math.max(floor, (long) (throttle.scale * entry.getValue()));
      OptionalLong fixed = staticLimits.get(key);
      if (fixed.isPresent()) {
        value = Math.min(value, fixed.getAsLong());
      }
      limits = limits.with(key, value);
    }
    return limits;
  }

  /** The protected pod's latency: the disk's per-direction means, weighted by its own mix. */
  private static double estimate(
      Counters delta, OptionalDouble readMicros, OptionalDouble writeMicros) {
    double sum = 0;
    long weight = 0;
    if (delta.rios() > 0 && readMicros.isPresent()) {
      sum += readMicros.getAsDouble() * delta.rios();
      weight += delta.rios();
    }
    if (delta.wios() > 0 && writeMicros.isPresent()) {
      sum += writeMicros.getAsDouble() * delta.wios();
      weight += delta.wios();
    }
    return weight == 0 ? 0 : sum / weight;
  }

  private static OptionalDouble mean(long millis, long count) {
    return count > 0 ? OptionalDouble.of(millis * 1000.0 / count) : OptionalDouble.empty();
  }
}
