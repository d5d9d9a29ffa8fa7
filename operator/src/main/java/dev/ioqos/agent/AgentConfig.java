package dev.ioqos.agent;

import dev.ioqos.node.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code ioqos run} is told: the node, its trees, where state lives, how often to look.
 */
public record AgentConfig(
    String nodeName,
    NodeConfig node,
    Path stateDir,
    boolean dryRun,
    Duration resync,
    boolean enableIocost) {

  /** Without the iocost opt-in, the default. */
  public AgentConfig(
      String nodeName, NodeConfig node, Path stateDir, boolean dryRun, Duration resync) {
    this(nodeName, node, stateDir, dryRun, resync, false);
  }

  public AgentConfig {
    if (nodeName == null || nodeName.isBlank()) {
      throw new IllegalArgumentException("the node name is required: set NODE_NAME or --node-name");
    }
    if (resync.isNegative() || resync.isZero()) {
      throw new IllegalArgumentException("--resync must be positive, not " + resync);
    }
  }
}
