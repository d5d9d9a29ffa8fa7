package dev.ioqos.node;

import dev.ioqos.core.policy.DeviceSelectorRule;
import java.util.Objects;

/**
 * A device selector of a policy that did not resolve to whole disks on this node.
 *
 * @param message one sentence naming the input at fault, for Events and the node's state
 */
public record DiskProblem(DeviceSelectorRule selector, String message) {
  public DiskProblem {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(message, "message");
  }
}
