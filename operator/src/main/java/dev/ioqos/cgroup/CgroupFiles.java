package dev.ioqos.cgroup;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Reads and writes one cgroup io file, never following a symlink. Each line goes to the kernel in
 * its own write(2): cgroupfs parses one command per write, and a regular file in a test fixture
 * ends up holding the same lines the kernel would print. Not final so that a test can stand in for
 * a kernel that accepts a write and keeps something else.
 */
public class CgroupFiles {

  /** Reads the whole file. */
  public String read(CgroupDir dir, IoFile file) throws CgroupIoException {
    return readPath(dir.file(file));
  }

  /** Reads a file of the root cgroup or any other file the caller vetted (probe, metrics). */
  public String readPath(Path path) throws CgroupIoException {
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      // cgroupfs reports a size of 0 or 4096 whatever the content: read to EOF.
      ByteArrayOutputStream out = new ByteArrayOutputStream(256);
      ByteBuffer buffer = ByteBuffer.allocate(4096);
      while (channel.read(buffer) >= 0) {
        buffer.flip();
        out.write(buffer.array(), 0, buffer.limit());
        buffer.clear();
      }
      return out.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw KernelAnswers.classify(e, path, null);
    }
  }

  /**
   * Reads the whole file into {@code into}, replacing what it held: the metrics scrape's read,
   * which parses bytes and allocates nothing per file.
   */
  public void read(CgroupDir dir, IoFile file, ReadBuffer into) throws CgroupIoException {
    readPath(dir.file(file), into);
  }

  /** {@link #readPath(Path)} into a reused buffer. */
  public void readPath(Path path, ReadBuffer into) throws CgroupIoException {
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buffer = into.start();
      while (channel.read(buffer) >= 0) {
        buffer = into.filled();
      }
      into.done();
    } catch (IOException e) {
      throw KernelAnswers.classify(e, path, null);
    }
  }

  /**
   * Reads the whole of a file kept open between reads into {@code into}: one {@code pread(2)} from
   * offset 0, no open and close (the metrics scrape's read of every pod's files).
   */
  public void read(HeldFile file, ReadBuffer into) throws CgroupIoException {
    try {
      file.readInto(into);
    } catch (IOException e) {
      throw KernelAnswers.classify(e, file.path(), null);
    }
  }

  /**
   * Writes the lines in order, one write(2) each, stopping at the first the kernel refuses. The
   * exception names that line as the data written.
   */
  public void write(CgroupDir dir, IoFile file, List<String> lines) throws CgroupIoException {
    writePath(dir.file(file), lines);
  }

  void writePath(Path path, List<String> lines) throws CgroupIoException {
    FileChannel channel;
    try {
      channel =
          FileChannel.open(
              path,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING,
              LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      throw KernelAnswers.classify(e, path, String.join("\n", lines));
    }
    try (channel) {
      for (String line : lines) {
        ByteBuffer data = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        try {
          while (data.hasRemaining()) {
            channel.write(data);
          }
        } catch (IOException e) {
          throw KernelAnswers.classify(e, path, line);
        }
      }
    } catch (IOException e) {
      throw KernelAnswers.classify(e, path, String.join("\n", lines));
    }
  }
}
