package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.testkit.MetricLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar ioqos-demo.jar demo}, the README's first command ({@code ./demo}), as a newcomer
 * runs it: the demo module's shaded jar in a subprocess against etcd and kube-apiserver from {@code
 * ~/.kubeapitest}. Asserts what it prints: each pod's tier and the values read back, the tier
 * change, the metrics and the revert.
 */
class DemoIT {
  static final Path JAR =
      Paths.get(System.getProperty("user.dir"))
          .resolve("../demo-app/target/ioqos-demo.jar")
          .normalize();
  static final Path BINARIES =
      Paths.get(
          Optional.ofNullable(System.getProperty("ioqos.kubeapitest.dir"))
              .orElse(System.getProperty("user.home") + "/.kubeapitest"));
  static final String LOW_CAP = "254:16 rbps=max wbps=20971520 riops=max wiops=200";
  static final String NO_CAP = "254:16 rbps=max wbps=max riops=max wiops=max";

  @TempDir Path temp;

  record Run(int exit, String out, String err, long millis) {}

  /** One row of a read-back table: POD, TIER, DISK, io.weight, io.bfq.weight, io.max. */
  record Row(String tier, String disk, String ioWeight, String bfqWeight, String ioMax) {}

  @Test
  void theDemoShowsTiersAppliedChangedMeasuredAndReverted() throws Exception {
    Run run = demo("--binaries", BINARIES.toString());
    System.out.println(run.out());
    System.out.println("demo took " + run.millis() + " ms");

    assertThat(run.exit()).as("exit code; stderr:\n" + run.err()).isZero();
    assertThat(run.err()).as("stderr").doesNotContain("ERROR", "WARN", "Exception");
    Map<Integer, String> steps = steps(run.out());
    assertThat(steps).containsOnlyKeys(1, 2, 3, 4, 5, 6, 7);
    assertThat(steps.get(1)).containsPattern("ready in \\d+\\.\\d s");
    assertThat(steps.get(2))
        .contains("iopolicies.ioqos.dev", "ionodestates.ioqos.dev", "Established");

    Map<String, Row> applied = table(steps.get(4));
    assertThat(applied).containsOnlyKeys("database", "backup", "web");
    applied.values().forEach(row -> assertThat(row.disk()).isEqualTo("vdb 254:16"));
    // vdb is on bfq without iocost: weights go to io.bfq.weight (500 scales to 136 there).
    assertThat(applied.get("database"))
        .isEqualTo(new Row("high", "vdb 254:16", "default 100", "default 136", NO_CAP));
    assertThat(applied.get("backup"))
        .isEqualTo(new Row("low", "vdb 254:16", "default 100", "default 10", LOW_CAP));
    assertThat(applied.get("web").tier()).as("defaultTier").isEqualTo("standard");
    assertThat(applied.get("web").bfqWeight()).isEqualTo("default 100");
    assertThat(applied.get("web").ioMax()).doesNotContain("wbps=20971520");
    assertThat(steps.get(4))
        .containsPattern(
            "cgroup /kubepods\\.slice/kubepods-burstable\\.slice/kubepods-burstable-pod[0-9a-f_]{36}\\.slice");

    String metrics = steps.get(5);
    for (String pod : List.of("database", "backup", "web")) {
      assertThat(metric(metrics, "ioqos_pod_io_written_bytes_total", pod)).isPositive();
      assertThat(metric(metrics, "ioqos_pod_io_read_bytes_total", pod)).isPositive();
      assertThat(metric(metrics, "ioqos_pod_io_pressure_stalled_seconds_total", pod)).isPositive();
      assertThat(metric(metrics, "ioqos_pod_tier_applied", pod)).isEqualTo(1.0);
    }
    assertThat(metric(metrics, "ioqos_pod_io_weight", "database")).isEqualTo(136.0);
    assertThat(metric(metrics, "ioqos_pod_io_max_bytes_per_second", "backup"))
        .isEqualTo(20.0 * 1024 * 1024);
    assertThat(metric(metrics, "ioqos_pod_io_max_iops", "backup")).isEqualTo(200.0);
    assertThat(metrics).contains("pod=\"backup\",tier=\"low\"");

    Map<String, Row> changed = table(steps.get(6));
    assertThat(changed.get("backup"))
        .isEqualTo(new Row("high", "vdb 254:16", "default 100", "default 136", NO_CAP));
    assertThat(changed.get("database")).isEqualTo(applied.get("database"));
    assertThat(changed.get("web")).isEqualTo(applied.get("web"));

    Map<String, Row> reverted = table(steps.get(7));
    assertThat(reverted).containsOnlyKeys("database", "backup", "web");
    reverted
        .values()
        .forEach(
            row ->
                assertThat(row)
                    .isEqualTo(
                        new Row("(none)", "vdb 254:16", "default 100", "default 100", NO_CAP)));

    for (String pod : List.of("database", "backup", "web")) {
      assertThat(steps.get(7))
          .as("the agent's Event, read from the API server")
          .containsPattern(
              pod
                  + ": Reverted: no policy applies any more; restored io\\.bfq\\.weight default 100");
    }

    assertThat(run.out())
        .contains("Real: etcd and kube-apiserver")
        .contains("Simulated: no kubelet");
    Matcher removed = Pattern.compile("removed (\\S+)\\.\\s*$").matcher(run.out());
    assertThat(removed.find()).as("says what it removed").isTrue();
    assertThat(Path.of(removed.group(1))).doesNotExist();
  }

