package dev.ioqos.cgroup;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The one place where the kernel's answer to a cgroup file operation is classified. The JDK does
 * not expose errno; it puts the C library's strerror text into the IOException, so this class is
 * the only code that reads that text, and everything above sees a {@link CgroupFailure}.
 */
final class KernelAnswers {
  private KernelAnswers() {}

  static CgroupIoException classify(IOException error, Path file, String data) {
    CgroupFailure failure = failureOf(error, file);
    return new CgroupIoException(failure, file, data, reason(error), error);
  }

  static CgroupFailure failureOf(IOException error, Path file) {
    if (error instanceof NoSuchFileException || error instanceof AccessDeniedException) {
      // Opening a missing cgroupfs file answers ENOENT without O_CREAT and EACCES with it (the
      // directory is not writable); tell a missing cgroup from a missing file by looking.
      Path dir = file.getParent();
      if (dir != null && !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return CgroupFailure.CGROUP_GONE;
      }
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        return CgroupFailure.FILE_MISSING;
      }
      return error instanceof NoSuchFileException
          ? CgroupFailure.CGROUP_GONE
          : CgroupFailure.PERMISSION_DENIED;
    }
    return failureOfErrnoText(reason(error));
  }

  /**
   * glibc's strerror text for each errno a cgroup file operation answers with, mapped once: the JDK
   * (17) puts this text, and not the errno, into the exception, and names only ENOENT and EACCES by
   * type (handled above). Exact strings, so that a path or value in a message cannot be taken for
   * an errno.
   */
  private static final Map<String, CgroupFailure> STRERROR =
      Map.ofEntries(
          Map.entry("No such device", CgroupFailure.NO_SUCH_DEVICE), // ENODEV
          Map.entry("Operation not supported", CgroupFailure.NOT_SUPPORTED), // EOPNOTSUPP
          Map.entry("Invalid argument", CgroupFailure.INVALID), // EINVAL
          Map.entry("Numerical result out of range", CgroupFailure.OUT_OF_RANGE), // ERANGE
          Map.entry("Device or resource busy", CgroupFailure.BUSY), // EBUSY
          Map.entry("No such file or directory", CgroupFailure.CGROUP_GONE), // ENOENT after open
          Map.entry("Too many levels of symbolic links", CgroupFailure.UNSAFE_PATH), // ELOOP
          // The JDK's own wording for ELOOP on an open with NOFOLLOW_LINKS (UnixException; the
          // same in 17 and 25).
          Map.entry(
              "Too many levels of symbolic links (NOFOLLOW_LINKS specified)",
              CgroupFailure.UNSAFE_PATH),
          Map.entry("Permission denied", CgroupFailure.PERMISSION_DENIED), // EACCES
          Map.entry("Operation not permitted", CgroupFailure.PERMISSION_DENIED)); // EPERM

  /** Maps glibc's strerror text (as the JDK reports it) to a failure. */
  static CgroupFailure failureOfErrnoText(String reason) {
    return reason == null
        ? CgroupFailure.IO_ERROR
        : STRERROR.getOrDefault(reason.strip(), CgroupFailure.IO_ERROR);
  }

  private static String reason(IOException error) {
    if (error instanceof java.nio.file.FileSystemException) {
      String reason = ((java.nio.file.FileSystemException) error).getReason();
      if (reason != null) {
        return reason;
      }
    }
    return error.getMessage();
  }
}
