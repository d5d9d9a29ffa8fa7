package dev.ioqos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AggregateCommandTest {

  @Test
  void defaultsFollowTheDeployment() {
    AggregateCommand command = new AggregateCommand();
    new CommandLine(command).parseArgs();

    String namespace = System.getenv("POD_NAMESPACE");
    assertThat(command.leaseNamespace)
        .isEqualTo(namespace == null || namespace.isEmpty() ? "ioqos-system" : namespace);
    assertThat(command.leaseName).isEqualTo("ioqos-aggregator");
    assertThat(command.leaseDuration).hasSeconds(15);
    assertThat(command.renewDeadline).hasSeconds(10);
    assertThat(command.retryPeriod).hasSeconds(2);
  }

  @Test
  void timingsThatCouldLetTwoLeadersOverlapAreRefusedInOneSentence() {
    StringWriter err = new StringWriter();
    int exit =
        Main.execute(
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true),
            "aggregate",
            "--identity",
            "me",
            "--lease-duration",
            "PT5S",
            "--renew-deadline",
            "PT10S");

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString().strip())
        .isEqualTo(
            "ioqos aggregate: the lease duration (PT5S) must be longer than the renew deadline"
                + " (PT10S), or two leaders could overlap");
  }

  @Test
  void helpNamesTheFlags() {
    StringWriter out = new StringWriter();
    int exit =
        Main.execute(
            new PrintWriter(out, true),
            new PrintWriter(new StringWriter(), true),
            "aggregate",
            "--help");

    assertThat(exit).isZero();
    assertThat(out.toString()).contains("--lease-namespace", "--lease-name", "--identity");
  }
}
