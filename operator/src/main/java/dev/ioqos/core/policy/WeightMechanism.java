package dev.ioqos.core.policy;

import java.util.Locale;

/**
 * What enforces a cgroup's io weight on one disk, as the node's probe found it (IoNodeState shows
 * it as {@code weightMechanism}).
 */
public enum WeightMechanism {
  /** iocost is enabled on the disk: io.weight is enforced. */
  IOCOST,
  /** The disk's scheduler is bfq: io.bfq.weight (1..1000) is enforced. */
  BFQ,
  /** The kernel accepts weights and ignores them on this disk. */
  NONE;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
