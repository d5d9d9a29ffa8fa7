package dev.ioqos.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/** The file handling both ledgers share: the state directory, atomic replacement, moving aside. */
final class StateFiles {
  private StateFiles() {}

  /** Creates the state directory when it is missing. */
  static void createDirectory(Path stateDir) {
    try {
      Files.createDirectories(stateDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the state directory " + stateDir, e);
    }
  }

  /**
   * Replaces {@code file} with {@code data}: written to a sibling, synced, then renamed over it
   * (atomically where the filesystem can), so a crash leaves the old or the new file, never half.
   * The sibling's name is unique ({@code NAME.RANDOM.tmp}), so two writers never share one, and it
   * is deleted when the write fails (a full disk is not left fuller).
   */
  static void replace(Path file, byte[] data) throws IOException {
    // rw-r--r-- as before (createTempFile alone makes rw-------); the umask still applies.
    Path temp =
        Files.createTempFile(
            file.toAbsolutePath().getParent(),
            file.getFileName() + ".",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        write(channel, data);
        channel.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException deleteFailed) {
        e.addSuppressed(deleteFailed);
      }
      throw e;
    }
  }

  /** Writes all of {@code data} at the channel's position. */
  static void write(FileChannel channel, byte[] data) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(data);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** Moves an unreadable file to {@code NAME.corrupt-MILLIS} beside it and returns where. */
  static Path moveAside(Path unreadable) {
    Path aside =
        unreadable.resolveSibling(
            unreadable.getFileName() + ".corrupt-" + System.currentTimeMillis());
    try {
      Files.move(unreadable, aside);
    } catch (IOException moveFailed) {
      throw new UncheckedIOException(
          "cannot move the unreadable " + unreadable + " aside", moveFailed);
    }
    return aside;
  }
}
