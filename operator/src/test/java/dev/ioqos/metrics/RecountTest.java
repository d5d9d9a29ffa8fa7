package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RecountTest {
  // nanoTime may be negative; the age is a difference, so it must still work there.
  final AtomicLong nanos = new AtomicLong(-5_000_000_000L);
  final Recount recount = new Recount(Duration.ofSeconds(10), nanos::get);

  @Test
  void isDueFirstThenOnlyOnceTheValueIsMaxAgeOld() {
    assertThat(recount.due()).as("never taken").isTrue();
    recount.taken();
    assertThat(recount.due()).as("just taken").isFalse();
    nanos.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(recount.due()).as("one nanosecond short of the age").isFalse();
    nanos.incrementAndGet();
    assertThat(recount.due()).as("at the age").isTrue();
    recount.taken();
    assertThat(recount.due()).as("taken again").isFalse();
  }

  @Test
  void aTakeThatFailedIsDueAgain() {
    assertThat(recount.due()).isTrue();
    // The caller's take threw: taken() was never called.
    assertThat(recount.due()).as("still due at the next call").isTrue();
  }

  @Test
  void anAgeOfZeroIsAlwaysDue() {
    Recount always = new Recount(Duration.ZERO, nanos::get);
    always.taken();
    assertThat(always.due()).isTrue();
    always.taken();
    assertThat(always.due()).isTrue();
  }
}
