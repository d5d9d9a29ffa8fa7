package dev.ioqos.core.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the pod's {@code spec.volumes}, reduced to what tells where its data lives on the
 * node: kubelet mounts each volume at {@code <kubelet-root>/pods/<uid>/volumes/<plugin>/<dir>} (a
 * raw block volume at {@code volumeDevices/<plugin>/<dir>}), where the directory is the volume's
 * name, or the PersistentVolume's name for a claim.
 *
 * @param name the volume's name in the pod spec
 */
public record PodVolume(String name, Source source) {

  public PodVolume {
    Immutables.text(name, "volume name");
    Objects.requireNonNull(source, "source");
  }

  /** What backs the volume. */
  public sealed interface Source {
    /** How explain and Events name the kind, e.g. {@code emptyDir} or {@code configMap}. */
    String kind();
  }

  /** An emptyDir: a directory on kubelet's root filesystem, or a tmpfs when {@code memory}. */
  public record EmptyDir(boolean memory) implements Source {
    @Override
    public String kind() {
      return memory ? "emptyDir (medium Memory)" : "emptyDir";
    }
  }

  /** A hostPath volume: the host's own directory, not under kubelet's pods directory. */
  public record HostPath(String path) implements Source {
    public HostPath {
      if (Immutables.text(path, "hostPath path").charAt(0) != '/') {
        throw new IllegalArgumentException("hostPath path '" + path + "' must be absolute");
      }
    }

    @Override
    public String kind() {
      return "hostPath";
    }
  }

  /**
   * A PersistentVolumeClaim (also a generic ephemeral volume's claim).
   *
   * @param persistentVolume the bound PV's name, which names kubelet's directory; empty while the
   *     claim is unbound or could not be read
   * @param block the claim is consumed as a raw block device ({@code volumeDevices})
   */
  public record Claim(String claimName, Optional<String> persistentVolume, boolean block)
      implements Source {
    public Claim {
      Immutables.text(claimName, "claim name");
      persistentVolume = Objects.requireNonNullElse(persistentVolume, Optional.empty());
    }

    @Override
    public String kind() {
      return (block ? "block " : "") + "persistentVolumeClaim " + claimName;
    }
  }

  /**
   * A volume kubelet fills from the API: configMap (a directory on kubelet's root filesystem),
   * secret, projected and downwardAPI (each a tmpfs). Their I/O is kubelet's, not the workload's,
   * so they are left out unless a policy names them.
   *
   * @param kind {@code configMap}, {@code secret}, {@code projected} or {@code downwardAPI}
   */
  public record ApiData(String kind) implements Source {
    public ApiData {
      Immutables.text(kind, "volume kind");
    }

    /** Only configMap data is kept on disk (kubelet's configmap plugin wraps a disk emptyDir). */
    public boolean onDisk() {
      return kind.equals("configMap");
    }
  }

  /** Any other plugin (inline CSI, nfs, iscsi...): its directory is named after the volume. */
  public record Mounted(String kind) implements Source {
    public Mounted {
      Immutables.text(kind, "volume kind");
    }
  }
}
