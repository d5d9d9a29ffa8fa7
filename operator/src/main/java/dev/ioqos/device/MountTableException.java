package dev.ioqos.device;

import java.util.Objects;
import java.util.OptionalInt;

/** A mount table that cannot be read, is garbled, or has no mount covering a path. */
public final class MountTableException extends DeviceResolutionException {

  private static final long serialVersionUID = 1L;

  private final String source;
  private final int lineNumber;

  /** A problem with one line; {@code lineNumber} is 1-based. */
  public MountTableException(String source, int lineNumber, String message) {
    super(message, null);
    this.source = Objects.requireNonNull(source, "source");
    this.lineNumber = lineNumber;
  }

  /** A problem with the table as a whole, such as an unreadable file. */
  public MountTableException(String source, String message, Throwable cause) {
    super(message, cause);
    this.source = Objects.requireNonNull(source, "source");
    this.lineNumber = 0;
  }

  /** The mount table's file, or {@code mountinfo} for text parsed from a string. */
  public String source() {
    return source;
  }

  /** The offending line, when one line is at fault. */
  public OptionalInt lineNumber() {
    return lineNumber > 0 ? OptionalInt.of(lineNumber) : OptionalInt.empty();
  }
}
