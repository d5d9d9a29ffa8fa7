package dev.ioqos.probe;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.policy.WeightMechanism;

/** What the kernel can enforce on one whole disk. */
public record DiskCapability(
    String name,
    DeviceId majMin,
    String scheduler,
    boolean rotational,
    boolean iocost,
    WeightMechanism weightMechanism) {

  static WeightMechanism mechanismFor(boolean iocost, String scheduler) {
    if (iocost) {
      return WeightMechanism.IOCOST;
    }
    return "bfq".equals(scheduler) ? WeightMechanism.BFQ : WeightMechanism.NONE;
  }
}
