package dev.ioqos.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer holding Prometheus text format, reused from scrape to scrape. Values are
 * written as Micrometer's Prometheus registry writes them ({@link Double#toString(double)}), counts
 * below 2^53 without going through a double or a String.
 */
final class Exposition {
  private static final byte[] POINT_ZERO = ascii(".0");
  private static final long EXACT = 1L << 53;

  private byte[] bytes;
  private int size;
  private final byte[] digits = new byte[20];

  Exposition(int capacity) {
    bytes = new byte[capacity];
  }

  void reset() {
    size = 0;
  }

  int size() {
    return size;
  }

  /** Appends what is written to the stream (for the meter registry's writer). */
  OutputStream stream() {
    return new OutputStream() {
      @Override
      public void write(int b) {
        append((byte) b);
      }

      @Override
      public void write(byte[] data, int offset, int length) {
        ensure(length);
        System.arraycopy(data, offset, bytes, size, length);
        size += length;
      }
    };
  }

  void writeTo(OutputStream out) throws IOException {
    out.write(bytes, 0, size);
  }

  @Override
  public String toString() {
    return new String(bytes, 0, size, StandardCharsets.UTF_8);
  }

  Exposition append(byte[] data) {
    ensure(data.length);
    System.arraycopy(data, 0, bytes, size, data.length);
    size += data.length;
    return this;
  }

  Exposition append(byte b) {
    ensure(1);
    bytes[size++] = b;
    return this;
  }

  /** A String of ASCII characters (a number's text). */
  Exposition appendAscii(String text) {
    int length = text.length();
    ensure(length);
    for (int i = 0; i < length; i++) {
      bytes[size++] = (byte) text.charAt(i);
    }
    return this;
  }

  /** {@code value} as {@link Double#toString(double)} prints it. */
  Exposition value(double value) {
    return appendAscii(Double.toString(value));
  }

  /**
   * The count {@code value} as {@link Double#toString(double)} prints {@code (double) value}:
   * {@code 5120.0} below 10^7, {@code 2.097152E7} from there. Exact for counts below 2^53, the
   * digits being those of the integer; larger ones go through the double.
   */
  Exposition count(long value) {
    if (value < 0 || value >= EXACT) {
      return value((double) value);
    }
    int n = 0;
    long rest = value;
    do {
      digits[n++] = (byte) ('0' + rest % 10);
      rest /= 10;
    } while (rest != 0);
    // digits holds the number backwards, n digits.
    if (value < 10_000_000L) {
      ensure(n + 2);
      for (int i = n - 1; i >= 0; i--) {
        bytes[size++] = digits[i];
      }
      return append(POINT_ZERO);
    }
    int last = 0; // lowest non-zero digit, at least one digit after the point
    while (last < n - 2 && digits[last] == '0') {
      last++;
    }
    ensure(n + 5);
    bytes[size++] = digits[n - 1];
    bytes[size++] = '.';
    for (int i = n - 2; i >= last; i--) {
      bytes[size++] = digits[i];
    }
    bytes[size++] = 'E';
    int exponent = n - 1; // 7 .. 15
    if (exponent >= 10) {
      bytes[size++] = (byte) ('0' + exponent / 10);
    }
    bytes[size++] = (byte) ('0' + exponent % 10);
    return this;
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A label value escaped for the text format: backslash, double quote and line feed, as
   * Prometheus's client writes them.
   */
  static String escape(String value) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      String replacement =
          switch (c) {
            case '\\' -> "\\\\";
            case '"' -> "\\\"";
            case '\n' -> "\\n";
            default -> null;
          };
      if (replacement != null && out == null) {
        out = new StringBuilder(value.length() + 8).append(value, 0, i);
      }
      if (out != null) {
        if (replacement != null) {
          out.append(replacement);
        } else {
          out.append(c);
        }
      }
    }
    return out == null ? value : out.toString();
  }
}
