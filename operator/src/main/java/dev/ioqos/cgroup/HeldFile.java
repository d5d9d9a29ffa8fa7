package dev.ioqos.cgroup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One cgroup file that a scrape reads again and again (a pod's io.stat and io.pressure), kept open
 * between reads: each read is one {@code pread(2)} from offset 0 instead of an open, a read and a
 * close. A cgroup file is a seq_file in kernfs, and a read at offset 0 makes the kernel print the
 * file afresh, so the values are those of the moment of the read. The real-node test proves it
 * ({@code RealNodeIT#aCappedWriterPodWritesAtItsCap}: a scrape, 16 MiB more written by the pod, a
 * scrape again, each matching the kernel's io.stat read around it).
 *
 * <p>Opened at the first read, never following a symlink. A failed read closes it, so the next read
 * opens the file again (a cgroup removed and created again at the same path is then read through
 * its new file). Once {@link #close() closed}, it reads nothing more: a scrape that raced with the
 * pod's removal cannot reopen it and leak the descriptor. Not thread-safe: one reader at a time
 * (the pod's metrics hold their lock).
 */
public final class HeldFile implements AutoCloseable {
  private final Path path;
  private FileChannel channel;
  private boolean closed;

  /** The file, not opened yet. */
  public HeldFile(CgroupDir dir, IoFile file) {
    this.path = dir.file(file);
  }

  /** Whether the file is open now (for tests). */
  public boolean open() {
    return channel != null;
  }

  /** The file's path. */
  public Path path() {
    return path;
  }

  /** Reads the whole file from its start into {@code into}, opening it first when needed. */
  void readInto(ReadBuffer into) throws IOException {
    if (closed) {
      throw new ClosedChannelException();
    }
    if (channel == null) {
      channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    }
    try {
      ByteBuffer buffer = into.start();
      long position = 0;
      int read;
      while ((read = channel.read(buffer, position)) >= 0) {
        position += read;
        buffer = into.filled();
      }
      into.done();
    } catch (IOException | RuntimeException e) {
      drop();
      throw e;
    }
  }

  /** Closes the descriptor; the next read opens the file again. */
  void drop() {
    FileChannel open = channel;
    channel = null;
    if (open != null) {
      try {
        open.close();
      } catch (IOException e) {
        // A close of a read-only descriptor that fails leaves nothing to do.
      }
    }
  }

  /** Closes the descriptor for good. */
  @Override
  public void close() {
    closed = true;
    drop();
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
