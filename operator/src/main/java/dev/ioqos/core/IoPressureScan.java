package dev.ioqos.core;

import static dev.ioqos.core.IoStatScan.count;
import static dev.ioqos.core.IoStatScan.isDigit;
import static dev.ioqos.core.IoStatScan.isSpace;
import static dev.ioqos.core.IoStatScan.skipSpace;

/**
 * Reads the {@code total} of the {@code some} and {@code full} lines out of a PSI file's bytes, for
 * the metrics scrape, without a String or an allocation. One instance per thread; {@link #scan}
 * overwrites the previous result.
 *
 * <p>It takes the common shape only and answers {@code false} for anything else (non-ASCII, a
 * repeated or unknown line kind, an average that is not {@code digits[.digits]}, a missing key):
 * the caller then parses the text with {@link IoPressure#parse}, which decides. When it answers
 * {@code true}, the totals are those {@link IoPressure#parse} returns for the same text.
 */
public final class IoPressureScan {
  private static final byte[] SOME = IoStatScan.ascii("some");
  private static final byte[] FULL = IoStatScan.ascii("full");
  private static final byte[] AVG10 = IoStatScan.ascii("avg10");
  private static final byte[] AVG60 = IoStatScan.ascii("avg60");
  private static final byte[] AVG300 = IoStatScan.ascii("avg300");
  private static final byte[] TOTAL = IoStatScan.ascii("total");

  private long someMicros;
  private long fullMicros;
  private boolean full;

  /**
   * Scans {@code length} bytes of {@code text}.
   *
   * @return true when the totals are what {@link IoPressure#parse} gives; false when the text must
   *     be parsed by {@link IoPressure#parse}
   */
  public boolean scan(byte[] text, int length) {
    someMicros = -1;
    fullMicros = -1;
    full = false;
    for (int i = 0; i < length; i++) {
      if (text[i] < 0) {
        return false;
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
    return someMicros >= 0;
  }

  /** Takes the result of {@link IoPressure#parse}, for a text {@link #scan} declined. */
  public void load(IoPressure pressure) {
    someMicros = pressure.some().totalMicros();
    full = pressure.full().isPresent();
    fullMicros = full ? pressure.full().get().totalMicros() : -1;
  }

  /** The {@code some} line's total in microseconds. */
  public long someMicros() {
    return someMicros;
  }

  /** Whether the file has a {@code full} line. */
  public boolean hasFull() {
    return full;
  }

  /** The {@code full} line's total in microseconds; meaningful when {@link #hasFull()}. */
  public long fullMicros() {
    return fullMicros;
  }

  private boolean line(byte[] text, int from, int end) {
    int pos = skipSpace(text, from, end);
    if (pos == end) {
      return true;
    }
    int kindStart = pos;
    while (pos < end && !isSpace(text[pos])) {
      pos++;
    }
    boolean some;
    if (is(SOME, text, kindStart, pos) && someMicros < 0) {
      some = true;
    } else if (is(FULL, text, kindStart, pos) && !full) {
      some = false;
    } else {
      return false; // IoPressure.parse refuses it
    }
    boolean avg10 = false;
    boolean avg60 = false;
    boolean avg300 = false;
    long total = -1;
    while (true) {
      pos = skipSpace(text, pos, end);
      if (pos == end) {
        break;
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
        return false;
      }
      if (is(TOTAL, text, tokenStart, eq)) {
        total = count(text, eq + 1, pos);
        if (total < 0) {
          return false;
        }
      } else if (is(AVG10, text, tokenStart, eq)) {
        if (!percentage(text, eq + 1, pos)) {
          return false;
        }
        avg10 = true;
      } else if (is(AVG60, text, tokenStart, eq)) {
        if (!percentage(text, eq + 1, pos)) {
          return false;
        }
        avg60 = true;
      } else if (is(AVG300, text, tokenStart, eq)) {
        if (!percentage(text, eq + 1, pos)) {
          return false;
        }
        avg300 = true;
      }
    }
    if (!avg10 || !avg60 || !avg300 || total < 0) {
      return false;
    }
    if (some) {
      someMicros = total;
    } else {
      full = true;
      fullMicros = total;
    }
    return true;
  }

  /** {@code digits[.digits]}, at most 18 digits each side: what the kernel prints as %lu.%02lu. */
  private static boolean percentage(byte[] text, int from, int to) {
    int pos = from;
    while (pos < to && isDigit(text[pos])) {
      pos++;
    }
    int whole = pos - from;
    if (whole == 0 || whole > 18) {
      return false;
    }
    if (pos == to) {
      return true;
    }
    if (text[pos] != '.') {
      return false;
    }
    int fractionStart = ++pos;
    while (pos < to && isDigit(text[pos])) {
      pos++;
    }
    int fraction = pos - fractionStart;
    return pos == to && fraction > 0 && fraction <= 18;
  }

  private static boolean is(byte[] word, byte[] text, int from, int to) {
    return word.length == to - from && text[from] == word[0] && IoStatScan.same(word, text, from);
  }
}
