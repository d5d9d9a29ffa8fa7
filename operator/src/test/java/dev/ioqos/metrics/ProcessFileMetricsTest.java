package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProcessFileMetricsTest {
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final AtomicInteger counts = new AtomicInteger();
  final AtomicLong open = new AtomicLong(40);
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void theOpenCountIsTakenAtMostOncePerAgeUnderMicrometersNames() {
    new ProcessFileMetrics(
            () -> {
              counts.incrementAndGet();
              return open.get();
            },
            Duration.ofSeconds(10),
            nanos::get)
        .bindTo(registry, () -> 1_048_576);
    System.gc(); // the registry holds its gauges weakly unless told otherwise

    assertThat(registry.scrape())
        .contains(
            "# HELP process_files_open_files The open file descriptor count\n"
                + "# TYPE process_files_open_files gauge\n"
                + "process_files_open_files 40.0\n")
        .contains(
            "# HELP process_files_max_files The maximum file descriptor count\n"
                + "# TYPE process_files_max_files gauge\n"
                + "process_files_max_files 1048576.0\n");
    assertThat(counts).hasValue(1);

    open.set(540);
    nanos.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(registry.scrape()).contains("process_files_open_files 40.0\n");
    assertThat(counts).as("within the age: the last count").hasValue(1);

    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(registry.scrape()).contains("process_files_open_files 540.0\n");
    assertThat(counts).hasValue(2);
  }

  @Test
  void theAgentsRegistryCountsTheRealDescriptors() {
    ProcessFileMetrics.bind(registry, System::nanoTime);
    System.gc();
    assertThat(registry.get("process.files.open").gauge().value()).isPositive();
    assertThat(registry.get("process.files.max").gauge().value()).isPositive();
  }
}
