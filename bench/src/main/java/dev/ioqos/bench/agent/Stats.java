package dev.ioqos.bench.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Samples in milliseconds and their percentiles (nearest rank). */
final class Stats {
  private final List<Double> millis = new ArrayList<>();

  synchronized void add(double value) {
    millis.add(value);
  }

  synchronized void addNanos(long nanos) {
    millis.add(nanos / 1e6);
  }

  synchronized int count() {
    return millis.size();
  }

  synchronized double percentile(double p) {
    if (millis.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(millis);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  synchronized double max() {
    return millis.isEmpty() ? Double.NaN : Collections.max(millis);
  }

  /** "p50 / p95 / p99 / max" in ms. */
  String summary() {
    return String.format(
        Locale.ROOT,
        "%s / %s / %s / %s",
        ms(percentile(50)),
        ms(percentile(95)),
        ms(percentile(99)),
        ms(max()));
  }

  static String ms(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    return value < 10
        ? String.format(Locale.ROOT, "%.2f", value)
        : String.format(Locale.ROOT, "%.1f", value);
  }
}
