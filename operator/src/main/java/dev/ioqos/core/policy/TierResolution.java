package dev.ioqos.core.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The tier a policy gives a pod and where it came from: the policy's tier annotation, then
 * tierFrom.priorityClasses, tierFrom.qosClasses, defaultTier; none of them means the policy does
 * not manage the pod.
 */
public record TierResolution(
    Optional<TierSpec> tier, TierSource source, List<TierWarning> warnings) {

  /** The pod is not placed in any tier. */
  public static final TierResolution NONE =
      new TierResolution(Optional.empty(), TierSource.NONE, List.of());

  public TierResolution {
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(source, "source");
    warnings = Immutables.list(warnings, "warnings");
    if (tier.isPresent() == (source == TierSource.NONE)) {
      throw new IllegalArgumentException("a tier needs a source, and source NONE no tier");
    }
  }

  public static TierResolution resolve(PolicyRules policy, PodFacts pod) {
    List<TierWarning> warnings = new ArrayList<>();
    // An empty annotation value reads as "no request" rather than a request for tier "": it is
    // how users blank an annotation with kubectl annotate or a kustomize patch.
    String requested = pod.annotations().get(policy.tierAnnotation());
    if (requested != null && !requested.isEmpty()) {
      Optional<TierSpec> annotated = policy.tier(requested);
      if (annotated.isPresent() && !policy.annotationAllowed(requested, pod.namespaceLabels())) {
        // The admin keeps this tier from the pod's namespace: placed as if unannotated.
        warnings.add(
            new TierWarning.TierNotAllowed(
                policy.name(), policy.tierAnnotation(), requested, pod.namespace()));
      } else if (annotated.isPresent()) {
        return new TierResolution(annotated, TierSource.ANNOTATION, warnings);
      } else {
        // A typo must not strand the pod: warn, then place it as if it had no annotation.
        warnings.add(
            new TierWarning.UnknownTier(
                policy.name(), policy.tierAnnotation(), requested, policy.tierNames()));
      }
    }
    Optional<String> byPriorityClass =
        pod.priorityClassName().map(policy.tierFromPriorityClasses()::get);
    if (byPriorityClass.isPresent()) {
      return placed(policy, byPriorityClass.get(), TierSource.PRIORITY_CLASS, warnings);
    }
    String byQosClass = policy.tierFromQosClasses().get(pod.qosClass());
    if (byQosClass != null) {
      return placed(policy, byQosClass, TierSource.QOS_CLASS, warnings);
    }
    if (policy.defaultTier().isPresent()) {
      return placed(policy, policy.defaultTier().get(), TierSource.DEFAULT_TIER, warnings);
    }
    return new TierResolution(Optional.empty(), TierSource.NONE, warnings);
  }

  public boolean managed() {
    return tier.isPresent();
  }

  private static TierResolution placed(
      PolicyRules policy, String tierName, TierSource source, List<TierWarning> warnings) {
    // PolicyRules refuses fallbacks that name no tier, so this lookup cannot miss.
    TierSpec tier =
        policy
            .tier(tierName)
            .orElseThrow(() -> new IllegalStateException("policy lost tier " + tierName));
    return new TierResolution(Optional.of(tier), source, warnings);
  }
}
