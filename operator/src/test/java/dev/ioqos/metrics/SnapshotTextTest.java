package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnapshotTextTest {
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final AtomicLong value = new AtomicLong(7);

  @Test
  void writesEveryKindOfMeterAsTheRegistryScrapeDoes() {
    Counter.builder("ioqos.apply")
        .description("Applies by outcome; a \\ backslash,\na line feed, a \"quote\" and é")
        .tags("operation", "apply", "result", "success")
        .register(registry)
        .increment(250);
    Counter.builder("ioqos.apply")
        .tags("operation", "revert", "result", "a \"quoted\" \\ value\nover two lines, 日本")
        .register(registry);
    Counter.builder("requests.total").register(registry).increment(3);
    Counter.builder("big").register(registry).increment(1L << 60);
    Gauge.builder("ioqos.ledger.writable", () -> 1).description("1 or 0").register(registry);
    Gauge.builder("not.a.number", () -> Double.NaN).register(registry);
    Gauge.builder("up.to", () -> Double.POSITIVE_INFINITY).tag("side", "up").register(registry);
    Gauge.builder("up.to", () -> Double.NEGATIVE_INFINITY).tag("side", "down").register(registry);
    Gauge.builder("tiny", () -> 1e-10).baseUnit("bytes").register(registry);
    TimeGauge.builder("uptime.like", value, TimeUnit.SECONDS, AtomicLong::get).register(registry);
    FunctionCounter.builder("ioqos.read", value, AtomicLong::get)
        .description("function counter")
        .register(registry);
    Timer plain = Timer.builder("josdk.like").tag("controller", "pods").register(registry);
    plain.record(Duration.ofMillis(12));
    plain.record(Duration.ofMillis(3));
    Timer buckets =
        Timer.builder("ioqos.apply.duration")
            .serviceLevelObjectives(
                Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(1))
            .tag("operation", "apply")
            .register(registry);
    buckets.record(Duration.ofNanos(700_000));
    buckets.record(Duration.ofMillis(40));
    Timer quantiles =
        Timer.builder("with.quantiles").publishPercentiles(0.5, 0.99).register(registry);
    quantiles.record(Duration.ofMillis(8));
    DistributionSummary.builder("sizes")
        .baseUnit("bytes")
        .serviceLevelObjectives(1024, 1048576)
        .register(registry)
        .record(4096);
    DistributionSummary.builder("sizes.quantiled")
        .publishPercentiles(0.9)
        .register(registry)
        .record(10);
    FunctionTimer.builder("function.timer", value, v -> 4, v -> 2.5, TimeUnit.SECONDS)
        .register(registry);

    String ours = ours(registry.getPrometheusRegistry().scrape());

    assertThat(ours).isEqualTo(registry.scrape(AgentMetrics.CONTENT_TYPE));
    assertThat(ours)
        .contains("ioqos_apply_total{operation=\"apply\",result=\"success\"} 250.0\n")
        .contains("# HELP ioqos_apply_total Applies by outcome; a \\\\ backslash,\\na line feed")
        .contains("ioqos_apply_duration_seconds_bucket{operation=\"apply\",le=\"0.001\"} 1\n")
        .contains("up_to{side=\"up\"} +Inf\n");
  }

  @Test
  void writesTheJvmMetersOfOneSnapshotAsTheLibraryDoes() throws Exception {
    // Their values (and a running task's duration) change from scrape to scrape: one snapshot
    // written both ways.
    LongTaskTimer.builder("long.tasks").register(registry).start();
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    try (JvmGcMetrics gc = new JvmGcMetrics()) {
      gc.bindTo(registry);
      System.gc();
      MetricSnapshots snapshots = registry.getPrometheusRegistry().scrape();

      assertThat(ours(snapshots)).isEqualTo(library(snapshots)).contains("jvm_memory_used_bytes{");
    }
  }

  @Test
  void leavesWhatMicrometerDoesNotMakeToTheLibrarysWriter() throws Exception {
    MetricSnapshots snapshots =
        MetricSnapshots.of(
            InfoSnapshot.builder()
                .name("build")
                .help("the build")
                .dataPoint(
                    InfoSnapshot.InfoDataPointSnapshot.builder()
                        .labels(Labels.of("version", "1.0"))
                        .build())
                .build(),
            StateSetSnapshot.builder()
                .name("feature")
                .dataPoint(
                    StateSetSnapshot.StateSetDataPointSnapshot.builder()
                        .state("a", true)
                        .state("b", false)
                        .build())
                .build(),
            UnknownSnapshot.builder()
                .name("other")
                .dataPoint(UnknownSnapshot.UnknownDataPointSnapshot.builder().value(2).build())
                .build(),
            GaugeSnapshot.builder()
                .name("stamped")
                .dataPoint(
                    GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(1)
                        .scrapeTimestampMillis(1_700_000_000_000L)
                        .build())
                .build(),
            CounterSnapshot.builder().name("empty").build(),
            CounterSnapshot.builder()
                .name("dotted.name")
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(1).build())
                .build());

    String ours = ours(snapshots);

    assertThat(ours).isEqualTo(library(snapshots)).contains("build_info{version=\"1.0\"} 1");
    assertThat(ours).doesNotContain("empty");
  }

  @Test
  void aLegacyNameIsLettersDigitsUnderscoresAndColonsForAMetricOnly() {
    assertThat(SnapshotText.legacyName("ioqos_pod:rate_5m", true)).isTrue();
    assertThat(SnapshotText.legacyName("pod:rate", false)).isFalse();
    assertThat(SnapshotText.legacyName("5xx", true)).isFalse();
    assertThat(SnapshotText.legacyName("dotted.name", true)).isFalse();
    assertThat(SnapshotText.legacyName("", false)).isFalse();
  }

  private static String ours(MetricSnapshots snapshots) {
    Exposition out = new Exposition(16);
    SnapshotText.write(snapshots, out);
    return out.toString();
  }

  private static String library(MetricSnapshots snapshots) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, snapshots);
    return out.toString(StandardCharsets.UTF_8);
  }
}
