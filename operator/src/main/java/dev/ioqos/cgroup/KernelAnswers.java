package dev.ioqos.cgroup;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

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

  /** Maps glibc's strerror text (as the JDK reports it) to a failure. */
  static CgroupFailure failureOfErrnoText(String reason) {
    String text = reason == null ? "" : reason.toLowerCase(Locale.ROOT);
    if (text.contains("no such device")) {
      return CgroupFailure.NO_SUCH_DEVICE; // ENODEV, before ENOENT: both say "no such"
    }
    if (text.contains("not supported")) {
      return CgroupFailure.NOT_SUPPORTED; // EOPNOTSUPP == ENOTSUP on Linux
    }
    if (text.contains("invalid argument")) {
      return CgroupFailure.INVALID;
    }
    if (text.contains("out of range")) {
      return CgroupFailure.OUT_OF_RANGE; // ERANGE: "Numerical result out of range"
    }
    if (text.contains("resource busy")) {
      return CgroupFailure.BUSY;
    }
    if (text.contains("no such file or directory")) {
      return CgroupFailure.CGROUP_GONE; // ENOENT after open: the cgroup was removed
    }
    if (text.contains("too many levels of symbolic links")) {
      return CgroupFailure.UNSAFE_PATH; // ELOOP: O_NOFOLLOW met a symlink
    }
    if (text.contains("permission denied") || text.contains("operation not permitted")) {
      return CgroupFailure.PERMISSION_DENIED;
    }
    return CgroupFailure.IO_ERROR;
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
