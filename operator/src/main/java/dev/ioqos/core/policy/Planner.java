package dev.ioqos.core.policy;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoWeight;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Turns a tier into the values this node can enforce on the targeted disks, and names what it
 * skips. The weight goes into the cgroup-wide {@code default} line, as systemd's IOWeight= does: it
 * is written when at least one targeted disk enforces it, and never when none does, so no value
 * that the kernel silently ignores is ever written or reported as applied.
 */
public final class Planner {
  static final String NO_DISK = "the policy's devices match no disk on this node";
  static final String NO_IO_MAX =
      "io.max is missing from the pod's cgroup: the io controller is not enabled on its path";
  static final String NO_IO_LATENCY =
      "kernel lacks io.latency (CONFIG_BLK_CGROUP_IOLATENCY): the agent's latency loop enforces"
          + " the target through the io.max of the policy's lower tiers";

  private Planner() {}

  /**
   * Plans one pod's settings. A disk listed twice (two selectors resolving to the same disk) is
   * planned once.
   */
  public static DesiredSettings plan(TierSpec tier, List<DiskFacts> disks, KernelFacts kernel) {
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(kernel, "kernel");
    Map<DeviceId, DiskFacts> targeted = new TreeMap<>();
    disks.forEach(disk -> targeted.putIfAbsent(disk.id(), disk));
    List<Skipped> skipped = new ArrayList<>();
    if (targeted.isEmpty()) {
      requested(tier).forEach(feature -> skipped.add(nodeWide(feature, NO_DISK)));
      return new DesiredSettings(
          OptionalInt.empty(), OptionalInt.empty(), Map.of(), Map.of(), Map.of(), skipped);
    }

    OptionalInt ioWeight = OptionalInt.empty();
    OptionalInt bfqWeight = OptionalInt.empty();
    Map<DeviceId, DesiredSettings.DiskWeight> diskWeights = new TreeMap<>();
    if (tier.weight().isPresent()) {
      int weight = tier.weight().getAsInt();
      for (DiskFacts disk : targeted.values()) {
        switch (disk.weightMechanism()) {
          case IOCOST -> {
            ioWeight = OptionalInt.of(weight);
            diskWeights.put(
                disk.id(), new DesiredSettings.DiskWeight(disk.weightMechanism(), weight));
          }
          case BFQ -> {
            // bfq has its own 1..1000 scale; scaled like systemd so both agree on one node.
            int bfq = IoWeight.toBfqWeight(weight);
            bfqWeight = OptionalInt.of(bfq);
            diskWeights.put(disk.id(), new DesiredSettings.DiskWeight(disk.weightMechanism(), bfq));
          }
          case NONE -> skipped.add(weightNotEnforced(disk));
        }
      }
    }

    // A tier without limits still claims io.max on its disks (all max), so that moving a pod
    // from a capped tier to an uncapped one lifts the cap.
    Map<DeviceId, IoLimits> limits = new TreeMap<>();
    if (kernel.ioMax()) {
      targeted.keySet().forEach(id -> limits.put(id, tier.limits()));
    } else if (tier.hasLimits()) {
      skipped.add(nodeWide(Skipped.Feature.IO_MAX, NO_IO_MAX));
    }

    Map<DeviceId, Long> latency = new TreeMap<>();
    if (tier.latencyTargetMicros().isPresent()) {
      if (kernel.ioLatency()) {
        targeted.keySet().forEach(id -> latency.put(id, tier.latencyTargetMicros().getAsLong()));
      } else {
        skipped.add(nodeWide(Skipped.Feature.IO_LATENCY, NO_IO_LATENCY));
      }
    }
    return new DesiredSettings(ioWeight, bfqWeight, diskWeights, limits, latency, skipped);
  }

  /** The reason a weight is not enforced on a disk, with the two ways to get it enforced. */
  static Skipped weightNotEnforced(DiskFacts disk) {
    return new Skipped(
        Skipped.Feature.IO_WEIGHT,
        Optional.of(disk),
        "io.weight is not enforced on "
            + disk.name()
            + ": scheduler "
            + (disk.scheduler().isEmpty() ? "unknown" : disk.scheduler())
            + " and iocost off; enable iocost or use bfq");
  }

  private static Skipped nodeWide(Skipped.Feature feature, String reason) {
    return new Skipped(feature, Optional.empty(), reason);
  }

  private static List<Skipped.Feature> requested(TierSpec tier) {
    List<Skipped.Feature> features = new ArrayList<>();
    if (tier.weight().isPresent()) {
      features.add(Skipped.Feature.IO_WEIGHT);
    }
    if (tier.hasLimits()) {
      features.add(Skipped.Feature.IO_MAX);
    }
    if (tier.latencyTargetMicros().isPresent()) {
      features.add(Skipped.Feature.IO_LATENCY);
    }
    return features;
  }
}
