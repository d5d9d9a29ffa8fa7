package dev.ioqos.node;

import dev.ioqos.core.policy.DeviceSelectorRule;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PodVolume;
import dev.ioqos.device.DeviceResolutionException;
import dev.ioqos.device.Disk;
import dev.ioqos.device.DiskResolver;
import dev.ioqos.device.MountTable;
import dev.ioqos.device.NotOnBlockDeviceException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Resolves one pod's volumes to whole disks the way kubelet lays them out, reading only the host's
 * mount table (never the volume directories themselves, which are on the host):
 *
 * <ul>
 *   <li>emptyDir: a directory {@code <kubelet-root>/pods/<uid>/volumes/kubernetes.io~empty-dir/
 *       <name>} with no mount of its own, so it is on the filesystem that holds kubelet's root;
 *       medium Memory is a tmpfs, no disk.
 *   <li>a claim mounted as a filesystem: kubelet's mount at {@code volumes/<plugin>/<pv>} (local
 *       volumes are bind mounts of the PV's path) or {@code volumes/kubernetes.io~csi/<pv>/mount};
 *       other plugins (inline CSI, nfs...) the same, named after the volume.
 *   <li>a claim consumed as a raw block device: kubelet bind-mounts the device node at {@code
 *       <kubelet-root>/plugins/.../volumeDevices/<pv>/.../<pod uid>} (from devtmpfs, whose
 *       mountinfo root names the node) and symlinks the pod's {@code volumeDevices} entry to it.
 *   <li>hostPath: the host path itself.
 *   <li>configMap, secret, projected, downwardAPI: data kubelet writes and the pod reads, left out
 *       unless named; secret, projected and downwardAPI are a tmpfs (no disk), configMap a
 *       directory on kubelet's root filesystem.
 * </ul>
 */
final class PodVolumeResolver {
  private static final String EMPTY_DIR_PLUGIN = "kubernetes.io~empty-dir";
  private static final String CSI_PLUGIN = "kubernetes.io~csi";

  private final DiskResolver disks;
  private final String kubeletRootDir;
  private final Function<Disk, DiskFacts> facts;

  PodVolumeResolver(DiskResolver disks, String kubeletRootDir, Function<Disk, DiskFacts> facts) {
    this.disks = disks;
    this.kubeletRootDir =
        kubeletRootDir.endsWith("/") && kubeletRootDir.length() > 1
            ? kubeletRootDir.substring(0, kubeletRootDir.length() - 1)
            : kubeletRootDir;
    this.facts = facts;
  }

  /** One decision per volume the selector targets; names it lists that the pod lacks included. */
  List<VolumeDecision> resolve(
      PodFacts pod, DeviceSelectorRule.PodVolumes selector, MountTable table) {
    List<VolumeDecision> decisions = new ArrayList<>();
    boolean named = !selector.names().isEmpty();
    for (PodVolume volume : pod.volumes()) {
      if (selector.targets(volume.name())) {
        decisions.add(resolve(kubeletUid(pod), volume, named, table));
      }
    }
    for (String name : selector.names()) {
      if (pod.volumes().stream().noneMatch(v -> v.name().equals(name))) {
        decisions.add(
            new VolumeDecision(
                name,
                "absent",
                "-",
                List.of(),
                "cannot be resolved: the pod has no volume named " + name,
                true));
      }
    }
    return decisions;
  }

  private VolumeDecision resolve(String uid, PodVolume volume, boolean named, MountTable table) {
    String volumes = podDir(uid) + "/volumes";
    PodVolume.Source source = volume.source();
    String kind = source.kind();
    if (source instanceof PodVolume.ApiData data) {
      String dir = volumes + "/" + apiDataPlugin(data) + "/" + volume.name();
      if (!named) {
        return new VolumeDecision(
            volume.name(),
            kind,
            dir,
            List.of(),
            "left out: kubelet writes "
                + kind
                + " data, the pod only reads it (name it to target it)",
            false);
      }
      if (!data.onDisk()) {
        return noDisk(volume, dir, "kubelet keeps " + kind + " data on a tmpfs", true);
      }
      return onPath(volume, dir, table, true);
    }
    if (source instanceof PodVolume.EmptyDir emptyDir) {
      String dir = volumes + "/" + EMPTY_DIR_PLUGIN + "/" + volume.name();
      if (emptyDir.memory()) {
        return noDisk(volume, dir, "medium Memory is a tmpfs", named);
      }
      return onPath(volume, dir, table, named);
    }
    if (source instanceof PodVolume.HostPath hostPath) {
      return onPath(volume, hostPath.path(), table, named);
    }
    String dirName;
    if (source instanceof PodVolume.Claim claim) {
      if (claim.persistentVolume().isEmpty()) {
        return problem(
            volume,
            volumes + "/*/?",
            "claim "
                + claim.claimName()
                + " is not bound to a PersistentVolume (or could not be read)");
      }
      dirName = claim.persistentVolume().get();
      if (claim.block()) {
        return blockDevice(volume, uid, dirName, table);
      }
    } else {
      dirName = volume.name();
    }
    Optional<MountTable.Below> mount =
        table.mountsBelow(volumes).stream()
            .filter(below -> isVolumeDir(below.relative(), dirName))
            .reduce((first, later) -> later);
    if (mount.isEmpty()) {
      return problem(
          volume,
          volumes + "/*/" + dirName,
          "kubelet has not mounted it yet: no mount at " + volumes + "/<plugin>/" + dirName);
    }
    return onPath(volume, mount.get().mount().mountPoint(), table, named);
  }

