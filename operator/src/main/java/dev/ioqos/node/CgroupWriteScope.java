package dev.ioqos.node;

import dev.ioqos.core.PodCgroupLayout;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What of the host's cgroup tree the agent can write, as its mounts allow: only kubelet's kubepods
 * cgroup (the chart's narrow mount, the tree read-only with kubepods read-write on top), or the
 * whole tree (the chart's {@code cgroupDriver: auto}, where the kubepods directory is only found on
 * the node, or the iocost opt-in, which writes the root's {@code io.cost.qos}). A whole tree the
 * agent does not need is told with the chart values that narrow it, for this node's layout.
 *
 * @param narrow true when the agent can write no more than it needs
 * @param reason {@code KubepodsOnly}, {@code IocostNeedsRoot} or {@code WholeTreeWritable}
 * @param message one sentence for the node's condition
 */
public record CgroupWriteScope(boolean narrow, String reason, String message) {

  /**
   * @param cgroupfs where the host's cgroup2 tree is mounted
   * @param layout kubelet's layout on this node, when found
   * @param iocostOptIn whether the admin asked the agent to switch iocost on (the root's file)
   * @param writable whether the mount lets the agent write a directory (not the file modes: the
   *     agent is root)
   */
  public static CgroupWriteScope of(
      Path cgroupfs,
      Optional<PodCgroupLayout> layout,
      boolean iocostOptIn,
      Predicate<Path> writable) {
    if (!writable.test(cgroupfs)) {
      return new CgroupWriteScope(
          true,
          "KubepodsOnly",
          "the host's cgroup tree is read-only for the agent"
              + layout.map(l -> " but " + l.kubepodsPath()).orElse(""));
    }
    if (iocostOptIn) {
      return new CgroupWriteScope(
          true,
          "IocostNeedsRoot",
          "the whole cgroup tree is writable: the iocost opt-in writes the root's io.cost.qos");
    }
    String narrowing =
        layout
            .map(
                l ->
                    "kubelet's pods are under "
                        + l.kubepodsPath()
                        + " here: install with agent.cgroupDriver="
                        + l.driver()
                        + (l.cgroupRoot().parts().isEmpty()
                            ? ""
                            : " and agent.kubeletCgroupRoot=" + l.cgroupRoot().toCgroupfs())
                        + " to mount only that read-write")
            .orElse("set agent.cgroupDriver to kubelet's driver to mount only kubepods read-write");
    return new CgroupWriteScope(
        false,
        "WholeTreeWritable",
        "the agent can write the host's whole cgroup tree (it could freeze or kill kubelet, the"
            + " container runtime or the host's services); "
            + narrowing);
  }
}
