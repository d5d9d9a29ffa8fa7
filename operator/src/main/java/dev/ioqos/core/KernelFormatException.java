package dev.ioqos.core;

import java.util.Objects;

/** A cgroup io file's content that does not have the format the kernel prints. */
public final class KernelFormatException extends IllegalArgumentException {

  private final String file;
  private final String line;
  private final String reason;

  /** A single offending line, e.g. {@code io.max}, {@code 254:0 wbps=abc}, {@code wbps is ...}. */
  public KernelFormatException(String file, String line, String reason) {
    this(file, line, reason, "cannot parse line", null);
  }

  KernelFormatException(String file, String line, String reason, Throwable cause) {
    this(file, line, reason, "cannot parse line", cause);
  }

  private KernelFormatException(
      String file, String text, String reason, String what, Throwable cause) {
    super(
        Objects.requireNonNull(file, "file")
            + ": "
            + what
            + " '"
            + Objects.requireNonNull(text, "text").replace("\n", "\\n")
            + "': "
            + Objects.requireNonNull(reason, "reason"),
        cause);
    this.file = file;
    this.line = text;
    this.reason = reason;
  }

  /** A problem with the file as a whole (e.g. a missing line); {@link #line()} is the content. */
  public static KernelFormatException forContent(String file, String content, String reason) {
    return new KernelFormatException(file, content, reason, "cannot parse", null);
  }

  /** The file, by its cgroupfs or procfs name, e.g. {@code io.max}. */
  public String file() {
    return file;
  }

  /** The offending line as read (or the whole content for {@link #forContent}). */
  public String line() {
    return line;
  }

  /** Why the line was refused, without file or line. */
  public String reason() {
    return reason;
  }
}