  /** kubelet's plugin directory for API data, {@code kubernetes.io~<plugin name>}. */
  private static String apiDataPlugin(PodVolume.ApiData data) {
    return switch (data.kind()) {
      case "configMap" -> "kubernetes.io~configmap";
      case "secret" -> "kubernetes.io~secret";
      case "projected" -> "kubernetes.io~projected";
      default -> "kubernetes.io~downward-api";
    };
  }

  /** {@code <plugin>/<dir>}, or CSI's {@code kubernetes.io~csi/<dir>/mount}. */
  private static boolean isVolumeDir(List<String> relative, String dirName) {
    if (relative.size() == 2) {
      return relative.get(1).equals(dirName) && !relative.get(0).equals(CSI_PLUGIN);
    }
    return relative.size() == 3
        && relative.get(0).equals(CSI_PLUGIN)
        && relative.get(1).equals(dirName)
        && relative.get(2).equals("mount");
  }

  private VolumeDecision blockDevice(PodVolume volume, String uid, String pv, MountTable table) {
    String shown = podDir(uid) + "/volumeDevices/*/" + pv;
    Optional<MountTable.Below> bind =
        table.mountsBelow(kubeletRootDir + "/plugins").stream()
            .filter(below -> below.relative().size() >= 3)
            .filter(below -> below.relative().get(below.relative().size() - 1).equals(uid))
            .filter(below -> below.relative().contains(pv))
            .filter(below -> below.relative().contains("volumeDevices"))
            .reduce((first, later) -> later);
    if (bind.isEmpty()) {
      return problem(
          volume,
          shown,
          "kubelet has not mapped the block device yet: no bind mount of it for this pod under "
              + kubeletRootDir
              + "/plugins/*/volumeDevices/"
              + pv);
    }
    String device = "/dev" + bind.get().mount().root();
    try {
      List<DiskFacts> found = disks.forDeviceName(device).stream().map(facts).toList();
      return new VolumeDecision(volume.name(), volume.source().kind(), device, found, "", false);
    } catch (DeviceResolutionException e) {
      return problem(volume, device, e.getMessage());
    }
  }

  private VolumeDecision onPath(PodVolume volume, String path, MountTable table, boolean named) {
    try {
      List<DiskFacts> found = disks.forPath(path, table).stream().map(facts).toList();
      return new VolumeDecision(volume.name(), volume.source().kind(), path, found, "", false);
    } catch (NotOnBlockDeviceException e) {
      // A volume on tmpfs or a network filesystem: no local disk to cap, which is not an error
      // unless the policy named this very volume.
      return noDisk(volume, path, e.getMessage(), named);
    } catch (DeviceResolutionException e) {
      return problem(volume, path, e.getMessage());
    }
  }

  private static VolumeDecision noDisk(PodVolume volume, String where, String why, boolean named) {
    return new VolumeDecision(
        volume.name(), volume.source().kind(), where, List.of(), "no disk: " + why, named);
  }

  private static VolumeDecision problem(PodVolume volume, String where, String why) {
    return new VolumeDecision(
        volume.name(),
        volume.source().kind(),
        where,
        List.of(),
        "cannot be resolved: " + why,
        true);
  }

  /**
   * The UID kubelet keeps the pod's directories under: a static pod's config hash, as for its
   * cgroup, not its mirror pod's UID.
   */
  private static String kubeletUid(PodFacts pod) {
    return pod.cgroupUid();
  }

  private String podDir(String uid) {
    return kubeletRootDir + "/pods/" + uid;
  }
}
