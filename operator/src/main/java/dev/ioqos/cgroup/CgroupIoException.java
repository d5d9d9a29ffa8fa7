package dev.ioqos.cgroup;

import java.nio.file.Path;
import java.util.Objects;

/** A failed read or write of one cgroup file, with the file, the data written and the cause. */
public final class CgroupIoException extends Exception {
  private static final long serialVersionUID = 1L;

  private final CgroupFailure failure;
  private final transient Path file;
  private final String data;

  public CgroupIoException(CgroupFailure failure, Path file, String data, String detail) {
    super(message(failure, file, data, detail));
    this.failure = Objects.requireNonNull(failure, "failure");
    this.file = file;
    this.data = data;
  }

  public CgroupIoException(
      CgroupFailure failure, Path file, String data, String detail, Throwable cause) {
    this(failure, file, data, detail);
    initCause(cause);
  }

  private static String message(CgroupFailure failure, Path file, String data, String detail) {
    StringBuilder text = new StringBuilder();
    text.append(data == null ? "reading " : "writing '").append(data == null ? "" : data.strip());
    text.append(data == null ? "" : "' to ").append(file).append(" failed: ");
    text.append(failure.text());
    if (detail != null && !detail.isBlank()) {
      text.append(" (").append(detail).append(')');
    }
    return text.toString();
  }

  public CgroupFailure failure() {
    return failure;
  }

  /** The file read or written. */
  public Path file() {
    return file;
  }

  /** The exact data written, or null for a read. */
  public String data() {
    return data;
  }
}
