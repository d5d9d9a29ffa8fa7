package dev.ioqos.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricLineTest {
  @Test
  void parsesSamplesAndSkipsComments() {
    List<MetricLine> lines =
        MetricLine.parse(
            "# HELP ioqos_pod_tier_applied 1 when ...\n"
                + "# TYPE ioqos_pod_tier_applied gauge\n"
                + "ioqos_pod_tier_applied{namespace=\"ioqos-demo\",pod=\"backup\",tier=\"low\"} 1.0\n"
                + "\n"
                + "ioqos_pod_io_written_bytes_total{device=\"254:16\",pod=\"a \\\"b\\\"\"} 5.0331648E7\n"
                + "process_uptime_seconds 12.5\n");

    assertThat(lines).hasSize(3);
    assertThat(lines.get(0).labels())
        .containsExactly(
            Map.entry("namespace", "ioqos-demo"),
            Map.entry("pod", "backup"),
            Map.entry("tier", "low"));
    assertThat(lines.get(0).value()).isEqualTo(1.0);
    assertThat(lines.get(1).value()).isEqualTo(50_331_648.0);
    assertThat(lines.get(1).label("pod")).isEqualTo("a \\\"b\\\"");
    assertThat(lines.get(2).name()).isEqualTo("process_uptime_seconds");
    assertThat(lines.get(2).labels()).isEmpty();
    assertThat(lines.get(2).label("pod")).isEmpty();
  }
}
