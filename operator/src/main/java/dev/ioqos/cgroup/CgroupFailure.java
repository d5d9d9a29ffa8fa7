package dev.ioqos.cgroup;

/** Why a cgroup file operation failed, told apart by the kernel's errno, never by message text. */
public enum CgroupFailure {
  /** ENODEV: the device is not a whole disk known to the io controller (e.g. a partition). */
  NO_SUCH_DEVICE("no such device"),
  /** EOPNOTSUPP: e.g. a per-device io.weight on a disk without iocost. */
  NOT_SUPPORTED("not supported"),
  /** EINVAL: malformed value, or a weight outside 1..10000. */
  INVALID("invalid argument"),
  /** ERANGE: e.g. {@code wbps=0}. */
  OUT_OF_RANGE("out of range"),
  /** The cgroup exists but this io file does not (controller off, or io.latency not built). */
  FILE_MISSING("file missing"),
  /** EBUSY. */
  BUSY("busy"),
  /** The cgroup directory does not exist (not created yet, or the pod went away). */
  CGROUP_GONE("cgroup gone"),
  /** EACCES/EPERM on a file that exists. */
  PERMISSION_DENIED("permission denied"),
  /** The kernel accepted the write but reads back something else. */
  READBACK_MISMATCH("read-back mismatch"),
  /** The target is not strictly inside the kubepods subtree or a path part is a symlink. */
  UNSAFE_PATH("unsafe path"),
  /** Any other I/O error. */
  IO_ERROR("I/O error");

  private final String text;

  CgroupFailure(String text) {
    this.text = text;
  }

  /** A short lower-case description for messages, Events and metric labels. */
  public String text() {
    return text;
  }

  /** Failures that may go away by themselves: the caller should retry with backoff. */
  public boolean retriable() {
    return this == CGROUP_GONE || this == BUSY;
  }
}
