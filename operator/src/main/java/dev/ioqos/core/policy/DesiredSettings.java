package dev.ioqos.core.policy;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.WeightRange;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What to write into one pod's cgroup: the cgroup-wide {@code default} lines of io.weight and
 * io.bfq.weight, io.max per disk, io.latency targets per disk, plus the weight each disk ends up
 * enforcing and every setting skipped because this node cannot enforce it. An absent value means
 * "do not write"; a disk in {@link #limits} with {@link IoLimits#NONE} means "write all max".
 */
public record DesiredSettings(
    OptionalInt ioWeight,
    OptionalInt bfqWeight,
    Map<DeviceId, DiskWeight> diskWeights,
    Map<DeviceId, IoLimits> limits,
    Map<DeviceId, Long> latencyTargetsMicros,
    List<Skipped> skipped) {

  /** Nothing to write and nothing skipped: a pod no policy manages. */
  public static final DesiredSettings NOTHING =
      new DesiredSettings(
          OptionalInt.empty(), OptionalInt.empty(), Map.of(), Map.of(), Map.of(), List.of());

  /** The weight that takes effect on one disk and the file that carries it (never NONE). */
  public record DiskWeight(WeightMechanism via, int weight) {
    public DiskWeight {
      Objects.requireNonNull(via, "via");
      if (via == WeightMechanism.NONE) {
        throw new IllegalArgumentException("a disk without weight enforcement has no weight");
      }
      (via == WeightMechanism.BFQ ? WeightRange.BFQ_WEIGHT : WeightRange.IO_WEIGHT).check(weight);
    }
  }

  public DesiredSettings {
    Objects.requireNonNull(ioWeight, "ioWeight");
    Objects.requireNonNull(bfqWeight, "bfqWeight");
    ioWeight.ifPresent(WeightRange.IO_WEIGHT::check);
    bfqWeight.ifPresent(WeightRange.BFQ_WEIGHT::check);
    diskWeights = Immutables.map(diskWeights, "diskWeights");
    limits = Immutables.map(limits, "limits");
    latencyTargetsMicros = Immutables.map(latencyTargetsMicros, "latencyTargetsMicros");
    skipped = Immutables.list(skipped, "skipped");
  }

  /** The values to write, as one value that prints its own kernel lines. */
  public IoSettings settings() {
    return new IoSettings(ioWeight, bfqWeight, limits, latencyTargetsMicros);
  }

  /** True when the plan writes no file at all (it may still report skipped settings). */
  public boolean writesNothing() {
    return ioWeight.isEmpty()
        && bfqWeight.isEmpty()
        && limits.isEmpty()
        && latencyTargetsMicros.isEmpty();
  }
}
