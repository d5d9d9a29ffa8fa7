package dev.ioqos.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Line and token scanning for kernel io files, regex-free since io.stat is read every scrape. */
final class KernelText {

  /** What {@link #parseCount} returns for text that is not a plain decimal counter. */
  static final long NOT_A_COUNT = -1;

  private KernelText() {}

  /** The non-blank lines of a file; the kernel ends every line, including the last, with '\n'. */
  static List<String> lines(String content) {
    Objects.requireNonNull(content, "content");
    List<String> lines = new ArrayList<>();
    int length = content.length();
    int start = 0;
    while (start < length) {
      int end = content.indexOf('\n', start);
      if (end < 0) {
        end = length;
      }
      if (!isBlank(content, start, end)) {
        lines.add(content.substring(start, end));
      }
      start = end + 1;
    }
    return lines;
  }

  /** The space- or tab-separated words of a line; never empty for a non-blank line. */
  static List<String> tokens(String line) {
    List<String> tokens = new ArrayList<>(8);
    int length = line.length();
    int start = 0;
    while (start < length) {
      while (start < length && isSpace(line.charAt(start))) {
        start++;
      }
      int end = start;
      while (end < length && !isSpace(line.charAt(end))) {
        end++;
      }
      if (end > start) {
        tokens.add(line.substring(start, end));
      }
      start = end;
    }
    return tokens;
  }

  /** The device in a line's first token; a {@link KernelFormatException} if not MAJ:MIN. */
  static DeviceId device(String file, String line, String token) {
    try {
      return DeviceId.parse(token);
    } catch (IllegalArgumentException e) {
      throw new KernelFormatException(file, line, e.getMessage(), e);
    }
  }

  /** Index of the '=' in a {@code key=value} token; refuses a token without a key. */
  static int equalsSign(String file, String line, String token) {
    int eq = token.indexOf('=');
    if (eq <= 0) {
      throw new KernelFormatException(file, line, "expected key=value, got '" + token + "'");
    }
    return eq;
  }

  /**
   * The unsigned decimal counter in {@code text} from {@code from} on, or {@link #NOT_A_COUNT} when
   * it is empty, has anything but digits (signs included) or exceeds {@link Long#MAX_VALUE}.
   */
  static long parseCount(String text, int from) {
    int length = text.length();
    if (from >= length) {
      return NOT_A_COUNT;
    }
    long value = 0;
    for (int i = from; i < length; i++) {
      int digit = text.charAt(i) - '0';
      if (digit < 0 || digit > 9 || value > (Long.MAX_VALUE - digit) / 10) {
        return NOT_A_COUNT;
      }
      value = value * 10 + digit;
    }
    return value;
  }

  private static boolean isBlank(String text, int start, int end) {
    for (int i = start; i < end; i++) {
      if (!isSpace(text.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r';
  }
}
