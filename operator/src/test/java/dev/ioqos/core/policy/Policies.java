package dev.ioqos.core.policy;

import dev.ioqos.core.QosClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Test builder for {@link PolicyRules}: everything defaulted as the API defaults it. */
final class Policies {
  private final String name;
  private int priority;
  private LabelSelectorRule nodeSelector;
  private LabelSelectorRule namespaceSelector;
  private LabelSelectorRule podSelector;
  private String tierAnnotation;
  private String defaultTier;
  private final Map<String, String> byPriorityClass = new HashMap<>();
  private final Map<QosClass, String> byQosClass = new HashMap<>();
  private final List<DeviceSelectorRule> devices = new ArrayList<>();
  private final List<TierSpec> tiers = new ArrayList<>();
  private PolicyRules.Mode mode;
  private final Map<String, LabelSelectorRule> annotationNamespaces = new HashMap<>();

  private Policies(String name) {
    this.name = name;
  }

  static Policies policy(String name) {
    return new Policies(name);
  }

  Policies priority(int value) {
    priority = value;
    return this;
  }

  Policies nodeSelector(LabelSelectorRule value) {
    nodeSelector = value;
    return this;
  }

  Policies namespaceSelector(LabelSelectorRule value) {
    namespaceSelector = value;
    return this;
  }

  Policies podSelector(LabelSelectorRule value) {
    podSelector = value;
    return this;
  }

  Policies tierAnnotation(String value) {
    tierAnnotation = value;
    return this;
  }

  Policies defaultTier(String value) {
    defaultTier = value;
    return this;
  }

  Policies fromPriorityClass(String priorityClass, String tier) {
    byPriorityClass.put(priorityClass, tier);
    return this;
  }

  Policies fromQosClass(QosClass qos, String tier) {
    byQosClass.put(qos, tier);
    return this;
  }

  Policies device(DeviceSelectorRule value) {
    devices.add(value);
    return this;
  }

  Policies tier(TierSpec value) {
    tiers.add(value);
    return this;
  }

  /** Adds weighted tiers named as given, weight 100 each. */
  Policies tiers(String... names) {
    for (String tierName : names) {
      tiers.add(TierSpec.weighted(tierName, 100));
    }
    return this;
  }

  Policies annotationNamespaces(String tier, LabelSelectorRule allowed) {
    annotationNamespaces.put(tier, allowed);
    return this;
  }

  Policies mode(PolicyRules.Mode value) {
    mode = value;
    return this;
  }

  PolicyRules build() {
    return new PolicyRules(
        name,
        1,
        priority,
        nodeSelector,
        namespaceSelector,
        podSelector,
        tierAnnotation,
        Optional.ofNullable(defaultTier),
        byPriorityClass,
        byQosClass,
        devices,
        tiers.isEmpty() ? List.of(TierSpec.weighted("standard", 100)) : tiers,
        mode,
        annotationNamespaces);
  }

  /** A pod in namespace {@code shop} with the given labels and annotations. */
  static PodFacts pod(Map<String, String> labels, Map<String, String> annotations) {
    return new PodFacts(
        "shop",
        "web-0",
        "0b6a7f6e-2f4c-4f4e-9d59-6f1f4c2b7a10",
        labels,
        annotations,
        Map.of("team", "shop"),
        Optional.empty(),
        QosClass.BURSTABLE);
  }

  static final NodeFacts NODE = new NodeFacts("node-1", Map.of("disk", "ssd"));
}
