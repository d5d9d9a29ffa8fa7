package dev.ioqos.device;

import java.util.Objects;

/** A host path or device name that is malformed before anything is looked up. */
public final class InvalidDeviceInputException extends DeviceResolutionException {

  private static final long serialVersionUID = 1L;

  private final String input;

  public InvalidDeviceInputException(String input, String message) {
    this(input, message, null);
  }

  public InvalidDeviceInputException(String input, String message, Throwable cause) {
    super(message, cause);
    this.input = Objects.requireNonNull(input, "input");
  }

  /** The path or name as the caller gave it. */
  public String input() {
    return input;
  }
}
