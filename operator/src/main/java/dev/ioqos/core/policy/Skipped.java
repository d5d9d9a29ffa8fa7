package dev.ioqos.core.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * A setting the tier asks for that this node cannot enforce, with the disk it concerns (empty when
 * it concerns the whole node) and why; reported as a condition, an Event and a metric.
 */
public record Skipped(Feature feature, Optional<DiskFacts> disk, String reason) {

  /** The cgroup io feature that was skipped. */
  public enum Feature {
    IO_WEIGHT("io.weight"),
    IO_MAX("io.max"),
    IO_LATENCY("io.latency");

    private final String fileName;

    Feature(String fileName) {
      this.fileName = fileName;
    }

    /** The cgroupfs file the feature lives in. */
    public String fileName() {
      return fileName;
    }

    @Override
    public String toString() {
      return fileName;
    }
  }

  public Skipped {
    Objects.requireNonNull(feature, "feature");
    Objects.requireNonNull(disk, "disk");
    Immutables.text(reason, "reason");
  }
}
