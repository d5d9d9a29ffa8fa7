package dev.ioqos.node;

/** The pod ioqos acts on: its identity and its cgroup directory relative to the cgroup mount. */
public record PodTarget(String uid, String namespace, String name, String cgroupPath) {
  public PodTarget(dev.ioqos.core.policy.PodFacts pod, String cgroupPath) {
    this(pod.uid(), pod.namespace(), pod.name(), cgroupPath);
  }

  public String qualifiedName() {
    return namespace + "/" + name;
  }
}
