package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeMetricsTest {
  @TempDir Path temp;

  @Test
  void capabilitiesOfTheProbeAndTheNodesPressure() throws Exception {
    MetricsFixture fixture = new MetricsFixture(temp);
    new NodeMetrics(
            () -> fixture.capabilities,
            fixture.files,
            fixture.node.resolve("proc"),
            Duration.ofSeconds(1),
            fixture.nanos::get)
        .bindTo(fixture.registry);

    String text = fixture.registry.scrape(AgentMetrics.CONTENT_TYPE);

    // The fixture: cgroup v2, io delegated, PSI on, no io.latency, io.cost.qos present, vdb on bfq.
    assertThat(text)
        .contains("ioqos_node_capability{capability=\"cgroup_v2\"} 1")
        .contains("ioqos_node_capability{capability=\"io_controller\"} 1")
        .contains("ioqos_node_capability{capability=\"psi\"} 1")
        .contains("ioqos_node_capability{capability=\"io_latency\"} 0")
        .contains("ioqos_node_capability{capability=\"iocost\"} 1")
        .contains("ioqos_node_capability{capability=\"weights\"} 1")
        // /proc/pressure/io: some total=187487, full total=185599 (microseconds).
        .contains("ioqos_node_io_pressure_waiting_seconds_total 0.187487")
        .contains("ioqos_node_io_pressure_stalled_seconds_total 0.185599");

    Files.writeString(
        fixture.node.resolve("proc/pressure/io"),
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=2187487\n"
            + "full avg10=0.00 avg60=0.00 avg300=0.00 total=1185599\n");
    fixture.advance(Duration.ofSeconds(2));
    assertThat(fixture.registry.scrape(AgentMetrics.CONTENT_TYPE))
        .contains("ioqos_node_io_pressure_waiting_seconds_total 2.187487");
  }

  @Test
  void withoutPsiThereAreNoPressureSeries() throws Exception {
    MetricsFixture fixture = new MetricsFixture(temp);
    Files.delete(fixture.node.resolve("proc/pressure/io"));
    new NodeMetrics(
            () -> fixture.capabilities,
            fixture.files,
            fixture.node.resolve("proc"),
            Duration.ofSeconds(1),
            fixture.nanos::get)
        .bindTo(fixture.registry);

    assertThat(fixture.registry.scrape(AgentMetrics.CONTENT_TYPE))
        .doesNotContain("ioqos_node_io_pressure")
        .contains("ioqos_node_capability{capability=\"weights\"}");
  }
}
