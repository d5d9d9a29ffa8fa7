package dev.ioqos.agent;

import dev.ioqos.node.PodEvent;
import dev.ioqos.node.PodTarget;

/** Where the agent's Events on pods go (the API server, rate limited, in the agent). */
public interface PodEventSink {
  void post(PodTarget pod, PodEvent event);

  /** Forgets what was posted for a pod that went away. */
  void forget(String uid);
}
