package dev.ioqos.core.policy;

import dev.ioqos.core.IoLimits;
import dev.ioqos.core.WeightRange;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One tier of a policy: its io.weight (1..10000), io.max limits ({@link IoLimits#NONE} when it has
 * none) and io.latency target; an absent weight or target leaves that setting alone.
 */
public record TierSpec(
    String name, OptionalInt weight, IoLimits limits, OptionalLong latencyTargetMicros) {

  public TierSpec {
    Immutables.text(name, "tier name");
    Objects.requireNonNull(weight, "weight");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(latencyTargetMicros, "latencyTargetMicros");
    if (weight.isPresent()) {
      WeightRange.IO_WEIGHT.check(weight.getAsInt());
    }
    // target=0 would remove the target rather than set one.
    if (latencyTargetMicros.isPresent() && latencyTargetMicros.getAsLong() <= 0) {
      throw new IllegalArgumentException(
          "tier "
              + name
              + ": latency target must be positive, was "
              + latencyTargetMicros.getAsLong()
              + "us");
    }
  }

  /** A tier with only a weight. */
  public static TierSpec weighted(String name, int weight) {
    return new TierSpec(name, OptionalInt.of(weight), IoLimits.NONE, OptionalLong.empty());
  }

  public boolean hasLimits() {
    return !limits.isUnlimited();
  }
}