  @Test
  void withoutBinariesTheJarSaysHowToBuildThem() throws Exception {
    Run run = demo("--binaries", temp.resolve("nothing").toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip()).startsWith("ioqos demo: ").contains("e2e/control-plane/build");
    assertThat(run.err().strip().lines()).hasSize(1);
  }

  private Run demo(String... args) throws IOException, InterruptedException {
    assertThat(JAR).as("the shaded jar, built by the operator module's package phase").exists();
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Djava.io.tmpdir=" + temp);
    command.add("-jar");
    command.add(JAR.toString());
    command.add("demo");
    command.addAll(List.of(args));
    Path out = temp.resolve("out.txt");
    Path err = temp.resolve("err.txt");
    long start = System.nanoTime();
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroy();
      process.waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError("the demo did not finish in 3 minutes:\n" + Files.readString(out));
    }
    return new Run(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /** The output of each numbered step, by number. */
  static Map<Integer, String> steps(String out) {
    Map<Integer, String> steps = new LinkedHashMap<>();
    Matcher header = Pattern.compile("(?m)^\\[(\\d)/7\\] ").matcher(out);
    List<int[]> starts = new ArrayList<>();
    while (header.find()) {
      starts.add(new int[] {Integer.parseInt(header.group(1)), header.start()});
    }
    for (int i = 0; i < starts.size(); i++) {
      int end = i + 1 < starts.size() ? starts.get(i + 1)[1] : out.length();
      steps.put(starts.get(i)[0], out.substring(starts.get(i)[1], end));
    }
    return steps;
  }

  /** The read-back rows of one step, by pod name. */
  static Map<String, Row> table(String step) {
    Map<String, Row> rows = new LinkedHashMap<>();
    for (String line : step.lines().toList()) {
      String trimmed = line.strip();
      if (trimmed.startsWith("ioqos-demo/")) {
        String[] columns = trimmed.split("\\s{2,}");
        assertThat(columns).as(line).hasSize(6);
        rows.put(
            columns[0].substring("ioqos-demo/".length()),
            new Row(columns[1], columns[2], columns[3], columns[4], columns[5]));
      }
    }
    return rows;
  }

  /** The value of {@code name} for {@code pod} in a metrics sample (the first such line). */
  static double metric(String sample, String name, String pod) {
    Optional<MetricLine> line =
        MetricLine.parse(sample).stream()
            .filter(l -> l.name().equals(name) && l.label("pod").equals(pod))
            .findFirst();
    assertThat(line).as(name + " of " + pod + " in\n" + sample).isPresent();
    return line.get().value();
  }
}
