package dev.ioqos.device;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A sysfs or devfs tree that cannot be read or makes no sense: an unreadable {@code dev} file, a
 * {@code slaves/} cycle, a symlink loop under devfs.
 */
public final class DeviceTreeException extends DeviceResolutionException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public DeviceTreeException(Path file, String message) {
    this(file, message, null);
  }

  public DeviceTreeException(Path file, String message, Throwable cause) {
    super(message, cause);
    this.file = Objects.requireNonNull(file, "file");
  }

  /** The file or directory at fault. */
  public Path file() {
    return file;
  }
}
