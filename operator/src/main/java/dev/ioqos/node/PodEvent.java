package dev.ioqos.node;

import dev.ioqos.core.policy.TierWarning;

/** An Event a pod pass has for the pod's owner: its type, a fixed reason and one sentence. */
public record PodEvent(Type type, Reason reason, String message) {

  /** Normal or Warning, as Kubernetes spells them. */
  public enum Type {
    Normal,
    Warning
  }

  /**
   * Every reason a pod pass posts; {@link #text()} is the Event's reason as Kubernetes shows it.
   */
  public enum Reason {
    APPLIED("Applied"),
    APPLY_FAILED("ApplyFailed"),
    NOT_ENFORCED("NotEnforced"),
    DRY_RUN("DryRun"),
    REVERTED("Reverted"),
    REVERT_FAILED("RevertFailed"),
    DEVICE_NOT_RESOLVED("DeviceNotResolved"),
    POLICY_CONFLICT("PolicyConflict"),
    UNKNOWN_TIER("UnknownTier"),
    TIER_NOT_ALLOWED("TierNotAllowed"),
    INVALID_POD("InvalidPod"),
    NODE_NOT_READY("NodeNotReady");

    private final String text;

    Reason(String text) {
      this.text = text;
    }

    public String text() {
      return text;
    }

    /** The reason for a warning of the core's tier resolution. */
    static Reason of(TierWarning warning) {
      if (warning instanceof TierWarning.UnknownTier) {
        return UNKNOWN_TIER;
      }
      if (warning instanceof TierWarning.TierNotAllowed) {
        return TIER_NOT_ALLOWED;
      }
      throw new IllegalArgumentException("no Event reason for " + warning);
    }
  }

  public PodEvent {
    // The agent posted a null message as the reason itself: an Event needs some text.
    message = message == null ? reason.text() : message;
  }

  static PodEvent normal(Reason reason, String message) {
    return new PodEvent(Type.Normal, reason, message);
  }

  static PodEvent warning(Reason reason, String message) {
    return new PodEvent(Type.Warning, reason, message);
  }
}
