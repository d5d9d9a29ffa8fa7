package dev.ioqos.probe;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.QosClass;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Finds out what this node's kernel can enforce, from the cgroup mount, sysfs and procfs given as
 * root paths. It never assumes: a missing file disables only its feature.
 */
public final class CapabilityProbe {
  private final Path cgroupfs;
  private final Path sysfs;
  private final Path procfs;

  public CapabilityProbe(Path cgroupfs, Path sysfs, Path procfs) {
    this.cgroupfs = Objects.requireNonNull(cgroupfs, "cgroupfs");
    this.sysfs = Objects.requireNonNull(sysfs, "sysfs");
    this.procfs = Objects.requireNonNull(procfs, "procfs");
  }

  /**
   * Probes the node.
   *
   * @param layout kubelet's layout, or empty when no kubepods cgroup could be located
   */
  public NodeCapabilities probe(Optional<PodCgroupLayout> layout) {
    CgroupVersion version = cgroupVersion();
    Path unified = version == CgroupVersion.HYBRID ? cgroupfs.resolve("unified") : cgroupfs;
    boolean ioController = words(unified.resolve("cgroup.controllers")).contains("io");
    KubepodsCapability kubepods =
        version == CgroupVersion.V2 ? layout.map(this::kubepods).orElse(null) : null;
    Set<DeviceId> iocostDisks = iocostEnabledDisks();
    boolean iocostAvailable = Files.exists(cgroupfs.resolve("io.cost.qos"));
    return new NodeCapabilities(
        version,
        ioController,
        kubepods,
        psiAvailable(),
        version == CgroupVersion.V2 && ioLatencyPresent(kubepods),
        iocostAvailable,
        read(procfs.resolve("sys/kernel/osrelease")).map(String::strip).orElse("unknown"),
        disks(iocostDisks));
  }

  private CgroupVersion cgroupVersion() {
    if (Files.isRegularFile(cgroupfs.resolve("cgroup.controllers"))) {
      return CgroupVersion.V2;
    }
    if (Files.isRegularFile(cgroupfs.resolve("unified/cgroup.controllers"))) {
      return CgroupVersion.HYBRID;
    }
    for (String legacy : List.of("blkio", "cpu", "memory", "cpu,cpuacct")) {
      if (Files.isDirectory(cgroupfs.resolve(legacy))) {
        return CgroupVersion.V1;
      }
    }
    return CgroupVersion.UNKNOWN;
  }

  private KubepodsCapability kubepods(PodCgroupLayout layout) {
    String path = layout.kubepodsPath();
    Path dir = cgroupfs.resolve(path.substring(1));
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    // io must be in cgroup.subtree_control of the root, of every ancestor and of kubepods itself
    // (pods are its children), and of the QoS slices that have pods (their pods are their
    // children). An empty QoS slice is not judged: kubelet (runc's cgroup manager) enables the
    // controllers in a cgroup's subtree_control only when it creates its first child there; on a
    // real node with the cgroupfs driver /kubepods/besteffort reads an empty subtree_control until
    // its first pod.
    boolean enabled = true;
    Path current = cgroupfs;
    enabled &= subtreeHasIo(current);
    for (String part : path.substring(1).split("/")) {
      current = current.resolve(part);
      enabled &= subtreeHasIo(current);
    }
    for (QosClass qos : List.of(QosClass.BURSTABLE, QosClass.BEST_EFFORT)) {
      Path qosDir = cgroupfs.resolve(layout.qosPath(qos).substring(1));
      if (Files.isDirectory(qosDir, LinkOption.NOFOLLOW_LINKS) && hasChildren(qosDir)) {
        enabled &= subtreeHasIo(qosDir);
      }
    }
    return new KubepodsCapability(layout.driver(), path, enabled);
  }

  private static boolean hasChildren(Path dir) {
    try (var entries = Files.list(dir)) {
      return entries.anyMatch(entry -> Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS));
    } catch (java.io.IOException e) {
      return true; // unreadable: judge its subtree_control
    }
  }

  private boolean subtreeHasIo(Path dir) {
    return words(dir.resolve("cgroup.subtree_control")).contains("io");
  }

  private boolean psiAvailable() {
    // Kernels built with CONFIG_PSI_DEFAULT_DISABLED and booted without psi=1 have the file but
    // reading it fails with EOPNOTSUPP; others lack it entirely.
    return read(procfs.resolve("pressure/io")).map(text -> text.startsWith("some ")).orElse(false);
  }

  private boolean ioLatencyPresent(KubepodsCapability kubepods) {
    // The root cgroup never has io.latency; look at kubepods, else at any child with io files.
    if (kubepods != null) {
      Path dir = cgroupfs.resolve(kubepods.path().substring(1));
      if (Files.exists(dir.resolve("io.max"))) {
        return Files.exists(dir.resolve("io.latency"));
      }
    }
    try (DirectoryStream<Path> children = Files.newDirectoryStream(cgroupfs, Files::isDirectory)) {
      for (Path child : children) {
        if (Files.exists(child.resolve("io.max"))) {
          return Files.exists(child.resolve("io.latency"));
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  private Set<DeviceId> iocostEnabledDisks() {
    Set<DeviceId> enabled = new HashSet<>();
    for (String line : read(cgroupfs.resolve("io.cost.qos")).orElse("").split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length >= 2 && List.of(fields).contains("enable=1")) {
        try {
          enabled.add(DeviceId.parse(fields[0]));
        } catch (IllegalArgumentException e) {
          // An unparsable line enables nothing we could name.
        }
      }
    }
    return enabled;
  }

  private List<DiskCapability> disks(Set<DeviceId> iocostDisks) {
    List<DiskCapability> disks = new ArrayList<>();
    Path block = sysfs.resolve("block");
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(block)) {
      stream.forEach(entries::add);
    } catch (IOException e) {
      return disks;
    }
    entries.sort(null);
    for (Path entry : entries) {
      String name = entry.getFileName().toString();
      if (name.startsWith("loop") || name.startsWith("ram") || name.startsWith("zram")) {
        continue;
      }
      Optional<DeviceId> id = read(entry.resolve("dev")).flatMap(CapabilityProbe::deviceId);
      if (id.isEmpty()) {
        continue;
      }
      String scheduler =
          read(entry.resolve("queue/scheduler"))
              .map(CapabilityProbe::activeScheduler)
              .orElse("none");
      boolean rotational =
          read(entry.resolve("queue/rotational")).map(String::strip).orElse("0").equals("1");
      boolean iocost = iocostDisks.contains(id.get());
      disks.add(
          new DiskCapability(
              name,
              id.get(),
              scheduler,
              rotational,
              iocost,
              DiskCapability.mechanismFor(iocost, scheduler)));
    }
    return disks;
  }

  /** {@code "none mq-deadline [bfq] "} gives bfq; a queue without choices prints {@code none}. */
  static String activeScheduler(String text) {
    int open = text.indexOf('[');
    int close = text.indexOf(']', open + 1);
    if (open >= 0 && close > open) {
      return text.substring(open + 1, close);
    }
    String trimmed = text.strip();
    return trimmed.isEmpty() ? "none" : trimmed.split("\\s+")[0];
  }

  private static Optional<DeviceId> deviceId(String text) {
    try {
      return Optional.of(DeviceId.parse(text.strip()));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Set<String> words(Path file) {
    return read(file)
        .map(text -> (Set<String>) new HashSet<>(Arrays.asList(text.strip().split("\\s+"))))
        .orElse(Set.of());
  }

  private static Optional<String> read(Path file) {
    try {
      return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
