package dev.ioqos.core.policy;

import java.util.List;

/** Something wrong with a pod's tier request that its owner should hear about as an Event. */
public sealed interface TierWarning {

  /** A CamelCase Event reason, e.g. {@code UnknownTier}. */
  String reason();

  /** One sentence for the Event, naming the pod's input at fault. */
  String message();

  /** The pod's tier annotation names a tier the governing policy does not define. */
  record UnknownTier(String policy, String annotation, String requested, List<String> knownTiers)
      implements TierWarning {

    public UnknownTier {
      knownTiers = Immutables.list(knownTiers, "knownTiers");
    }

    @Override
    public String reason() {
      return "UnknownTier";
    }

    @Override
    public String message() {
      return "annotation "
          + annotation
          + "="
          + requested
          + " names no tier of IoPolicy "
          + policy
          + " (its tiers: "
          + String.join(", ", knownTiers)
          + "), so the pod is placed as if it had no annotation";
    }
  }

  /**
   * The pod's tier annotation names a tier its namespace may not choose (the tier's
   * annotationNamespaceSelector).
   */
  record TierNotAllowed(String policy, String annotation, String requested, String namespace)
      implements TierWarning {

    @Override
    public String reason() {
      return "TierNotAllowed";
    }

    @Override
    public String message() {
      return "annotation "
          + annotation
          + "="
          + requested
          + " names a tier of IoPolicy "
          + policy
          + " that pods of namespace "
          + namespace
          + " may not choose (the tier's annotationNamespaceSelector), so the pod is placed as if"
          + " it had no annotation";
    }
  }
}
