package dev.ioqos.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Polls until something the agent brings about is true, or gives up with what it waited for and
 * what it last saw: the demo, the benchmark and the end-to-end tests wait the same way.
 */
public final class Eventually {
  /** The demo's and most tests' patience: an agent reacts within a resync or two. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(50);

  private Eventually() {}

  /**
   * Waits up to {@link #DEFAULT_TIMEOUT} for {@code done}.
   *
   * @throws IllegalStateException naming {@code what} when it gives up
   */
  public static void until(String what, BooleanSupplier done) {
    until(what, DEFAULT_TIMEOUT, done);
  }

  /** Waits up to {@code timeout} for {@code done}. */
  public static void until(String what, Duration timeout, BooleanSupplier done) {
    value(done::getAsBoolean, Boolean::booleanValue, timeout, what);
  }

  /** Polls {@code value} up to {@link #DEFAULT_TIMEOUT} until {@code done}; returns that value. */
  public static <T> T value(Supplier<T> value, Predicate<T> done, String what) {
    return value(value, done, DEFAULT_TIMEOUT, what);
  }

  /**
   * Polls {@code value} up to {@code timeout} until {@code done}; returns that value.
   *
   * @throws IllegalStateException naming {@code what} and the last value seen when it gives up
   */
  public static <T> T value(Supplier<T> value, Predicate<T> done, Duration timeout, String what) {
    return value(value, done, timeout, what, String::valueOf);
  }

  /**
   * As {@link #value(Supplier, Predicate, Duration, String)}, the last value told by {@code show}.
   */
  public static <T> T value(
      Supplier<T> value,
      Predicate<T> done,
      Duration timeout,
      String what,
      Function<? super T, String> show) {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = value.get();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "gave up after "
                + timeout.toSeconds()
                + " s waiting for "
                + what
                + (last instanceof Boolean ? "" : "; last seen: " + show.apply(last)));
      }
      sleep(POLL);
      last = value.get();
    }
    return last;
  }

  /** Sleeps; an interrupt becomes an unchecked failure that keeps the interrupt flag. */
  public static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting", e);
    }
  }
}
