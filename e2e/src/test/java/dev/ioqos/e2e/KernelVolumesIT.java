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
 * Issue 21 on Linux 6.12: {@code e2e/kernel/volumes} as a user runs it (one boot). A pod with a
 * local PV on {@code vda} (bind-mounted where kubelet mounts it) and an emptyDir on {@code vdb}
 * (kubelet's root dir is {@code vdb1}), in a tier capped at 10 MiB/s writes. With the policy's
 * default disks the cap lands on vdb; with {@code podVolumes: {names: [data]}} it lands on vda only
 * (vdb's line reverted), and fio in the pod writes within 5% of the cap on the volume and uncapped
 * (at least three times the cap) on the other disk.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KernelVolumesIT {
  static final double CAP_MIB_S = 10.0;

  Path root;
  String output;
  String log;
  int exit;
  final Map<String, Map<String, String>> figures = new HashMap<>();

  @BeforeAll
  void runTheScenario() throws Exception {
    root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    Path script = root.resolve("e2e/kernel/volumes");
    if (!Files.isExecutable(script)) {
      fail(script + " is missing or not executable");
    }
    Path out = root.resolve("e2e/target/kernel-volumes-it.log");
    Files.createDirectories(out.getParent());
    Process process =
        new ProcessBuilder(script.toString(), "6.12")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!process.waitFor(480, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      fail("e2e/kernel/volumes did not finish within 480 s; see " + out);
    }
    exit = process.exitValue();
    output = Files.readString(out, StandardCharsets.UTF_8);
    System.out.println(output);
    Path guestLog = root.resolve("e2e/target/kernel-volumes-6.12/volumes.log");
    log = Files.isRegularFile(guestLog) ? Files.readString(guestLog, StandardCharsets.UTF_8) : "";
    boolean inside = false;
    for (String line : log.split("\r?\n")) {
      if (line.contains("@@IOQOS BEGIN volumes-figures")) {
        inside = true;
      } else if (line.contains("@@IOQOS END volumes-figures")) {
        inside = false;
      } else if (inside) {
        String[] words = line.trim().split("\\s+");
        Map<String, String> values = new HashMap<>();
        for (int i = 2; i < words.length; i++) {
          String[] kv = words[i].split("=", 2);
          values.put(kv[0], kv[1]);
        }
        figures.put(words[0] + " " + words[1], values);
      }
    }
  }

  double writeMiBs(String run) {
    Map<String, String> values = figures.get(run);
    assertThat(values).as("figures of %s in:\n%s", run, output).isNotNull();
    assertThat(values.get("status")).as(run + ": fio's status").isEqualTo("0");
    return Double.parseDouble(values.get("write_mib_s"));
  }

  @Test
  void theScenarioRunsToTheEnd() {
    assertThat(exit).as(output).isZero();
    assertThat(output)
        .contains("Reproduce: e2e/kernel/volumes 6.12")
        .doesNotContain("ioqos volumes: ");
  }

  @Test
  void byDefaultTheCapLandsOnKubeletsRootDiskOnly() {
    String reconcile = section("reconcile-by-root");
    assertThat(reconcile)
        .contains("io.max: 254:16 rbps=max wbps=10485760 riops=max wiops=max;")
        .doesNotContain("254:0 rbps=max wbps=10485760")
        .contains("status=0");
    // The control: the upper bound proves the cap is on vdb; the lower one is loose because a
    // loaded host slowed this writer to 9.36 MiB/s once (the 5% is asserted below, on the
    // volume's disk).
    assertThat(writeMiBs("by-root scratch")).isBetween(CAP_MIB_S * 0.8, CAP_MIB_S * 1.05);
    assertThat(writeMiBs("by-root data")).isGreaterThan(3 * CAP_MIB_S);
  }

  @Test
  void withPodVolumesTheCapLandsOnTheVolumesDiskOnly() {
    String reconcile = section("reconcile-by-volume");
    // vdb's cap from the first pass is restored (the line is gone), vda's written.
    assertThat(reconcile)
        .contains("io.max: 254:0 rbps=max wbps=10485760 riops=max wiops=max;")
        .doesNotContain("254:16 rbps=max wbps=10485760")
        .contains("kubernetes.io~local-volume/local-pv-data")
        .contains("status=0");
    assertThat(writeMiBs("by-volume data")).isBetween(CAP_MIB_S * 0.95, CAP_MIB_S * 1.05);
    assertThat(writeMiBs("by-volume scratch")).isGreaterThan(3 * CAP_MIB_S);
  }

  String section(String name) {
    int begin = log.indexOf("@@IOQOS BEGIN " + name);
    int end = log.indexOf("@@IOQOS END " + name, Math.max(begin, 0));
    assertThat(begin).as("section " + name + " in the guest's log").isNotNegative();
    assertThat(end).as("end of section " + name).isGreaterThan(begin);
    int lineEnd = log.indexOf('\n', end);
    return log.substring(begin, lineEnd < 0 ? log.length() : lineEnd);
  }
}
