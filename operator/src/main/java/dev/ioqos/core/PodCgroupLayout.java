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

  /**
   * The UID of the pod whose directory, in the QoS class's directory, is named {@code
   * directoryName} ({@code pod<uid>} for cgroupfs, {@code kubepods-burstable-pod<uid_>.slice} for
   * systemd); empty for any other name (a QoS slice, a container scope, a stray directory).
   */
  public java.util.Optional<PodUid> podUidOf(QosClass qos, String directoryName) {
    String rendered = podPath(qos, PLACEHOLDER);
    String template = rendered.substring(rendered.lastIndexOf('/') + 1);
    String uidAsRendered =
        driver == CgroupDriver.SYSTEMD
            ? PLACEHOLDER.value().replace('-', '_')
            : PLACEHOLDER.value();
    int at = template.indexOf(uidAsRendered);
    String prefix = template.substring(0, at);
    String suffix = template.substring(at + uidAsRendered.length());
    if (!directoryName.startsWith(prefix)
        || !directoryName.endsWith(suffix)
        || directoryName.length() != template.length()) {
      return java.util.Optional.empty();
    }
    String uid = directoryName.substring(prefix.length(), directoryName.length() - suffix.length());
    try {
      return java.util.Optional.of(
          PodUid.of(driver == CgroupDriver.SYSTEMD ? uid.replace('_', '-') : uid));
    } catch (IllegalArgumentException e) {
      return java.util.Optional.empty();
    }
  }

  private static final PodUid PLACEHOLDER = PodUid.of("00000000-0000-4000-8000-000000000000");

  private CgroupName qosName(QosClass qos) {
    return qos.cgroupPart() == null ? kubepodsName() : kubepodsName().child(qos.cgroupPart());
  }
}
