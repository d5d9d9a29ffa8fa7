package dev.ioqos.cli;

import dev.ioqos.cgroup.DriverDetection;
import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.node.NodeConfig;
import dev.ioqos.node.NodeEngine;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The host roots and kubelet settings every node-side command takes; defaults are the host's. */
final class NodeOptions {
  @Option(
      names = "--cgroupfs",
      defaultValue = "/sys/fs/cgroup",
      description = "cgroup v2 mount (default: ${DEFAULT-VALUE})")
  Path cgroupfs;

  @Option(
      names = "--sysfs",
      defaultValue = "/sys",
      description = "sysfs root (default: ${DEFAULT-VALUE})")
  Path sysfs;

  @Option(
      names = "--procfs",
      defaultValue = "/proc",
      description = "procfs root (default: ${DEFAULT-VALUE})")
  Path procfs;

  @Option(
      names = "--devfs",
      defaultValue = "/dev",
      description = "device node directory (default: ${DEFAULT-VALUE})")
  Path devfs;

  @Option(
      names = "--cgroup-driver",
      defaultValue = "auto",
      description =
          "kubelet's cgroup driver: systemd, cgroupfs or auto (default: ${DEFAULT-VALUE})")
  String cgroupDriver;

  @Option(
      names = "--kubelet-cgroup-root",
      defaultValue = "/",
      description = "kubelet's cgroupRoot (default: ${DEFAULT-VALUE})")
  String kubeletCgroupRoot;

  @Option(
      names = "--kubelet-root-dir",
      defaultValue = "/var/lib/kubelet",
      description =
          "kubelet's root directory, for kubeletRoot device selectors (default: ${DEFAULT-VALUE})")
  String kubeletRootDir;

  /** The node's roots and kubelet settings for the node engine. */
  NodeConfig config() {
    return new NodeConfig(
        cgroupfs, sysfs, procfs, devfs, driver(), kubeletCgroupRoot, kubeletRootDir);
  }

  /** The node engine over these roots (probes once). */
  NodeEngine engine() {
    return new NodeEngine(config());
  }

  /** The explicit driver, or empty for auto-detection. */
  Optional<CgroupDriver> driver() {
    return "auto".equalsIgnoreCase(cgroupDriver.trim())
        ? Optional.empty()
        : Optional.of(CgroupDriver.parse(cgroupDriver));
  }

  /** The pod cgroup layout; auto-detection fails with a message naming both candidates. */
  PodCgroupLayout layout() {
    return DriverDetection.layout(cgroupfs, driver(), kubeletCgroupRoot);
  }

  /** The layout when it can be determined, for commands that report rather than act. */
  Optional<PodCgroupLayout> layoutIfFound() {
    try {
      return Optional.of(layout());
    } catch (IllegalStateException e) {
      return Optional.empty();
    }
  }
}
