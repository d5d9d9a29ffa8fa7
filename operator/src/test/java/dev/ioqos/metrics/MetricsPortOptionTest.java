package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ioqos run --metrics-port}: documented default, 0 for none, anything else refused. */
class MetricsPortOptionTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
  }

  @Test
  void usageGivesTheDefaultPortAndHowToTurnTheEndpointOff() {
    String usage = new CommandLine(new Main()).getSubcommands().get("run").getUsageMessage();

    assertThat(usage.replaceAll("\\s+", " "))
        .contains("--metrics-port=<metricsPort>")
        .contains("0 turns the endpoint off (default: 8080)");
  }

  @Test
  void aPortOutOfRangeIsRefusedBeforeAnythingStarts() {
    assertThat(run("run", "--node-name", "n1", "--metrics-port", "70000")).isEqualTo(1);

    assertThat(err.toString())
        .contains("--metrics-port must be a port number (1..65535) or 0 for none, not 70000");
  }
}
