package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 17 on Linux 6.12 (built without io.latency): {@code e2e/kernel/latency} as a user runs it
 * (one boot). A protected 4 KiB random reader and a 1 MiB sequential writer of a lower tier with no
 * static cap share vdb; the agent's latency loop ({@code ioqos reconcile --loop-for}, the agent's
 * own LatencyLoopStep) must throttle the writer while the reader runs and give the disk back after.
 * The figures depend on the emulation and the host's load: they are printed, and asserted only in
 * direction with margins (bounds from runs on a loaded 2-core machine, see architecture.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KernelLatencyLoopIT {
  Path root;
  String output;
  String log;
  int exit;
  final Map<String, String> figures = new HashMap<>();

  @BeforeAll
  void runTheScenario() throws Exception {
    root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    Path script = root.resolve("e2e/kernel/latency");
    if (!Files.isExecutable(script)) {
      fail(script + " is missing or not executable");
    }
    Path out = root.resolve("e2e/target/kernel-latency-it.log");
    Files.createDirectories(out.getParent());
    Process process =
        new ProcessBuilder(script.toString(), "6.12")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!process.waitFor(700, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      fail("e2e/kernel/latency did not finish within 700 s; see " + out);
    }
    exit = process.exitValue();
    output = Files.readString(out, StandardCharsets.UTF_8);
    System.out.println(output);
    Path guestLog = root.resolve("e2e/target/kernel-latency-6.12/latency.log");
    log = Files.isRegularFile(guestLog) ? Files.readString(guestLog, StandardCharsets.UTF_8) : "";
    boolean inside = false;
    for (String line : log.split("\r?\n")) {
      if (line.contains("@@IOQOS BEGIN latency-figures")) {
        inside = true;
      } else if (line.contains("@@IOQOS END latency-figures")) {
        inside = false;
      } else if (inside && line.contains("=")) {
        String[] kv = line.trim().split("=", 2);
        figures.put(kv[0], kv[1]);
      }
    }
  }

  double figure(String key) {
    String value = figures.get(key);
    assertThat(value).as("figure %s in:\n%s", key, output).isNotNull().matches("[0-9.]+");
    return Double.parseDouble(value);
  }

  @Test
  void theScenarioRunsToTheEnd() {
    assertThat(exit).as(output).isZero();
    assertThat(output)
        .contains("Reproduce: e2e/kernel/latency 6.12")
        .doesNotContain("ioqos latency: ");
  }

  @Test
  void theLoopThrottlesTheWriterOnlyWhileTheReaderRunsAndRestoresItAfter() {
    assertThat(figure("throttle_events")).as("LatencyThrottled Events").isGreaterThanOrEqualTo(1);
    assertThat(figure("release_events")).as("LatencyReleased Events").isGreaterThanOrEqualTo(1);
    // Stopping the loop leaves the writer at its tier's static values: no cap at all; the dry
    // run wrote nothing.
    assertThat(figures.get("writer_io_max_after")).isEqualTo("''");
    assertThat(figures.get("dry_io_max_untouched")).isEqualTo("''");
    assertThat(figures.get("first_throttle_ms")).as("the loop throttled").isNotEqualTo("none");
    // Measured from the reader's first I/O: first throttle 0-1 s, last decrease 2.3-2.7 s on a
    // loaded 2-core host (goal < 5 s); bounds with margin.
    assertThat(figure("first_throttle_ms")).isLessThan(5_000);
    assertThat(figure("settle_ms")).isLessThan(10_000);
  }

  @Test
  void theReaderIsClearlyBetterWithTheLoopThanWithout() {
    // Against the control with the same JVM running the loop in dry run (under emulation the JVM's
    // CPU slows the emulated disk): measured 788 vs 229 IOPS, 977 vs 3475 us mean.
    assertThat(figure("loop_iops")).isGreaterThan(1.3 * figure("dry_iops"));
    assertThat(figure("loop_mean_us")).isLessThan(0.8 * figure("dry_mean_us"));
  }

  @Test
  void theWriterGetsTheDiskBackAfterTheReaderStops() {
    // A static cap that protects the reader as well would hold the writer near the floor for
    // good; the loop lifts its cap once the reader is idle. The emulated disk's write speed swings
    // 2-5x from second to second with the host's load, so the writer after the reader is compared
    // with the writer before it in the same run: measured 99% (6.1); and with the writer while
    // the reader ran (276-296 MiB/s against 604-1855 after).
    assertThat(figure("writer_after_reader_kib_s"))
        .isGreaterThan(0.5 * figure("writer_before_reader_kib_s"));
    assertThat(figure("writer_after_reader_kib_s"))
        .isGreaterThan(1.5 * figure("writer_during_reader_kib_s"));
  }

  @Test
  void theLoopIsCheapWhenNothingIsContended() {
    // Under emulation (TCG, a client JIT) a period costs far more CPU than on a node: measured
    // 6.7% of a core idle in the guest, 0.25% natively (ReconcileCommandTest, 20 s).
    assertThat(figure("idle_cpu_share")).isLessThan(0.20);
  }
}
