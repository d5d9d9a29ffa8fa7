package dev.ioqos.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

class LocalControlPlaneTest {
  static final Duration TIMEOUT = Duration.ofSeconds(120);

  @Test
  void aStartFarFromMidnightWaitsForNothing() {
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(0, 0, 1), TIMEOUT)).isZero();
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(12, 0), TIMEOUT)).isZero();
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 57, 49), TIMEOUT)).isZero();
  }

  @Test
  void aStartWhoseDeadlineWouldWrapPastMidnightWaitsUntilJustAfterIt() {
    // The CI run that failed started its API servers at 23:59:28.
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 59, 28), TIMEOUT))
        .isEqualTo(Duration.ofSeconds(33));
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 58), TIMEOUT))
        .isEqualTo(Duration.ofSeconds(121));
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.MAX, TIMEOUT))
        .isEqualTo(Duration.ofSeconds(1).plusNanos(1));
  }
}
