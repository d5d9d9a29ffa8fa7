package dev.ioqos.core;

import java.util.Objects;

/**
 * Where kubelet puts pod cgroups on one node: its cgroup driver and cgroupRoot. Renders the
 * kubepods directory and a pod's directory as paths relative to the cgroup v2 mount.
 */
public record PodCgroupLayout(CgroupDriver driver, CgroupName cgroupRoot) {

  public PodCgroupLayout {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(cgroupRoot, "cgroupRoot");
  }

  public static PodCgroupLayout of(CgroupDriver driver, String kubeletCgroupRoot) {
    return new PodCgroupLayout(driver, CgroupName.parseCgroupRoot(kubeletCgroupRoot));
  }

  public CgroupName kubepodsName() {
    return cgroupRoot.child("kubepods");
  }

  /** The kubepods directory, e.g. {@code /kubepods.slice} or {@code /kubepods}. */
  public String kubepodsPath() {
    return kubepodsName().render(driver);
  }

  /** The QoS class's directory, e.g. {@code /kubepods.slice/kubepods-burstable.slice}. */
  public String qosPath(QosClass qos) {
    return qosName(qos).render(driver);
  }

  /** The pod's directory, e.g. {@code /kubepods/besteffort/pod<uid>}. */
  public String podPath(QosClass qos, PodUid uid) {
    return qosName(qos).child("pod" + uid.value()).render(driver);
  }

  private CgroupName qosName(QosClass qos) {
    return qos.cgroupPart() == null ? kubepodsName() : kubepodsName().child(qos.cgroupPart());
  }
}
