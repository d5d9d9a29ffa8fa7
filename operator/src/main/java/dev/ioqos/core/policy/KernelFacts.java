package dev.ioqos.core.policy;

/** Which io interface files the pod's cgroup offers on this node. */
public record KernelFacts(boolean ioLatency, boolean ioMax) {

  /** io.max and io.latency both present. */
  public static final KernelFacts ALL = new KernelFacts(true, true);
}
