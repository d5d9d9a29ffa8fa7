package dev.ioqos.core.policy;

/**
 * One entry of a policy's {@code devices}: which disks io.max and io.latency go to. The node
 * resolves it to whole disks (package {@code dev.ioqos.device}); core only carries it.
 */
public sealed interface DeviceSelectorRule {

  /** The disk(s) under kubelet's root directory; the default when a policy names no devices. */
  record KubeletRoot() implements DeviceSelectorRule {}

  /** The disk(s) beneath an absolute host path. */
  record HostPath(String path) implements DeviceSelectorRule {
    public HostPath {
      requireAbsolute(path, "host path");
    }
  }

  /** A device node such as {@code /dev/nvme0n1}; globs allowed, e.g. {@code /dev/disk/by-id/*}. */
  record DeviceName(String nameOrGlob) implements DeviceSelectorRule {
    public DeviceName {
      requireAbsolute(nameOrGlob, "device name");
    }
  }

  /**
   * The disks under the pod's own volumes, resolved per pod on its node.
   *
   * @param names the pod volume names to target; empty means every volume that sits on a disk
   */
  record PodVolumes(java.util.List<String> names) implements DeviceSelectorRule {
    public PodVolumes {
      names = Immutables.list(names, "podVolumes names");
      names.forEach(name -> Immutables.text(name, "podVolumes name"));
    }

    /** Whether the selector targets this volume. */
    public boolean targets(String volumeName) {
      return names.isEmpty() || names.contains(volumeName);
    }
  }

  private static void requireAbsolute(String path, String what) {
    if (Immutables.text(path, what).charAt(0) != '/') {
      throw new IllegalArgumentException(what + " '" + path + "' must be absolute");
    }
  }
}
