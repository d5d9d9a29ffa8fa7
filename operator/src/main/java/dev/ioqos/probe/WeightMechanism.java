package dev.ioqos.probe;

import java.util.Locale;

/** What actually enforces a cgroup's io weight on one disk. */
public enum WeightMechanism {
  /** iocost is enabled on the disk: io.weight is enforced. */
  IOCOST,
  /** The disk's scheduler is bfq: io.bfq.weight (1..1000) is enforced. */
  BFQ,
  /** Weights are accepted by the kernel and do nothing on this disk. */
  NONE;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
