package dev.ioqos.core.policy;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/** The policy resolver of DESIGN.md: pod and node facts plus policies to a decision and a plan. */
public final class PolicyResolver {
  private PolicyResolver() {}

  /** Picks the pod's policy, then its tier within that policy. */
  public static PodDecision decide(PodFacts pod, NodeFacts node, Collection<PolicyRules> policies) {
    PolicySelection selection = PolicySelection.select(pod, node, policies);
    TierResolution resolution =
        selection
            .winner()
            .map(policy -> TierResolution.resolve(policy, pod))
            .orElse(TierResolution.NONE);
    return new PodDecision(selection, resolution);
  }

  /**
   * The settings for a decision on the disks its device selectors resolved to; {@link
   * DesiredSettings#NOTHING} when the pod is not managed. The plan is the same in DryRun mode:
   * whether to write it is the caller's choice ({@link PodDecision#dryRun()}).
   */
  public static DesiredSettings plan(
      PodDecision decision, List<DiskFacts> disks, KernelFacts kernel) {
    Objects.requireNonNull(decision, "decision");
    return decision
        .tier()
        .map(tier -> Planner.plan(tier, disks, kernel))
        .orElse(DesiredSettings.NOTHING);
  }
}
