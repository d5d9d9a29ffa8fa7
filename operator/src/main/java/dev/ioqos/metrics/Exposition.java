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

  /** {@code text} in UTF-8 (byte by byte while it is ASCII, the usual case). */
  Exposition appendText(String text) {
    int length = text.length();
    for (int i = 0; i < length; i++) {
      if (text.charAt(i) >= 0x80) {
        return append(utf8(text));
      }
    }
    return appendAscii(text);
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
    ensure(MAX_COUNT);
    size = writeCount(bytes, size, value);
    return this;
  }

  /**
   * One sample line: {@code name} (ending in '{'), {@code labels} (ending in "} "), the count and a
   * line feed, with one capacity check.
   */
  void sample(byte[] name, byte[] labels, long count) {
    if (count < 0 || count >= EXACT) {
      append(name).append(labels).count(count).append((byte) '\n');
      return;
    }
    ensure(name.length + labels.length + MAX_COUNT + 1);
    byte[] out = bytes;
    int at = size;
    System.arraycopy(name, 0, out, at, name.length);
    at += name.length;
    System.arraycopy(labels, 0, out, at, labels.length);
    at = writeCount(out, at + labels.length, count);
    out[at++] = '\n';
    size = at;
  }

  /** The longest text of a count below 2^53: 16 digits, a point, 'E' and two exponent digits. */
  private static final int MAX_COUNT = 20;

  /** Writes {@code value} (0 <= value < 2^53) at {@code at}; returns the end. */
  private static int writeCount(byte[] out, int at, long value) {
    int n = digits(value);
    if (n <= 7) { // below 10^7: plain digits and ".0"
      int end = at + n;
      long rest = value;
      for (int i = end - 1; i >= at; i--) {
        out[i] = (byte) ('0' + rest % 10);
        rest /= 10;
      }
      out[end] = '.';
      out[end + 1] = '0';
      return end + 2;
    }
    // d.ddddE<n-1>: the digits after the first, trailing zeros dropped but one kept.
    long rest = value;
    int last = at + n; // digits go to at, at+2 .. at+n (the point at at+1)
    for (int i = last; i >= at + 2; i--) {
      out[i] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
    out[at] = (byte) ('0' + rest);
    out[at + 1] = '.';
    int end = last;
    while (end > at + 2 && out[end] == '0') {
      end--;
    }
    end++;
    out[end++] = 'E';
    int exponent = n - 1;
    if (exponent >= 10) {
      out[end++] = (byte) ('0' + exponent / 10);
    }
    out[end++] = (byte) ('0' + exponent % 10);
    return end;
  }

  /** Decimal digits of {@code value}, 0 <= value < 2^53. */
  private static int digits(long value) {
    int n = 1;
    long bound = 10;
    while (n < 19 && value >= bound) {
      n++;
      bound *= 10;
    }
    return n;
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
    return escape(value, true);
  }

  /**
   * {@code value} with backslash and line feed escaped, and the double quote too when {@code
   * quotes} (a label value; a HELP text keeps its quotes). The same String when nothing needs it.
   */
  static String escape(String value, boolean quotes) {
    StringBuilder out = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      String replacement =
          switch (c) {
            case '\\' -> "\\\\";
            case '"' -> quotes ? "\\\"" : null;
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
