package dev.ioqos.demo;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition the agent brings about; the demo fails with what it waited for. */
final class Await {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private Await() {}

  static void until(String what, BooleanSupplier done) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "gave up after " + TIMEOUT.toSeconds() + " s waiting for " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
  }
}
