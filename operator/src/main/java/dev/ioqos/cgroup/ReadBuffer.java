package dev.ioqos.cgroup;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of the last file read into it by {@link CgroupFiles#read(CgroupDir, IoFile,
 * ReadBuffer)}: reused from read to read, grown when a file is larger. One per thread.
 */
public final class ReadBuffer {
  private byte[] bytes;
  private ByteBuffer view;
  private int length;

  public ReadBuffer(int capacity) {
    bytes = new byte[Math.max(capacity, 64)];
    view = ByteBuffer.wrap(bytes);
  }

  /** The content; valid up to {@link #length()}. */
  public byte[] bytes() {
    return bytes;
  }

  public int length() {
    return length;
  }

  /** The content as a String, for the parsers that take one. */
  public String text() {
    return new String(bytes, 0, length, StandardCharsets.UTF_8);
  }

  /** Empties the buffer and returns it positioned for a channel to read into. */
  ByteBuffer start() {
    length = 0;
    view.clear();
    return view;
  }

  /** Records what the channel read; grows the buffer when it is full. */
  ByteBuffer filled() {
    length = view.position();
    if (!view.hasRemaining()) {
      bytes = Arrays.copyOf(bytes, bytes.length * 2);
      view = ByteBuffer.wrap(bytes);
      view.position(length);
    }
    return view;
  }
}
