package dev.ioqos.core.policy;

import java.util.Map;

/** What the decision needs to know about the node the agent runs on. */
public record NodeFacts(String name, Map<String, String> labels) {

  public NodeFacts {
    Immutables.text(name, "node name");
    labels = Immutables.map(labels, "node labels");
  }
}
