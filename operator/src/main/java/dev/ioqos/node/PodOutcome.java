package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.Skipped;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one {@link PodPass} did to one pod and has to report: how it ended, the decision, the disks
 * and desired values, what the kernel was given and refused, and the Events for the pod's owner.
 * The agent hands it to its reporters, {@code ioqos reconcile} and {@code explain} render it.
 *
 * @param decision empty only for a pod known from the ledger alone (reverted by {@code ioqos
 *     apply})
 * @param cgroupPath the pod's cgroup relative to the mount; empty when it cannot be named
 * @param disks the disks the policy's selectors resolve to; empty when the pod is not managed
 * @param desired what the tier asks of this node; empty when the pod is not managed
 * @param written every kernel line written and read back
 * @param failures every refusal, typed by errno; also the unreachable cgroup of {@link
 *     Kind#CGROUP_MISSING}
 * @param ledgerFailure why the ledger could not record the change, for {@link Kind#LEDGER_FAILED}
 * @param problem one sentence on why the pod does not hold its values, for the node's state; null
 *     when it does
 * @param reverted the ledger entry a revert restored (or tried to)
 * @param kernelTime how long the writes and read-backs took; empty when the kernel was not asked
 * @param retry true when the pod should be looked at again soon (the cgroup or kubepods is not
 *     there yet, or could not be reached), sooner than the periodic resync
 */
public record PodOutcome(
    Kind kind,
    PodFacts pod,
    Optional<PodDecision> decision,
    Optional<String> cgroupPath,
    Optional<DiskSelection> disks,
    Optional<DesiredSettings> desired,
    List<String> written,
    List<Skipped> skipped,
    List<CgroupIoException> failures,
    Optional<LedgerWriteException> ledgerFailure,
    List<PodEvent> events,
    String problem,
    Optional<LedgerEntry> reverted,
    Optional<Duration> kernelTime,
    boolean retry) {

  /** How a pass ended; each kind has a fixed meaning for every caller. */
  public enum Kind {
    /** Every value of the tier was written and read back. */
    APPLIED(true),
    /** The kernel and the ledger held every value already: read, nothing written. */
    UNCHANGED(true),
    /** At least one write was refused or read back different, or the cgroup was unsafe. */
    FAILED(false),
    /** Computed and reported only (policy in DryRun, or the agent's dry run). */
    DRY_RUN(true),
    /** No policy places the pod in a tier, and there is nothing of ioqos's to restore. */
    NOT_MANAGED(true),
    /** The pod left every tier: what ioqos had written was restored to the kernel defaults. */
    REVERTED(true),
    /** Restoring the defaults was refused. */
    REVERT_FAILED(false),
    /** The pod's cgroup does not exist (kubelet has not made it yet): nothing written. */
    CGROUP_MISSING(false),
    /** A revert found the cgroup gone with its pod: its ledger entry was dropped. */
    FORGOTTEN(true),
    /** The pod's UID is not a UUID: no path is built from it. */
    INVALID_POD(false),
    /** kubepods was not found on this node, so no pod cgroup can be located. */
    NODE_NOT_READY(false),
    /**
     * A fact the decision depends on (node labels, the namespace) is not known: nothing was written
     * or reverted, the cgroup keeps what it holds until the fact is known.
     */
    FACTS_UNKNOWN(false),
    /**
     * The ledger could not record the change (disk full, read-only, I/O error), so the cgroup was
     * not written (or, when recording what was written failed, the ledger holds more than the
     * cgroup, never less); retried.
     */
    LEDGER_FAILED(false);

    private final boolean ok;

    Kind(boolean ok) {
      this.ok = ok;
    }

    /** False when the pod does not hold what it should. */
    public boolean ok() {
      return ok;
    }
  }

  public PodOutcome {
    written = List.copyOf(written);
    skipped = List.copyOf(skipped);
    failures = List.copyOf(failures);
    events = List.copyOf(events);
  }

  /** True when a tier applies to the pod. */
  public boolean managed() {
    return decision.map(PodDecision::managed).orElse(false);
  }
}
