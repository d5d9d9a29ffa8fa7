package dev.ioqos.demo;

import dev.ioqos.core.QosClass;
import dev.ioqos.node.NodeConfig;
import java.nio.file.Path;

/** The node the demo's agent runs on: where pod cgroups appear, as kubelet would create them. */
public interface DemoNode extends AutoCloseable {

  /** The trees and kubelet settings the agent is given. */
  NodeConfig config();

  /** One line saying what this node is, for the demo's output. */
  String description();

  /** Creates a pod's cgroup as kubelet would and returns its directory. */
  Path createPod(String uid, QosClass qos);

  /**
   * Makes the pod's io.stat and io.pressure show I/O, as a kernel counts it; {@code scale} varies
   * the numbers between pods.
   *
   * @return false when this node's counters are the kernel's own and cannot be written
   */
  boolean simulateIo(Path podDir, int scale);

  /** Removes the pod cgroups this node created. */
  @Override
  void close();
}
