package dev.ioqos.device;

import java.util.Objects;

/** A device name, glob or {@code MAJ:MIN} that names no block device known to sysfs. */
public final class NoSuchDeviceException extends DeviceResolutionException {

  private static final long serialVersionUID = 1L;

  private final String input;

  public NoSuchDeviceException(String input, String message) {
    this(input, message, null);
  }

  public NoSuchDeviceException(String input, String message, Throwable cause) {
    super(message, cause);
    this.input = Objects.requireNonNull(input, "input");
  }

  /** The name, pattern, device number or host path that was asked for. */
  public String input() {
    return input;
  }
}
