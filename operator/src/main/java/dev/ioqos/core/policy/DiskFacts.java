package dev.ioqos.core.policy;

import dev.ioqos.core.DeviceId;
import java.util.Objects;

/** One whole disk a policy targets on this node, with what enforces weights on it. */
public record DiskFacts(
    DeviceId id, String name, String scheduler, WeightMechanism weightMechanism) {

  public DiskFacts {
    Objects.requireNonNull(id, "id");
    Immutables.text(name, "disk name");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(weightMechanism, "weightMechanism");
  }
}
