package dev.ioqos.metrics;

import static dev.ioqos.metrics.MetricsFixture.FIXTURE_POD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.QosClass;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole exposition: the registry's meters and the pods' series joined into one text. */
class AgentMetricsTest {
  static final String SECOND_POD = "11111111-2222-4333-8444-555555555555";

  @TempDir Path temp;
  MetricsFixture fixture;
  AgentMetrics metrics;

  @BeforeEach
  void setUp() {
    fixture = new MetricsFixture(temp);
    fixture.createPod(SECOND_POD, QosClass.BURSTABLE);
    MetricsFixture.replace(
        fixture.podDir(SECOND_POD, QosClass.BURSTABLE).resolve("io.stat"),
        "254:0 rbytes=512 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n"
            + "254:16 rbytes=0 wbytes=8192 rios=0 wios=2 dbytes=4096 dios=1\n");
    metrics =
        new AgentMetrics(
            () -> fixture.capabilities,
            () -> Optional.of(new CgroupTree(fixture.cgroupfs, "/kubepods.slice")),
            uid ->
                new IoSettings(
                    OptionalInt.of(500),
                    OptionalInt.of(10),
                    Map.of(
                        DeviceId.parse("254:16"),
                        IoLimits.NONE
                            .with(IoLimits.Key.WBPS, 20_971_520L)
                            .with(IoLimits.Key.RIOPS, 100L)),
                    Map.of()),
            fixture.node.resolve("sys"),
            fixture.node.resolve("proc"),
            Duration.ofMillis(500),
            fixture.nanos::get,
            true);
    metrics
        .pods()
        .managed(
            FIXTURE_POD,
            "shop",
            "backup",
            "low",
            MetricsFixture.podPath(FIXTURE_POD, QosClass.BURSTABLE),
            TierState.APPLIED);
    metrics
        .pods()
        .managed(
            SECOND_POD,
            "shop",
            "web \"blue\"",
            "high",
            MetricsFixture.podPath(SECOND_POD, QosClass.BURSTABLE),
            TierState.FAILED);
  }

  @AfterEach
  void close() {
    metrics.close();
  }

  @Test
  void everyFamilyIsWrittenOnceWithItsSamplesTogether() {
    String text = metrics.scrape();

    assertWellFormed(text);
    assertThat(text)
        .contains("# TYPE ioqos_pod_io_read_bytes_total counter\n")
        .contains("# TYPE ioqos_pod_io_max_iops gauge\n")
        .contains("# TYPE ioqos_apply_total counter\n")
        .contains("# TYPE jvm_memory_used_bytes gauge\n")
        .contains(
            "ioqos_pod_io_discarded_bytes_total{device=\"254:16\",device_name=\"vdb\","
                + "namespace=\"shop\",pod=\"web \\\"blue\\\"\",tier=\"high\"} 4096.0\n")
        .contains(
            "ioqos_pod_io_max_bytes_per_second{device=\"254:16\",device_name=\"vdb\","
                + "direction=\"write\",namespace=\"shop\",pod=\"backup\",tier=\"low\"}"
                + " 2.097152E7\n")
        .contains(
            "ioqos_pod_io_max_iops{device=\"254:16\",device_name=\"vdb\",direction=\"read\","
                + "namespace=\"shop\",pod=\"backup\",tier=\"low\"} 100.0\n")
        .contains("ioqos_pod_io_weight{file=\"io.weight\",namespace=\"shop\",pod=\"backup\"")
        .contains(
            "ioqos_pod_tier_applied{namespace=\"shop\",pod=\"web \\\"blue\\\"\",tier=\"high\"}"
                + " 0.0\n")
        .contains("ioqos_node_io_pressure_waiting_seconds_total ");
  }

  @Test
  void aForgottenPodTakesEveryOneOfItsSeriesAndEmptyFamiliesHaveNoHeader() {
    metrics.pods().forget(SECOND_POD);
    String one = metrics.scrape();
    assertThat(one).doesNotContain("blue").contains("pod=\"backup\"");

    metrics.pods().forget(FIXTURE_POD);
    String none = metrics.scrape();
    assertWellFormed(none);
    assertThat(none).doesNotContain("ioqos_pod_");
  }

  @Test
  void concurrentScrapesEachGetAWholeExposition() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      List<Future<String>> scrapes = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        scrapes.add(
            threads.submit(
                () -> {
                  fixture.advance(Duration.ofMillis(300));
                  ByteArrayOutputStream out = new ByteArrayOutputStream();
                  metrics.scrape(out);
                  return out.toString(StandardCharsets.UTF_8);
                }));
      }
      for (Future<String> scrape : scrapes) {
        String text = scrape.get();
        assertWellFormed(text);
        assertThat(text.split("\nioqos_pod_io_reads_total\\{", -1)).hasSize(1 + 4);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * The text format's grouping: each family's HELP then TYPE once, then only its samples (a
   * histogram's or summary's with their suffixes), no family twice, every line ending in '\n'.
   */
  static void assertWellFormed(String text) {
    assertThat(text).endsWith("\n");
    Set<String> seen = new HashSet<>();
    String family = null;
    for (String line : text.split("\n")) {
      if (line.startsWith("# HELP ")) {
        family = line.substring(7, line.indexOf(' ', 7));
        assertThat(seen.add(family)).as("family %s written once", family).isTrue();
      } else if (line.startsWith("# TYPE ")) {
        assertThat(line).startsWith("# TYPE " + family + " ");
      } else {
        int end = line.indexOf('{') >= 0 ? line.indexOf('{') : line.indexOf(' ');
        String name = line.substring(0, end);
        assertThat(family).as("sample %s under a family", line).isNotNull();
        assertThat(name.equals(family) || name.startsWith(family + "_"))
            .as("%s belongs to family %s", line, family)
            .isTrue();
        assertThat(line.substring(line.lastIndexOf(' ') + 1)).matches("[0-9.E+-]+|\\+Inf|NaN");
      }
    }
  }

  @Test
  void josdkTimersKeepCountSumAndMaxButNoBuckets() {
    // As JOSDK's MicrometerMetrics registers its execution timer.
    io.micrometer.core.instrument.Timer.builder("operator.sdk.controllers.execution.reconcile")
        .tag("controller", "ioqos-pods")
        .publishPercentiles(0.3, 0.5, 0.95)
        .publishPercentileHistogram()
        .register(metrics.registry())
        .record(Duration.ofMillis(3));

    String text = metrics.scrape();

    assertThat(text)
        .contains("operator_sdk_controllers_execution_reconcile_seconds_count{")
        .contains("operator_sdk_controllers_execution_reconcile_seconds_sum{")
        .contains("operator_sdk_controllers_execution_reconcile_seconds_max{")
        .doesNotContain("operator_sdk_controllers_execution_reconcile_seconds_bucket")
        .doesNotContain("quantile=");
    // The agent's own apply timer keeps its buckets.
    assertThat(text).contains("ioqos_apply_duration_seconds_bucket{");
  }
}
