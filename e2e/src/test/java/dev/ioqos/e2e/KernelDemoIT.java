package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The kernel demo ({@code e2e/kernel/demo}, what {@code ioqos demo --kernel} runs) as a user runs
 * it, from the repository root, on Linux 6.12: one boot. Asserts the structure of what it prints
 * and the one figure that holds under software emulation, the capped writer's throughput; the
 * probe's IOPS are printed but depend on the host's load, so they are not asserted beyond being
 * there. The failure paths (a missing tool, an unknown series) are run without booting.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KernelDemoIT {
  static final Pattern ROW =
      Pattern.compile(
          "^  (\\d)\\. .+? +(\\d+) IOPS +(\\d+)% of solo +(?:-|([0-9.]+) MiB/s.*)$",
          Pattern.MULTILINE);
  static final Pattern CAP =
      Pattern.compile("\\((\\d+)% of its ([0-9.]+) MiB/s cap\\)", Pattern.MULTILINE);
  static final String IO_MAX = "254:16 rbps=max wbps=10485760 riops=max wiops=100";

  Path root;
  String output;
  int exit;

  @BeforeAll
  void runTheDemo() throws Exception {
    root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    Path demo = root.resolve("e2e/kernel/demo");
    if (!Files.isExecutable(demo)) {
      fail(demo + " is missing or not executable");
    }
    Path log = root.resolve("e2e/target/kernel-demo-it.log");
    Files.createDirectories(log.getParent());
    long started = System.nanoTime();
    Process process =
        new ProcessBuilder(demo.toString(), "6.12")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!process.waitFor(420, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      fail("the kernel demo did not finish within 420 s; see " + log);
    }
    exit = process.exitValue();
    output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.printf(
        "kernel demo: %.1f s, exit %d%n%s", (System.nanoTime() - started) / 1e9, exit, output);
  }

  @Test
  void theDemoRunsToTheEnd() {
    assertThat(exit).as(output).isZero();
    assertThat(output).contains("Run time: ").doesNotContain("ioqos demo: ");
  }

  @Test
  void itPrintsTheFourRowsOfTheTable() {
    Matcher rows = ROW.matcher(output);
    int expected = 1;
    while (rows.find()) {
      assertThat(Integer.parseInt(rows.group(1))).isEqualTo(expected++);
      assertThat(Long.parseLong(rows.group(2))).as(rows.group()).isPositive();
    }
    assertThat(expected - 1).as("rows of the table in:\n" + output).isEqualTo(4);
    assertThat(output).contains("1. probe alone ", "100% of solo");
  }

  @Test
  void theWriterUnderTheCapWritesWithinFivePercentOfIt() {
    double uncapped = writer(2);
    double capped = writer(3);
    Matcher cap = CAP.matcher(output);
    assertThat(cap.find()).as(output).isTrue();
    double capMib = Double.parseDouble(cap.group(2));
    assertThat(capMib).isEqualTo(10.0);
    assertThat(capped).isBetween(capMib * 0.95, capMib * 1.05);
    // The neighbour was noisy before: uncapped, the writer wrote far more than the cap allows.
    assertThat(uncapped).isGreaterThan(capMib * 2);
  }

  @Test
  void itShowsWhatIoqosWroteAndTheKernelReadsBack() {
    assertThat(output)
        .contains("result:   APPLIED", "policy:   batch-io, tier low (from ANNOTATION)")
        .contains("written:  io.max " + IO_MAX)
        .contains("skipped:  io.weight is not enforced on vdb");
    String readBack = output.substring(output.indexOf("read back from the kernel"));
    assertThat(readBack).contains("/io.max\n  " + IO_MAX, "/io.weight\n  default 100");
  }

  @Test
  void itSaysWhatIsRealAndWhatIsSimulated() {
    assertThat(output)
        .containsPattern("real: +the Linux kernel 6\\.12\\.")
        .contains("cgroup v2", "the block layer", "fio's direct I/O")
        .contains("simulated:  the disks: QEMU software-emulated virtio disks (no KVM)")
        .contains("no kubelet: the pods are cgroup directories this script creates")
        .contains(
            "no API server: ioqos reconcile --objects reads the IoPolicy and the pods from files");
  }

  @Test
  void missingToolsAreNamedWithTheAptCommand() throws Exception {
    // A PATH with bash and dirname only: no qemu, no fio.
    Path bin = Files.createTempDirectory("ioqos-demo-path");
    for (String tool : List.of("bash", "dirname")) {
      Files.createSymbolicLink(bin.resolve(tool), Path.of("/usr/bin", tool).toRealPath());
    }
    ProcessBuilder stripped =
        new ProcessBuilder(root.resolve("e2e/kernel/demo").toString())
            .directory(root.toFile())
            .redirectErrorStream(true);
    stripped.environment().put("PATH", bin.toString());
    Process run = stripped.start();
    String said = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).isEqualTo(1);
    assertThat(said)
        .contains("qemu-system-x86_64", "fio")
        .contains("sudo apt-get install -y qemu-system-x86 fio");
  }

  @Test
  void anUnknownSeriesIsRefused() throws Exception {
    Process run =
        new ProcessBuilder(root.resolve("e2e/kernel/demo").toString(), "5.4")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .start();
    String said = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).isEqualTo(1);
    assertThat(said).contains("unknown kernel series '5.4': use 6.12 or 6.1");
  }

  /** The writer's MiB/s in row {@code row} of the table. */
  double writer(int row) {
    Matcher rows = ROW.matcher(output);
    while (rows.find()) {
      if (Integer.parseInt(rows.group(1)) == row) {
        assertThat(rows.group(4)).as("the writer's figure in " + rows.group()).isNotNull();
        return Double.parseDouble(rows.group(4));
      }
    }
    throw new AssertionError("no row " + row + " in:\n" + output);
  }
}
