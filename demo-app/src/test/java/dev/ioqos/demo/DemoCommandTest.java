package dev.ioqos.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.testing.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code ioqos demo} refuses, and says, before it starts anything. */
class DemoCommandTest {
  @TempDir Path temp;

  record Run(int exit, String out, String err) {}

  Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = DemoMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void missingBinariesAreOneSentenceNamingTheBuildScript() throws Exception {
    Path empty = Files.createDirectories(temp.resolve("kubeapitest"));

    Run run = run("demo", "--binaries", empty.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).as("nothing started").isEmpty();
    assertThat(run.err().strip().lines()).hasSize(1);
    assertThat(run.err())
        .startsWith("ioqos demo: no control plane to run")
        .contains("e2e/control-plane/build " + empty)
        .contains(empty.resolve("k8s/ioqos-version").toString());
  }

  @Test
  void aVersionFileWithoutItsBinariesIsMissingBinariesToo() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("kubeapitest/k8s/1.34.12-linux-amd64"));
    Files.writeString(temp.resolve("kubeapitest/k8s/ioqos-version"), "1.34.12\n");
    Files.writeString(dir.resolve("etcd"), "");

    Run run = run("demo", "--binaries", temp.resolve("kubeapitest").toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err())
        .contains("e2e/control-plane/build")
        .contains("no executable " + dir.resolve("etcd"));
  }

  @Test
  void realCgroupsIsRefusedOnAHybridHostBeforeAnythingStarts() {
    Path host = Fixtures.copy("node/hybrid-blkio-v1", temp.resolve("host"));

    Run run = realCgroups(host);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip().lines()).hasSize(1);
    assertThat(run.err())
        .contains("--real-cgroups needs a pure cgroup v2 host")
        .contains("is cgroup hybrid")
        .doesNotContain("control plane");
  }

  @Test
  void realCgroupsIsRefusedOnCgroupV1() throws Exception {
    Path host = temp.resolve("v1");
    Files.createDirectories(host.resolve("cgroup/blkio"));
    Files.createDirectories(host.resolve("sys"));
    Files.createDirectories(host.resolve("proc"));

    Run run = realCgroups(host);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("is cgroup v1;");
  }

  @Test
  void realCgroupsIsRefusedWithoutTheIoController() throws Exception {
    Path host = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("host"));
    Files.writeString(host.resolve("cgroup/cgroup.controllers"), "cpuset cpu memory pids\n");

    Run run = realCgroups(host);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("needs the io controller");
  }

  @Test
  void aPureCgroupV2HostPassesTheCheckAndTheDemoGoesOnToLookForBinaries() {
    Path host = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("host"));

    Run run = realCgroups(host);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("no control plane to run").doesNotContain("--real-cgroups");
  }

  private Run realCgroups(Path host) {
    return run(
        "demo",
        "--real-cgroups",
        "--cgroupfs",
        host.resolve("cgroup").toString(),
        "--sysfs",
        host.resolve("sys").toString(),
        "--procfs",
        host.resolve("proc").toString(),
        "--binaries",
        temp.resolve("no-binaries").toString());
  }

  @Test
  void argumentErrorsExitTwo() {
    assertThat(run("demo", "6.1").exit()).isEqualTo(2);
    assertThat(run("demo", "6.1").err()).contains("goes with --kernel");
    assertThat(run("demo", "--kernel", "5.4").err()).contains("6.12 or 6.1, not 5.4");
    assertThat(run("demo", "--kernel", "5.4").exit()).isEqualTo(2);
    assertThat(run("demo", "--kernel", "--real-cgroups").exit()).isEqualTo(2);
    assertThat(run("demo", "--no-such-flag").exit()).isEqualTo(2);
    assertThat(run("demo", "--kernel", "6.1", "6.12").exit()).isEqualTo(2);
    assertThat(run("demo", "--protect").exit()).isEqualTo(2);
    assertThat(run("demo", "--protect").err()).contains("--protect goes with --kernel");
  }

  @Test
  void kernelWithoutTheRepositoryScriptSaysWhereItLooked() {
    Run run = run("demo", "--kernel", "--repo", temp.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err())
        .contains("no executable " + temp.resolve("e2e/kernel/demo"))
        .contains("--repo DIR");
  }

  @Test
  void kernelRunsTheScriptWithTheVersionAndReturnsItsExitCode() throws Exception {
    Path script = Files.createDirectories(temp.resolve("e2e/kernel")).resolve("demo");
    Files.writeString(script, "#!/bin/sh\necho \"$@\" > \"$(pwd)/ran-with\"\nexit 3\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));

    Run run = run("demo", "--kernel", "6.1", "--repo", temp.toString());

    assertThat(run.exit()).isEqualTo(3);
    assertThat(Files.readString(temp.resolve("ran-with")).strip()).isEqualTo("6.1");
  }

  @Test
  void protectRunsTheLatencyScenarioWithTheVersion() throws Exception {
    Path kernel = Files.createDirectories(temp.resolve("e2e/kernel"));
    for (String name : new String[] {"demo", "latency"}) {
      Path script = kernel.resolve(name);
      Files.writeString(
          script, "#!/bin/sh\necho " + name + " \"$@\" > \"$(pwd)/ran-with\"\nexit 0\n");
      Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    Run run = run("demo", "--kernel", "--protect", "6.1", "--repo", temp.toString());

    assertThat(run.exit()).isZero();
    assertThat(Files.readString(temp.resolve("ran-with")).strip()).isEqualTo("latency 6.1");
  }
}
