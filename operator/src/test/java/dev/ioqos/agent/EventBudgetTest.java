package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.node.PodEvent.Type;
import dev.ioqos.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class EventBudgetTest {
  final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T00:00:00Z"));
  final EventBudget budget =
      new EventBudget(
          clock,
          new EventBudget.Limit(3, Duration.ofSeconds(10)),
          new EventBudget.Limit(2, Duration.ofSeconds(1)));

  long admitted(Type type, String reason, int tries) {
    return IntStream.range(0, tries).filter(i -> budget.admit(type, reason)).count();
  }

  @Test
  void aFloodPostsTheBurstThenOnePerRefillAndCountsTheRest() {
    assertThat(admitted(Type.Normal, "Applied", 110)).isEqualTo(3);
    clock.advance(Duration.ofSeconds(10));
    assertThat(admitted(Type.Normal, "Applied", 10)).isEqualTo(1);

    EventBudget.Summary summary = budget.drain().orElseThrow();
    assertThat(summary.count()).isEqualTo(107 + 9);
    assertThat(summary.warnings()).isFalse();
    assertThat(summary.message())
        .startsWith("116 pod Events not posted since 2026-12-04T00:00:00Z")
        .contains("(Applied 116)");
    assertThat(budget.drain()).as("drained").isEmpty();
  }

  @Test
  void warningsHaveTheirOwnBucketSoAFloodOfNormalEventsDoesNotHideThem() {
    admitted(Type.Normal, "Applied", 50);
    assertThat(admitted(Type.Warning, "WriteFailed", 5)).isEqualTo(2);

    EventBudget.Summary summary = budget.drain().orElseThrow();
    assertThat(summary.warnings()).isTrue();
    assertThat(summary.message()).contains("Applied 47, WriteFailed 3");
  }

  @Test
  void theBucketRefillsNoFurtherThanItsBurst() {
    admitted(Type.Normal, "Applied", 3);
    clock.advance(Duration.ofHours(1));
    assertThat(admitted(Type.Normal, "Applied", 10)).isEqualTo(3);
  }
}
