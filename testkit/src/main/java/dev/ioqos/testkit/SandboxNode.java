package dev.ioqos.testkit;

import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import dev.ioqos.node.NodeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A simulated node's host trees in a directory, shaped like the Debian 6.12 VM of KERNEL-FACTS.md
 * running kubelet with the systemd driver: cgroup v2 with io delegated to kubepods, vda (254:0,
 * scheduler none) at /, vdb (254:16, bfq) partitioned, vdb1 (254:17) at /var/lib/kubelet. Pod
 * cgroups appear when the caller says, as kubelet would create them. The files are plain files:
 * they hold what a write put there (a kernel would normalise), which is what the demo, the
 * benchmarks and the end-to-end tests of the agent need.
 */
public final class SandboxNode {
  public final Path root;
  public final Path cgroupfs;
  public final Path sysfs;
  public final Path procfs;
  public final Path devfs;
  public final PodCgroupLayout layout = PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/");

  public SandboxNode(Path root) {
    this.root = root;
    this.cgroupfs = root.resolve("cgroup");
    this.sysfs = root.resolve("sys");
    this.procfs = root.resolve("proc");
    this.devfs = root.resolve("dev");
    try {
      build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public NodeConfig config() {
    return new NodeConfig(
        cgroupfs, sysfs, procfs, devfs, Optional.of(CgroupDriver.SYSTEMD), "/", "/var/lib/kubelet");
  }

  /**
   * The node options of the {@code ioqos} commands that point at this tree: {@code --cgroupfs},
   * {@code --sysfs}, {@code --procfs} and {@code --devfs}.
   */
  public List<String> rootOptions() {
    return List.of(
        "--cgroupfs",
        cgroupfs.toString(),
        "--sysfs",
        sysfs.toString(),
        "--procfs",
        procfs.toString(),
        "--devfs",
        devfs.toString());
  }

  private void build() throws IOException {
    write(cgroupfs.resolve("cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
    write(cgroupfs.resolve("cgroup.subtree_control"), "cpuset cpu io memory pids\n");
    write(cgroupfs.resolve("io.cost.qos"), "");
    write(cgroupfs.resolve("io.stat"), "");
    write(cgroupfs.resolve("io.pressure"), pressure(0));
    // As kubelet leaves them on a real node: controllers enabled in a QoS cgroup's
    // subtree_control only once it has a pod (see createPod); kubepods itself always has them.
    for (QosClass qos : QosClass.values()) {
      cgroup(layout.qosPath(qos), qos == QosClass.GUARANTEED);
    }
    write(procfs.resolve("pressure/io"), pressure(126));
    write(procfs.resolve("sys/kernel/osrelease"), "6.12.118+deb13-amd64\n");
    write(
        procfs.resolve("1/mountinfo"),
        "21 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
            + "25 21 0:23 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,mode=755\n"
            + "26 21 254:17 / /var/lib/kubelet rw,relatime shared:6 - ext4 /dev/vdb1 rw\n");
    disk("vda", "254:0", "pci0000:00/0000:00:04.0/virtio2", "[none] mq-deadline bfq", "0");
    disk("vdb", "254:16", "pci0000:00/0000:00:05.0/virtio3", "none mq-deadline [bfq]", "1");
    Path vdb = sysfs.resolve("devices/pci0000:00/0000:00:05.0/virtio3/block/vdb");
    write(vdb.resolve("vdb1/dev"), "254:17\n");
    write(vdb.resolve("vdb1/partition"), "1\n");
    link(
        sysfs.resolve("class/block/vdb1"),
        "../../devices/pci0000:00/0000:00:05.0/virtio3/block/vdb/vdb1");
    link(
        sysfs.resolve("dev/block/254:17"),
        "../../devices/pci0000:00/0000:00:05.0/virtio3/block/vdb/vdb1");
    Files.createDirectories(devfs);
  }

  private void disk(String name, String majMin, String parent, String scheduler, String rotational)
      throws IOException {
    String relative = "devices/" + parent + "/block/" + name;
    Path dir = sysfs.resolve(relative);
    write(dir.resolve("dev"), majMin + "\n");
    write(dir.resolve("queue/scheduler"), scheduler + "\n");
    write(dir.resolve("queue/rotational"), rotational + "\n");
    link(sysfs.resolve("block/" + name), "../" + relative);
    link(sysfs.resolve("class/block/" + name), "../../" + relative);
    link(sysfs.resolve("dev/block/" + majMin), "../../" + relative);
  }

  /** Creates a pod's cgroup as kubelet does, with the io files a 6.12 kernel shows. */
  public Path createPod(String uid, QosClass qos) {
    try {
      // kubelet (runc's cgroup manager) enables the controllers in the parent as it creates a
      // child.
      write(
          cgroupfs.resolve(layout.qosPath(qos).substring(1)).resolve("cgroup.subtree_control"),
          "cpuset cpu io memory pids\n");
      return cgroup(layout.podPath(qos, PodUid.of(uid)), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Removes a pod's cgroup as kubelet does when the pod is gone (here with its files, which a
   * kernel's cgroupfs drops by itself on rmdir).
   */
  public void removePod(String uid, QosClass qos) {
    Path dir = podDir(uid, qos);
    try (var files = Files.walk(dir)) {
      for (Path path : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // Already gone.
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path podDir(String uid, QosClass qos) {
    return cgroupfs.resolve(layout.podPath(qos, PodUid.of(uid)).substring(1));
  }

  public String read(String uid, QosClass qos, String file) {
    try {
      return Files.readString(podDir(uid, qos).resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path cgroup(String path, boolean delegateIo) throws IOException {
    Path dir = cgroupfs.resolve(path.substring(1));
    if (Files.isDirectory(dir)) {
      fill(dir, delegateIo);
      return dir;
    }
    // A kernel's cgroup appears with all its files at once: fill a hidden sibling, then rename it
    // into place, so that an agent never sees the directory without its files.
    Path filling = dir.resolveSibling("." + dir.getFileName() + ".new");
    fill(filling, delegateIo);
    Files.move(filling, dir, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return dir;
  }

  private void fill(Path dir, boolean delegateIo) throws IOException {
    Files.createDirectories(dir);
    write(dir.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
    write(dir.resolve("cgroup.subtree_control"), delegateIo ? "cpuset cpu io memory pids\n" : "\n");
    write(dir.resolve("io.max"), "");
    write(dir.resolve("io.weight"), "default 100\n");
    write(dir.resolve("io.bfq.weight"), "default 100\n");
    write(dir.resolve("io.stat"), "");
    write(dir.resolve("io.pressure"), pressure(0));
  }

  private static String pressure(long total) {
    return "some avg10=0.00 avg60=0.00 avg300=0.00 total="
        + total
        + "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total="
        + total
        + "\n";
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  private static void link(Path link, String target) throws IOException {
    Files.createDirectories(link.getParent());
    // A relative link target inside the sandbox, not a host path.
    Files.createSymbolicLink(link, link.getFileSystem().getPath(target));
  }
}
