package dev.ioqos.core.policy;

import dev.ioqos.core.QosClass;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One IoPolicy as the decision needs it, with the API's defaults filled in. The constructor
 * re-checks what admission should have refused (duplicate tiers, fallbacks naming no tier, no
 * tiers), so a policy that slipped past an older API server is refused with a clear message instead
 * of resolving pods to tiers that do not exist.
 */
public record PolicyRules(
    String name,
    long generation,
    int priority,
    LabelSelectorRule nodeSelector,
    LabelSelectorRule namespaceSelector,
    LabelSelectorRule podSelector,
    String tierAnnotation,
    Optional<String> defaultTier,
    Map<String, String> tierFromPriorityClasses,
    Map<QosClass, String> tierFromQosClasses,
    List<DeviceSelectorRule> devices,
    List<TierSpec> tiers,
    Mode mode,
    Map<String, LabelSelectorRule> annotationNamespaces) {

  /** The annotation that names a pod's tier when a policy does not choose another. */
  public static final String DEFAULT_TIER_ANNOTATION = "ioqos.dev/tier";

  /** Whether a policy's values are written or only computed and reported. */
  public enum Mode {
    ENFORCE,
    DRY_RUN
  }

  public PolicyRules {
    Immutables.text(name, "policy name");
    nodeSelector = Objects.requireNonNullElse(nodeSelector, LabelSelectorRule.EVERYTHING);
    namespaceSelector = Objects.requireNonNullElse(namespaceSelector, LabelSelectorRule.EVERYTHING);
    podSelector = Objects.requireNonNullElse(podSelector, LabelSelectorRule.EVERYTHING);
    tierAnnotation =
        tierAnnotation == null || tierAnnotation.isBlank()
            ? DEFAULT_TIER_ANNOTATION
            : tierAnnotation;
    defaultTier =
        Objects.requireNonNullElse(defaultTier, Optional.<String>empty())
            .filter(tier -> !tier.isBlank());
    tierFromPriorityClasses = Immutables.map(tierFromPriorityClasses, "tierFrom.priorityClasses");
    tierFromQosClasses = Immutables.map(tierFromQosClasses, "tierFrom.qosClasses");
    devices = Immutables.list(devices, "devices");
    if (devices.isEmpty()) {
      devices = List.of(new DeviceSelectorRule.KubeletRoot());
    }
    tiers = Immutables.list(tiers, "tiers");
    mode = Objects.requireNonNullElse(mode, Mode.ENFORCE);
    annotationNamespaces = Immutables.map(annotationNamespaces, "annotationNamespaces");
    checkTiers(name, tiers, defaultTier, tierFromPriorityClasses, tierFromQosClasses);
  }

  /** A policy whose tiers any namespace's pods may choose with the annotation. */
  public PolicyRules(
      String name,
      long generation,
      int priority,
      LabelSelectorRule nodeSelector,
      LabelSelectorRule namespaceSelector,
      LabelSelectorRule podSelector,
      String tierAnnotation,
      Optional<String> defaultTier,
      Map<String, String> tierFromPriorityClasses,
      Map<QosClass, String> tierFromQosClasses,
      List<DeviceSelectorRule> devices,
      List<TierSpec> tiers,
      Mode mode) {
    this(
        name,
        generation,
        priority,
        nodeSelector,
        namespaceSelector,
        podSelector,
        tierAnnotation,
        defaultTier,
        tierFromPriorityClasses,
        tierFromQosClasses,
        devices,
        tiers,
        mode,
        Map.of());
  }

  /**
   * Whether a pod in a namespace with these labels may choose {@code tierName} with the annotation
   * (tiers without annotationNamespaceSelector: any namespace).
   */
  public boolean annotationAllowed(String tierName, Map<String, String> namespaceLabels) {
    LabelSelectorRule allowed = annotationNamespaces.get(tierName);
    return allowed == null || allowed.matches(namespaceLabels);
  }

  /** The tier called {@code tierName}, if this policy defines one. */
  public Optional<TierSpec> tier(String tierName) {
    for (TierSpec tier : tiers) {
      if (tier.name().equals(tierName)) {
        return Optional.of(tier);
      }
    }
    return Optional.empty();
  }

  /** The tier names in declaration order, for messages. */
  public List<String> tierNames() {
    return tiers.stream().map(TierSpec::name).toList();
  }

  /** True when node, namespace and pod selectors all select the pod on this node. */
  public boolean selects(PodFacts pod, NodeFacts node) {
    return nodeSelector.matches(node.labels())
        && namespaceSelector.matches(pod.namespaceLabels())
        && podSelector.matches(pod.labels());
  }

  private static void checkTiers(
      String policy,
      List<TierSpec> tiers,
      Optional<String> defaultTier,
      Map<String, String> byPriorityClass,
      Map<QosClass, String> byQosClass) {
    if (tiers.isEmpty()) {
      throw new IllegalArgumentException("IoPolicy " + policy + ": spec.tiers must not be empty");
    }
    Set<String> names = new HashSet<>();
    for (TierSpec tier : tiers) {
      if (!names.add(tier.name())) {
        throw new IllegalArgumentException(
            "IoPolicy " + policy + ": tier name " + tier.name() + " is used more than once");
      }
    }
    List<String> unknown = new ArrayList<>();
    defaultTier
        .filter(tier -> !names.contains(tier))
        .ifPresent(tier -> unknown.add("defaultTier -> " + tier));
    byPriorityClass.forEach(
        (priorityClass, tier) -> {
          if (!names.contains(tier)) {
            unknown.add("tierFrom.priorityClasses[" + priorityClass + "] -> " + tier);
          }
        });
    byQosClass.forEach(
        (qos, tier) -> {
          if (!names.contains(tier)) {
            unknown.add("tierFrom.qosClasses[" + qos.kubernetesName() + "] -> " + tier);
          }
        });
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "IoPolicy "
              + policy
              + ": "
              + String.join(", ", unknown)
              + " names no tier in spec.tiers "
              + names.stream().sorted().toList());
    }
  }
}
