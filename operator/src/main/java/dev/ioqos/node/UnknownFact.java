package dev.ioqos.node;

/**
 * A fact the decision needs that the agent could not read (yet). Unknown is not "matches nothing":
 * a pass that depends on an unknown fact keeps what the pod's cgroup holds and tries again.
 */
public enum UnknownFact {
  /** The own Node could not be read: its labels, for policies' nodeSelector. */
  NODE_LABELS("the labels of this node could not be read yet"),
  /** The pod's Namespace is not known (yet): its labels, for policies' namespaceSelector. */
  NAMESPACE_LABELS("the pod's namespace is not known yet");

  private final String text;

  UnknownFact(String text) {
    this.text = text;
  }

  /** Half a sentence for Events and the node's state. */
  public String text() {
    return text;
  }
}
