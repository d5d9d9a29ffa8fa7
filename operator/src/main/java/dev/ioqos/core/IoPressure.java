package dev.ioqos.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A PSI file (a cgroup's io.pressure or /proc/pressure/io): a {@code some} and a {@code full} line.
 */
public record IoPressure(PressureLine some, Optional<PressureLine> full) {

  static final String FILE = "io.pressure";

  public IoPressure {
    Objects.requireNonNull(some, "some");
    Objects.requireNonNull(full, "full");
  }

  /** Parses a cgroup's io.pressure. */
  public static IoPressure parse(String content) {
    return parse(FILE, content);
  }

  /**
   * Parses a PSI file named {@code file} in errors (e.g. {@code /proc/pressure/io}). io files
   * always have both lines, but {@code full} may be absent (/proc/pressure/cpu before Linux 5.13
   * has none). Keys other than avg10, avg60, avg300 and total are skipped.
   */
  public static IoPressure parse(String file, String content) {
    Objects.requireNonNull(file, "file");
    PressureLine some = null;
    PressureLine full = null;
    for (String line : KernelText.lines(content)) {
      List<String> tokens = KernelText.tokens(line);
      String kind = tokens.get(0);
      if (kind.equals("some") && some == null) {
        some = line(file, line, tokens);
      } else if (kind.equals("full") && full == null) {
        full = line(file, line, tokens);
      } else {
        throw new KernelFormatException(
            file, line, "expected one 'some' and at most one 'full' line");
      }
    }
    if (some == null) {
      throw KernelFormatException.forContent(file, content, "no 'some' line");
    }
    return new IoPressure(some, Optional.ofNullable(full));
  }

  private static PressureLine line(String file, String line, List<String> tokens) {
    double avg10 = Double.NaN;
    double avg60 = Double.NaN;
    double avg300 = Double.NaN;
    long total = KernelText.NOT_A_COUNT;
    for (int i = 1; i < tokens.size(); i++) {
      String token = tokens.get(i);
      int eq = KernelText.equalsSign(file, line, token);
      String key = token.substring(0, eq);
      switch (key) {
        case "avg10" -> avg10 = percentage(file, line, key, token.substring(eq + 1));
        case "avg60" -> avg60 = percentage(file, line, key, token.substring(eq + 1));
        case "avg300" -> avg300 = percentage(file, line, key, token.substring(eq + 1));
        case "total" -> {
          total = KernelText.parseCount(token, eq + 1);
          if (total == KernelText.NOT_A_COUNT) {
            throw new KernelFormatException(file, line, "total is not a number of microseconds");
          }
        }
        default -> {
          // A key a later kernel may add; skipped like unknown io.stat keys.
        }
      }
    }
    if (Double.isNaN(avg10) || Double.isNaN(avg60) || Double.isNaN(avg300) || total < 0) {
      throw new KernelFormatException(file, line, "expected avg10, avg60, avg300 and total");
    }
    return new PressureLine(avg10, avg60, avg300, total);
  }

  /**
   * The kernel prints averages as {@code %lu.%02lu}; refuse what Double.parseDouble would also take
   * (1e3, NaN, 0x1p3).
   */
  private static double percentage(String file, String line, String key, String text) {
    int dot = text.indexOf('.');
    String whole = dot < 0 ? text : text.substring(0, dot);
    String fraction = dot < 0 ? "" : text.substring(dot + 1);
    if (KernelText.parseCount(whole, 0) == KernelText.NOT_A_COUNT
        || (dot >= 0 && KernelText.parseCount(fraction, 0) == KernelText.NOT_A_COUNT)) {
      throw new KernelFormatException(file, line, key + " is not a decimal percentage");
    }
    return Double.parseDouble(text);
  }
}
