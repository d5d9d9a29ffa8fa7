package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.policy.LatencyLoop;
import dev.ioqos.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop's safety on the VM's fake cgroupfs: what a crashed or stopped agent left throttled is
 * put back to the tier's static values from the loop's record, by a new agent before anything else.
 */
class LatencyLoopStepTest {
  static final String UID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  static final String POD =
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice";

  @TempDir Path temp;
  Path cgroup;
  NodeEngine engine;

  @BeforeEach
  void node() throws IOException {
    Path node = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("node"));
    cgroup = node.resolve("cgroup");
    Files.createDirectories(cgroup.resolve(POD.substring(1)));
    engine =
        new NodeEngine(
            new NodeConfig(
                cgroup,
                node.resolve("sys"),
                node.resolve("proc"),
                node.resolve("dev"),
                Optional.empty(),
                "/",
                "/var/lib/kubelet"));
  }

  LatencyLoopStep step(boolean dryRun) {
    return new LatencyLoopStep(
        engine, LoopLedger.open(temp.resolve("state")), dryRun, LatencyLoop.Parameters.DEFAULT);
  }

  void crashedWhileThrottling(String staticLine) throws IOException {
    LoopLedger.open(temp.resolve("state"))
        .put(
            new LoopLedger.Entry(
                UID, POD, staticLine, "254:16 rbps=max wbps=8388608 riops=max wiops=max"));
    Files.writeString(
        cgroup.resolve(POD.substring(1)).resolve("io.max"),
        "254:16 rbps=max wbps=8388608 riops=max wiops=max\n");
  }

  @Test
  void aRestartPutsTheStaticValuesBackAndEmptiesTheRecord() throws IOException {
    crashedWhileThrottling("254:16 rbps=max wbps=104857600 riops=max wiops=max");
    LatencyLoopStep step = step(false);
    assertThat(step.restoreRecorded())
        .containsExactly(POD + " io.max 254:16 rbps=max wbps=104857600 riops=max wiops=max");
    assertThat(Files.readString(cgroup.resolve(POD.substring(1)).resolve("io.max")))
        .contains("wbps=104857600");
    assertThat(LoopLedger.open(temp.resolve("state")).entries()).isEmpty();
  }

  @Test
  void aVanishedPodIsForgottenNotFailed() throws IOException {
    crashedWhileThrottling("254:16 rbps=max wbps=max riops=max wiops=max");
    try (var walk = Files.walk(cgroup.resolve(POD.substring(1)))) {
      walk.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(f -> f.delete());
    }
    assertThat(step(false).restoreRecorded()).isEmpty();
    assertThat(LoopLedger.open(temp.resolve("state")).entries()).isEmpty();
  }

  @Test
  void aDryRunWritesNothing() throws IOException {
    crashedWhileThrottling("254:16 rbps=max wbps=max riops=max wiops=max");
    assertThat(step(true).restoreRecorded()).isEmpty();
    assertThat(Files.readString(cgroup.resolve(POD.substring(1)).resolve("io.max")))
        .contains("wbps=8388608");
  }

  @Test
  void anUnreadableRecordIsMovedAside() throws IOException {
    Files.createDirectories(temp.resolve("state"));
    Files.writeString(temp.resolve("state/loop.json"), "{not json");
    assertThat(LoopLedger.open(temp.resolve("state")).entries()).isEmpty();
    try (var files = Files.list(temp.resolve("state"))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(name -> name.startsWith("loop.json.corrupt-"));
    }
  }

  @Test
  void withoutMembersATickDoesNothing() {
    assertThat(step(false).tick().disks()).isEmpty();
  }
}
