package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.metrics.ApplyMetrics.Operation;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
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
  void countsAndTimesEachOutcomeAndPassesResultsAndErrorsOn() throws Exception {
    assertThat(apply.time(Operation.APPLY, () -> "ok", s -> false)).isEqualTo("ok");
    apply.time(Operation.APPLY, () -> "refused", s -> true);
    CgroupIoException gone =
        new CgroupIoException(CgroupFailure.CGROUP_GONE, Path.of("/x/io.max"), null, "missing");
    assertThatThrownBy(
            () ->
                apply.time(
                    Operation.REVERT,
                    () -> {
                      throw gone;
                    },
                    s -> false))
        .isSameAs(gone);
    CgroupIoException unsafe =
        new CgroupIoException(CgroupFailure.UNSAFE_PATH, Path.of("/x/io.max"), null, "symlink");
    assertThatThrownBy(
            () ->
                apply.time(
                    Operation.APPLY,
                    () -> {
                      throw unsafe;
                    },
                    s -> false))
        .isSameAs(unsafe);

    assertThat(count("apply", "success")).isEqualTo(1);
    assertThat(count("apply", "failure")).isEqualTo(2);
    assertThat(count("revert", "cgroup_missing")).isEqualTo(1);
    assertThat(registry.get("ioqos.apply.duration").tag("operation", "apply").timer().count())
        .isEqualTo(3);
  }
}
