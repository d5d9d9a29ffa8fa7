package dev.ioqos.node;

import dev.ioqos.core.IoSettings;
import java.util.Objects;

/**
 * What ioqos wrote into one pod's cgroup: enough to restore the kernel defaults for exactly those
 * files and devices later, also after a restart. The file form is {@link LedgerRecord}.
 *
 * @param policy the policy the values came from; null while a revert is under way
 * @param tier the tier the values came from; null while a revert is under way
 * @param held the values ioqos set and may have to restore
 */
public record LedgerEntry(
    String uid,
    String namespace,
    String name,
    String cgroupPath,
    String policy,
    String tier,
    IoSettings held) {

  public LedgerEntry {
    Objects.requireNonNull(uid, "uid");
    held = held == null ? IoSettings.NONE : held;
  }

  /** True when nothing is recorded as written. */
  public boolean isEmpty() {
    return held.isEmpty();
  }
}
