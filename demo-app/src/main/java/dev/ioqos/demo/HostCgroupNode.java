package dev.ioqos.demo;

import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import dev.ioqos.node.NodeConfig;
import dev.ioqos.probe.CapabilityProbe;
import dev.ioqos.probe.CgroupVersion;
import dev.ioqos.probe.NodeCapabilities;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The host's own cgroup v2 tree: pod cgroups go below a dedicated kubelet cgroup root (cgroupfs
 * driver), with {@code io} enabled in {@code cgroup.subtree_control} from the root down, as kubelet
 * does. Everything it created is removed on {@link #close()}; the root's {@code +io} stays, as
 * other cgroups may rely on it.
 */
final class HostCgroupNode implements DemoNode {
  static final String CGROUP_ROOT = "/ioqos-demo";

  private final NodeConfig config;
  private final PodCgroupLayout layout;
  private final List<Path> created = new ArrayList<>();

  /**
   * @param kubeletRootDir a host directory whose disk the demo policy targets
   */
  HostCgroupNode(Path cgroupfs, Path sysfs, Path procfs, Path devfs, String kubeletRootDir) {
    this.config =
        new NodeConfig(
            cgroupfs,
            sysfs,
            procfs,
            devfs,
            Optional.of(CgroupDriver.CGROUPFS),
            CGROUP_ROOT,
            kubeletRootDir);
    this.layout = PodCgroupLayout.of(CgroupDriver.CGROUPFS, CGROUP_ROOT);
  }

  /**
   * Refuses, before anything starts, a host that is not pure cgroup v2 with the io controller
   * available and its root writable.
   */
  static void requireUsable(Path cgroupfs, Path sysfs, Path procfs) {
    NodeCapabilities caps = new CapabilityProbe(cgroupfs, sysfs, procfs).probe(Optional.empty());
    if (caps.cgroupVersion() != CgroupVersion.V2) {
      throw new RealCgroupsRefusedException(
          "--real-cgroups needs a pure cgroup v2 host with the io controller, but "
              + cgroupfs
              + " is cgroup "
              + caps.cgroupVersion()
              + (caps.cgroupVersion() == CgroupVersion.HYBRID
                  ? " (v1 controllers plus a unified hierarchy without them)"
                  : "")
              + "; run ioqos demo without --real-cgroups to use the sandbox node");
    }
    if (!caps.ioController()) {
      throw new RealCgroupsRefusedException(
          "--real-cgroups needs the io controller, but "
              + cgroupfs.resolve("cgroup.controllers")
              + " does not list io; run ioqos demo without --real-cgroups to use the sandbox node");
    }
    if (!Files.isWritable(cgroupfs.resolve("cgroup.subtree_control"))) {
      throw new RealCgroupsRefusedException(
          "--real-cgroups creates cgroups, but "
              + cgroupfs.resolve("cgroup.subtree_control")
              + " is not writable by this user; run it as root, or without --real-cgroups");
    }
  }

  @Override
  public NodeConfig config() {
    return config;
  }

  @Override
  public String description() {
    return "this host's cgroup v2 tree "
        + config.cgroupfs()
        + ", pods under "
        + layout.kubepodsPath()
        + " (cgroupfs driver), policy disk(s) under "
        + config.kubeletRootDir();
  }

  @Override
  public synchronized Path createPod(String uid, QosClass qos) {
    try {
      Path parent = config.cgroupfs();
      enableIo(parent);
      Path dir = parent;
      String podPath = layout.podPath(qos, PodUid.of(uid));
      String[] parts = podPath.substring(1).split("/");
      for (int i = 0; i < parts.length; i++) {
        dir = dir.resolve(parts[i]);
        if (!Files.isDirectory(dir)) {
          Files.createDirectory(dir);
          created.add(dir);
        }
        if (i < parts.length - 1) {
          enableIo(dir);
        }
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the pod cgroup of " + uid, e);
    }
  }

  private static void enableIo(Path cgroup) throws IOException {
    Path control = cgroup.resolve("cgroup.subtree_control");
    if (!List.of(Files.readString(control).strip().split("\\s+")).contains("io")) {
      Files.writeString(control, "+io");
    }
  }

  @Override
  public boolean simulateIo(Path podDir, int scale) {
    // io.stat and io.pressure are the kernel's; the demo's pods run no processes.
    return false;
  }

  /** Removes the cgroups this node created, deepest first. */
  @Override
  public synchronized void close() {
    List<String> left = new ArrayList<>();
    for (int i = created.size() - 1; i >= 0; i--) {
      try {
        Files.deleteIfExists(created.get(i));
      } catch (IOException e) {
        left.add(created.get(i) + " (" + e.getMessage() + ")");
      }
    }
    created.clear();
    if (!left.isEmpty()) {
      throw new IllegalStateException("could not remove cgroups " + String.join(", ", left));
    }
  }
}
