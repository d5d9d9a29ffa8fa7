package dev.ioqos.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Reads the six counters per device out of io.stat's bytes, for the metrics scrape: no String, no
 * token list, no allocation once its arrays have grown to the node's disk count. One instance per
 * thread; {@link #scan} overwrites the previous result.
 *
 * <p>It takes the common shape of the file only and answers {@code false} for anything else
 * (non-ASCII bytes, a device number over nine digits, a known key whose value is not a plain
 * counter, a second line for a device, a token without a key): the caller then parses the text with
 * {@link IoStat#parse}, which decides. When it answers {@code true}, the devices and counters are
 * those {@link IoStat#parse} returns for the same text (tested on the kernel's strings and on
 * randomized ones).
 */
public final class IoStatScan {
  /** Index of each counter within a device's six, in {@link #value}. */
  public static final int RBYTES = 0;

  public static final int WBYTES = 1;
  public static final int RIOS = 2;
  public static final int WIOS = 3;
  public static final int DBYTES = 4;
  public static final int DIOS = 5;

  /** Counters per device. */
  public static final int FIELDS = 6;

  private static final byte[][] KEYS = {
    ascii("rbytes"), ascii("wbytes"), ascii("rios"), ascii("wios"), ascii("dbytes"), ascii("dios")
  };

  private int count;
  private int[] majors = new int[4];
  private int[] minors = new int[4];
  private long[] values = new long[4 * FIELDS];

  /**
   * Scans {@code length} bytes of {@code text}.
   *
   * @return true when the result is what {@link IoStat#parse} gives; false when the text is not of
   *     the common shape and must be parsed by {@link IoStat#parse}
   */
  public boolean scan(byte[] text, int length) {
    count = 0;
    for (int i = 0; i < length; i++) {
      if (text[i] < 0) {
        return false; // Not ASCII: leave decoding to the String parser.
      }
    }
    int start = 0;
    while (start < length) {
      int end = start;
      while (end < length && text[end] != '\n') {
        end++;
      }
      if (!line(text, start, end)) {
        return false;
      }
      start = end + 1;
    }
    return true;
  }

  /** Takes the result of {@link IoStat#parse}, for a text {@link #scan} declined. */
  public void load(Map<DeviceId, IoStatEntry> entries) {
    count = 0;
    for (IoStatEntry entry : entries.values()) {
      int device = add(entry.device().major(), entry.device().minor());
      long[] counters = {
        entry.rbytes(), entry.wbytes(), entry.rios(), entry.wios(), entry.dbytes(), entry.dios()
      };
      System.arraycopy(counters, 0, values, device * FIELDS, FIELDS);
    }
  }

  /** Devices found by the last successful scan, in the file's order. */
  public int count() {
    return count;
  }

  public int major(int device) {
    return majors[device];
  }

  public int minor(int device) {
    return minors[device];
  }

  /** Counter {@code field} ({@link #RBYTES} .. {@link #DIOS}) of the {@code device}-th device. */
  public long value(int device, int field) {
    return values[device * FIELDS + field];
  }

  private boolean line(byte[] text, int from, int end) {
    int pos = skipSpace(text, from, end);
    if (pos == end) {
      return true; // blank line
    }
    // MAJ:MIN, at most nine digits each (an int without overflow).
    int major = 0;
    int digits = 0;
    while (pos < end && isDigit(text[pos])) {
      major = major * 10 + (text[pos++] - '0');
      digits++;
    }
    if (digits == 0 || digits > 9 || pos == end || text[pos] != ':') {
      return false;
    }
    pos++;
    int minor = 0;
    digits = 0;
    while (pos < end && isDigit(text[pos])) {
      minor = minor * 10 + (text[pos++] - '0');
      digits++;
    }
    if (digits == 0 || digits > 9 || (pos < end && !isSpace(text[pos]))) {
      return false;
    }
    for (int i = 0; i < count; i++) {
      if (majors[i] == major && minors[i] == minor) {
        return false; // IoStat.parse refuses a second line for a device.
      }
    }
    int device = add(major, minor);
    while (true) {
      pos = skipSpace(text, pos, end);
      if (pos == end) {
        return true;
      }
      int tokenStart = pos;
      int eq = -1;
      while (pos < end && !isSpace(text[pos])) {
        if (eq < 0 && text[pos] == '=') {
          eq = pos;
        }
        pos++;
      }
      if (eq <= tokenStart) {
        return false; // no key: IoStat.parse refuses it
      }
      int field = field(text, tokenStart, eq);
      if (field >= 0) {
        long value = count(text, eq + 1, pos);
        if (value < 0) {
          return false;
        }
        values[device * FIELDS + field] = value;
      }
      // Other keys (cost.usage, cost.vrate=100.00, depth=max, ...) are not counters of ours.
    }
  }

  private int add(int major, int minor) {
    if (count == majors.length) {
      majors = Arrays.copyOf(majors, count * 2);
      minors = Arrays.copyOf(minors, count * 2);
      values = Arrays.copyOf(values, count * 2 * FIELDS);
    }
    majors[count] = major;
    minors[count] = minor;
    Arrays.fill(values, count * FIELDS, (count + 1) * FIELDS, 0L);
    return count++;
  }

  /** The counter a key names ({@link #RBYTES} .. {@link #DIOS}), or -1 for another key. */
  private static int field(byte[] text, int from, int to) {
    int length = to - from;
    if (length != 4 && length != 6) {
      return -1;
    }
    int field =
        switch (text[from]) {
          case 'r' -> length == 6 ? RBYTES : RIOS;
          case 'w' -> length == 6 ? WBYTES : WIOS;
          case 'd' -> length == 6 ? DBYTES : DIOS;
          default -> -1;
        };
    return field >= 0 && same(KEYS[field], text, from) ? field : -1;
  }

  /** Whether {@code text} holds {@code word} from {@code from} on (its length checked before). */
  static boolean same(byte[] word, byte[] text, int from) {
    for (int i = 1; i < word.length; i++) {
      if (text[from + i] != word[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The plain decimal counter in {@code [from, to)}, or -1 when empty, not all digits or over 18
   * digits (which {@link IoStat#parse} may still take: the caller declines then).
   */
  static long count(byte[] text, int from, int to) {
    if (from >= to || to - from > 18) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      byte b = text[i];
      if (!isDigit(b)) {
        return -1;
      }
      value = value * 10 + (b - '0');
    }
    return value;
  }

  static int skipSpace(byte[] text, int from, int end) {
    while (from < end && isSpace(text[from])) {
      from++;
    }
    return from;
  }

  static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r';
  }

  static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
