package dev.ioqos.core.policy;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which IoPolicy governs a pod: among the policies whose node, namespace and pod selectors all
 * match, the highest priority wins; a tie at the top goes to the lexicographically smallest name
 * and is reported as a conflict naming every tied policy.
 */
public record PolicySelection(
    Optional<PolicyRules> winner, List<String> matchingPolicies, List<String> conflictingPolicies) {

  /** No policy selects the pod. */
  public static final PolicySelection NONE =
      new PolicySelection(Optional.empty(), List.of(), List.of());

  /** Highest priority first, then by name so that every node breaks a tie the same way. */
  static final Comparator<PolicyRules> PRECEDENCE =
      Comparator.comparingInt(PolicyRules::priority).reversed().thenComparing(PolicyRules::name);

  public PolicySelection {
    Objects.requireNonNull(winner, "winner");
    matchingPolicies = Immutables.list(matchingPolicies, "matchingPolicies");
    conflictingPolicies = Immutables.list(conflictingPolicies, "conflictingPolicies");
  }

  public static PolicySelection select(
      PodFacts pod, NodeFacts node, Collection<PolicyRules> policies) {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(node, "node");
    List<PolicyRules> candidates =
        policies.stream().filter(policy -> policy.selects(pod, node)).sorted(PRECEDENCE).toList();
    if (candidates.isEmpty()) {
      return NONE;
    }
    PolicyRules winner = candidates.get(0);
    List<String> tied =
        candidates.stream()
            .filter(policy -> policy.priority() == winner.priority())
            .map(PolicyRules::name)
            .toList();
    return new PolicySelection(
        Optional.of(winner),
        candidates.stream().map(PolicyRules::name).toList(),
        tied.size() > 1 ? tied : List.of());
  }

  public boolean hasConflict() {
    return !conflictingPolicies.isEmpty();
  }
}
