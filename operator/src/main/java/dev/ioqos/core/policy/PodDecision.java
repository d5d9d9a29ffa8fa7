package dev.ioqos.core.policy;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything decided for one pod before the node is looked at: the governing policy and any tie,
 * the tier and where it came from, warnings for the pod's owner, the mode and the device selectors
 * the caller resolves to disks before calling {@link Planner#plan}.
 */
public record PodDecision(PolicySelection selection, TierResolution resolution) {

  public PodDecision {
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(resolution, "resolution");
    if (selection.winner().isEmpty() && resolution.managed()) {
      throw new IllegalArgumentException("a tier needs a policy");
    }
  }

  public Optional<PolicyRules> policy() {
    return selection.winner();
  }

  /** Names of every policy tied at the top priority, smallest (the winner) first; else empty. */
  public List<String> conflictingPolicies() {
    return selection.conflictingPolicies();
  }

  public Optional<TierSpec> tier() {
    return resolution.tier();
  }

  public TierSource source() {
    return resolution.source();
  }

  public List<TierWarning> warnings() {
    return resolution.warnings();
  }

  /** The winning policy's mode; empty when no policy selects the pod. */
  public Optional<PolicyRules.Mode> mode() {
    return selection.winner().map(PolicyRules::mode);
  }

  /** The winning policy's device selectors; empty when the pod is not managed. */
  public List<DeviceSelectorRule> devices() {
    return managed() ? selection.winner().get().devices() : List.of();
  }

  /**
   * True when a tier applies. When false, nothing is to be written for this pod, and whatever an
   * earlier decision wrote is for the caller to revert to {@link Defaults}.
   */
  public boolean managed() {
    return resolution.managed();
  }

  /** True when the winning policy computes and reports only. */
  public boolean dryRun() {
    return mode().orElse(PolicyRules.Mode.ENFORCE) == PolicyRules.Mode.DRY_RUN;
  }
}
