package dev.ioqos.metrics;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * When a value that is costly to take was last taken, for meters that serve it again until it is
 * {@code maxAge} old ({@link ProcessFileMetrics}, {@link ThreadMetrics}). Not thread-safe: the
 * owner calls it under the lock that guards the value.
 */
final class Recount {
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;
  private boolean taken;
  private long takenAt;

  /**
   * @param maxAge how old a value may be when served again
   * @param nanoClock {@link System#nanoTime()} outside tests
   */
  Recount(Duration maxAge, LongSupplier nanoClock) {
    this.maxAgeNanos = maxAge.toNanos();
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  /** True when the value must be taken now: never taken, or taken {@code maxAge} ago or more. */
  boolean due() {
    return !taken || nanoClock.getAsLong() - takenAt >= maxAgeNanos;
  }

  /**
   * Records that the value was taken now; called after the take succeeded, so a take that threw is
   * tried again at the next call.
   */
  void taken() {
    takenAt = nanoClock.getAsLong();
    taken = true;
  }
}
