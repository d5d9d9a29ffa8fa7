package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LivenessTest {
  final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T00:00:00Z"));
  final Liveness liveness = new Liveness(clock, Duration.ofSeconds(180), Duration.ofSeconds(120));

  void advance(Duration by) {
    clock.advance(by);
  }

  @Test
  void aBeatingLoopWithoutLongPassesIsAlive() {
    liveness.beat();
    advance(Duration.ofSeconds(170));
    assertThat(liveness.problem()).isEmpty();
  }

  @Test
  void aLoopThatStopsBeatingIsStuck() {
    liveness.beat();
    advance(Duration.ofSeconds(181));
    assertThat(liveness.problem())
        .hasValue("the periodic loop (node state, resync) has not run for 181s");
    liveness.beat();
    assertThat(liveness.problem()).isEmpty();
  }

  @Test
  void aPassThatRunsTooLongIsNamedUntilItEnds() {
    liveness.passStarted("shop/db");
    advance(Duration.ofSeconds(121));
    liveness.beat();
    assertThat(liveness.problem()).hasValue("the pass of pod shop/db has run for 121s");
    liveness.passEnded();
    assertThat(liveness.problem()).isEmpty();
  }
}
