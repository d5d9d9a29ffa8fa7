package dev.ioqos.core.policy;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLatency;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoMaxLine;
import dev.ioqos.core.IoWeight;
import dev.ioqos.core.WeightRange;

/**
 * The values a pod cgroup has before ioqos writes anything, which a revert restores (DESIGN.md,
 * ledger): {@code default 100} in io.weight and io.bfq.weight, all four io.max keys at max, and no
 * io.latency target.
 */
public final class Defaults {
  /** The default of both io.weight and io.bfq.weight. */
  public static final int WEIGHT = WeightRange.DEFAULT;

  /** Unlimited: writing it removes the device's io.max line. */
  public static final IoLimits LIMITS = IoLimits.NONE;

  private Defaults() {}

  /** {@code default 100}, for io.weight. */
  public static String ioWeightLine() {
    return IoWeight.defaultLine(WEIGHT);
  }

  /** {@code default 100}, for io.bfq.weight (same spelling, same default as io.weight). */
  public static String bfqWeightLine() {
    return IoWeight.defaultLine(WeightRange.BFQ_WEIGHT.check(WEIGHT));
  }

  /** {@code MAJ:MIN rbps=max wbps=max riops=max wiops=max}. */
  public static String ioMaxLine(DeviceId device) {
    return new IoMaxLine(device, LIMITS).toKernelLine();
  }

  /** {@code MAJ:MIN target=max}: removes the device's io.latency target. */
  public static String latencyLine(DeviceId device) {
    return IoLatency.resetLine(device);
  }
}
