package dev.ioqos.probe;

import java.util.List;
import java.util.Optional;

/** The result of one capability probe: what this node's kernel and cgroup tree can enforce. */
public record NodeCapabilities(
    CgroupVersion cgroupVersion,
    boolean ioController,
    KubepodsCapability kubepods,
    boolean psi,
    boolean ioLatency,
    boolean iocostAvailable,
    String kernelRelease,
    List<DiskCapability> devices) {

  public NodeCapabilities {
    devices = List.copyOf(devices);
  }

  public Optional<KubepodsCapability> kubepodsIfFound() {
    return Optional.ofNullable(kubepods);
  }

  /** True when pod cgroups can get io.max and io.weight at all. */
  public boolean ioUsable() {
    return cgroupVersion == CgroupVersion.V2
        && ioController
        && kubepods != null
        && kubepods.ioEnabled();
  }
}
