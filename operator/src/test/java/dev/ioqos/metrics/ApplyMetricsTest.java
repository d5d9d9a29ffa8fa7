package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.metrics.ApplyMetrics.Operation;
import dev.ioqos.metrics.ApplyMetrics.Result;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ApplyMetricsTest {
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final ApplyMetrics apply = new ApplyMetrics();

  @BeforeEach
  void bind() {
    apply.bindTo(registry);
  }

  double count(String operation, String result) {
    return registry
        .get("ioqos.apply")
        .tag("operation", operation)
        .tag("result", result)
        .counter()
        .count();
  }

  @Test
  void everyOutcomeSeriesExistsAtZeroBeforeTheFirstApply() {
    String text = registry.scrape(AgentMetrics.CONTENT_TYPE);

    assertThat(text)
        .contains("ioqos_apply_total{operation=\"apply\",result=\"failure\"} 0.0")
        .contains("ioqos_apply_total{operation=\"revert\",result=\"cgroup_missing\"} 0.0")
        .contains("# TYPE ioqos_apply_duration_seconds histogram")
        .contains("ioqos_apply_duration_seconds_bucket{operation=\"apply\",le=\"0.005\"} 0");
  }

  @Test
  void countsAndTimesEachOutcome() {
    apply.record(Operation.APPLY, Result.SUCCESS, Duration.ofMillis(2));
    apply.record(Operation.APPLY, Result.FAILURE, Duration.ofMillis(3));
    apply.record(Operation.REVERT, Result.CGROUP_MISSING, Duration.ofNanos(500));
    apply.record(Operation.APPLY, Result.FAILURE, Duration.ofMillis(200));

    assertThat(count("apply", "success")).isEqualTo(1);
    assertThat(count("apply", "failure")).isEqualTo(2);
    assertThat(count("revert", "cgroup_missing")).isEqualTo(1);
    assertThat(count("revert", "success")).isZero();
    assertThat(registry.get("ioqos.apply.duration").tag("operation", "apply").timer().count())
        .isEqualTo(3);
    assertThat(
            registry
                .get("ioqos.apply.duration")
                .tag("operation", "apply")
                .timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isEqualTo(205.0);
  }
}
