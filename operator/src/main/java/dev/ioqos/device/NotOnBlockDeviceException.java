package dev.ioqos.device;

import java.util.Objects;

/** A host path whose filesystem has no block device beneath it (tmpfs, proc, nfs, fuse...). */
public final class NotOnBlockDeviceException extends DeviceResolutionException {

  private static final long serialVersionUID = 1L;

  private final String path;
  private final String mountPoint;
  private final String fsType;

  public NotOnBlockDeviceException(String path, String mountPoint, String fsType, String message) {
    super(message, null);
    this.path = Objects.requireNonNull(path, "path");
    this.mountPoint = Objects.requireNonNull(mountPoint, "mountPoint");
    this.fsType = Objects.requireNonNull(fsType, "fsType");
  }

  /** The host path as the caller gave it. */
  public String path() {
    return path;
  }

  /** Where the filesystem that ends the resolution is mounted. */
  public String mountPoint() {
    return mountPoint;
  }

  /** That filesystem's type, e.g. {@code tmpfs}. */
  public String fsType() {
    return fsType;
  }
}
