package dev.ioqos.core;

/** One PSI line: stall percentages over 10 s, 60 s and 300 s, and the cumulative stall time. */
public record PressureLine(double avg10, double avg60, double avg300, long totalMicros) {

  public PressureLine {
    requirePercentage("avg10", avg10);
    requirePercentage("avg60", avg60);
    requirePercentage("avg300", avg300);
    if (totalMicros < 0) {
      throw new IllegalArgumentException("total must not be negative, was " + totalMicros);
    }
  }

  /** The cumulative stall time in seconds, as Prometheus counters want it. */
  public double totalSeconds() {
    return totalMicros / 1_000_000.0;
  }

  private static void requirePercentage(String name, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be a finite percentage, was " + value);
    }
  }
}
