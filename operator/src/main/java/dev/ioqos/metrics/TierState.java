package dev.ioqos.metrics;

/** How a managed pod's tier stands after its last pass. */
public enum TierState {
  /** Every value of the tier was written and read back. */
  APPLIED,
  /** At least one write was refused or read back different: the tier is not (fully) in force. */
  FAILED,
  /** Computed only (agent or policy in dry run): nothing is written, nothing is expected. */
  DRY_RUN
}
