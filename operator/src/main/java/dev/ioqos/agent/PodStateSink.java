package dev.ioqos.agent;

/** Where each managed pod's last result goes (this node's IoNodeState, in the agent). */
public interface PodStateSink {
  void record(String uid, NodeStateReporter.PodResult result);

  void forget(String uid);
}
