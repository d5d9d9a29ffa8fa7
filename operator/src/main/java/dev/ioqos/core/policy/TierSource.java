package dev.ioqos.core.policy;

/** Where a pod's tier came from, in the order they are tried. */
public enum TierSource {
  /** The policy's tier annotation on the pod named a tier of the policy. */
  ANNOTATION,
  /** {@code tierFrom.priorityClasses} mapped the pod's priorityClassName. */
  PRIORITY_CLASS,
  /** {@code tierFrom.qosClasses} mapped the pod's QoS class. */
  QOS_CLASS,
  /** The policy's {@code defaultTier}. */
  DEFAULT_TIER,
  /** Nothing placed the pod: the policy does not manage it. */
  NONE
}
