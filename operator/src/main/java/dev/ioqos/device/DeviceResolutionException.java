package dev.ioqos.device;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Why a path or device name could not be resolved to whole disks; the subtype says which input was
 * at fault and the message names it in one sentence.
 */
public abstract sealed class DeviceResolutionException extends Exception
    permits NotOnBlockDeviceException,
        NoSuchDeviceException,
        MountTableException,
        InvalidDeviceInputException,
        DeviceTreeException {

  private static final long serialVersionUID = 1L;

  DeviceResolutionException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A short reason for an I/O failure, e.g. "no such file", for one-sentence messages. */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException fse && fse.getReason() != null) {
      return fse.getReason();
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
