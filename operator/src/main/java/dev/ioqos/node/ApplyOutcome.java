package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.core.policy.Skipped;
import java.util.List;

/**
 * The result of applying (or reverting) one pod: what the kernel now holds, what was skipped
 * because the node cannot enforce it, and every write the kernel refused. A pod with some writes
 * applied and some refused is reported as failed, never as applied.
 */
public record ApplyOutcome(
    List<String> written,
    List<Skipped> skipped,
    List<CgroupIoException> failures,
    boolean unchanged) {

  public ApplyOutcome(
      List<String> written, List<Skipped> skipped, List<CgroupIoException> failures) {
    this(written, skipped, failures, false);
  }

  public ApplyOutcome {
    written = List.copyOf(written);
    skipped = List.copyOf(skipped);
    failures = List.copyOf(failures);
  }

  /**
   * The kernel already held every value and the ledger already recorded them (a resync, or an
   * update of the pod that changes nothing for ioqos): nothing was written.
   */
  public static ApplyOutcome unchanged(List<Skipped> skipped) {
    return new ApplyOutcome(List.of(), skipped, List.of(), true);
  }

  public boolean failed() {
    return !failures.isEmpty();
  }

  /** One line for Events and logs. */
  public String summary() {
    if (failed()) {
      CgroupIoException first = failures.get(0);
      return first.getMessage()
          + (failures.size() > 1 ? " (and " + (failures.size() - 1) + " more)" : "")
          + (written.isEmpty() ? "" : "; applied: " + String.join(", ", written));
    }
    if (unchanged) {
      return "the kernel holds every value already";
    }
    return written.isEmpty() ? "nothing to write" : String.join(", ", written);
  }
}
