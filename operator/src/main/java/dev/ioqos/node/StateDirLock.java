package dev.ioqos.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a state directory ({@code ioqos.lock}, an fcntl lock the kernel drops when
 * the process dies, also on kill -9): the agent holds it for its lifetime, so that {@code ioqos
 * reconcile} cannot write the same ledger at the same time.
 */
public final class StateDirLock implements AutoCloseable {
  /** The lock file's name inside the state directory. */
  public static final String FILE_NAME = "ioqos.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private StateDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock, creating the directory.
   *
   * @throws StateDirBusyException when another process (or this one) holds it
   */
  public static StateDirLock acquire(Path stateDir) {
    StateFiles.createDirectory(stateDir);
    Path file = stateDir.resolve(FILE_NAME);
    FileChannel channel;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the lock file " + file, e);
    }
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        throw new StateDirBusyException(stateDir);
      }
      return new StateDirLock(channel, lock);
    } catch (OverlappingFileLockException e) {
      closeQuietly(channel);
      throw new StateDirBusyException(stateDir);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot lock " + file, e);
    } catch (StateDirBusyException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // Nothing was locked through it.
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release the state directory lock", e);
    }
  }
}
