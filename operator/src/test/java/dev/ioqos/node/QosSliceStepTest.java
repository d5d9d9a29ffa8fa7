package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ioqos.core.IoSettings;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slice step on the VM's fake cgroupfs, with iocost enabled on vda (254:0) and bfq on vdb
 * (254:16): a BestEffort pod in tier high (800; 163 in bfq's scale), the Burstable and Guaranteed
 * pods of the fixture at the default weight.
 */
class QosSliceStepTest {
  static final String KUBEPODS = "kubepods.slice";
  static final String BURSTABLE = KUBEPODS + "/kubepods-burstable.slice";
  static final String BEST_EFFORT = KUBEPODS + "/kubepods-besteffort.slice";
  static final String HIGH_UID = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  static final String HIGH_POD =
      BEST_EFFORT + "/kubepods-besteffort-podaaaaaaaa_bbbb_4ccc_8ddd_eeeeeeeeeeee.slice";
  static final String BURSTABLE_POD =
      BURSTABLE + "/kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice";
  static final String GUARANTEED_POD =
      KUBEPODS + "/kubepods-pod11111111_2222_4333_8444_555555555555.slice";

  @TempDir Path temp;
  Path cgroup;
  NodeEngine engine;
  Ledger ledger;
  SliceLedger slices;
  QosSliceStep step;
  long ios = 1;

  @BeforeEach
  void node() throws IOException {
    Path node = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("node"));
    cgroup = node.resolve("cgroup");
    Files.writeString(
        cgroup.resolve("io.cost.qos"),
        "254:0 enable=1 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00 max=10000.00\n");
    Path high = Files.createDirectories(cgroup.resolve(HIGH_POD));
    Files.writeString(high.resolve("io.weight"), "default 800\n");
    Files.writeString(high.resolve("io.bfq.weight"), "default 163\n");
    bumpIo();
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
    ledger = Ledger.open(temp.resolve("state"));
    ledger.put(
        new LedgerEntry(
            HIGH_UID,
            "batch",
            "high",
            "/" + HIGH_POD,
            "tiers",
            "high",
            new IoSettings(OptionalInt.of(800), OptionalInt.of(163), Map.of(), Map.of())));
    slices = SliceLedger.open(temp.resolve("state"));
    step = new QosSliceStep(engine, slices, ledger, false);
  }

  /** Every pod reads more from vda; only the BestEffort pod reads from vdb. */
  void bumpIo() throws IOException {
    ios++;
    Files.writeString(
        cgroup.resolve(HIGH_POD).resolve("io.stat"),
        "254:0 rbytes=65536 wbytes=0 rios="
            + ios
            + " wios=0 dbytes=0 dios=0\n"
            + "254:16 rbytes=65536 wbytes=0 rios="
            + ios
            + " wios=0 dbytes=0 dios=0\n");
    for (String pod : new String[] {BURSTABLE_POD, GUARANTEED_POD}) {
      Files.writeString(
          cgroup.resolve(pod).resolve("io.stat"),
          "254:0 rbytes=65536 wbytes=0 rios=" + ios + " wios=0 dbytes=0 dios=0\n254:16 \n");
    }
  }

  String weight(String slice, String file) throws IOException {
    return Files.readString(cgroup.resolve(slice).resolve(file)).strip();
  }

  @Test
  void slicesFollowTheirActivePodsAndTheOriginalsAreRecorded() throws IOException {
    QosSliceStep.Report report = step.run();

    assertThat(report.ok()).as(report.failures().toString()).isTrue();
    assertThat(report.managing()).isTrue();
    assertThat(report.podCgroups()).hasSize(3);
    // iocost: 800 (BestEffort) + 100 (Burstable) + 100 (Guaranteed) are active on vda.
    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 800");
    assertThat(weight(BURSTABLE, "io.weight")).isEqualTo("default 100");
    // bfq: only the BestEffort pod reads from vdb; the Burstable slice is idle and left alone.
    assertThat(weight(BEST_EFFORT, "io.bfq.weight")).isEqualTo("default 163");
    assertThat(report.written())
        .contains(
            "/" + BEST_EFFORT + " io.weight default 800",
            "/" + BEST_EFFORT + " io.bfq.weight default 163")
        .noneMatch(line -> line.contains(BURSTABLE + " io.bfq.weight"));
    assertThat(slices.entries())
        .containsExactlyInAnyOrder(
            new SliceLedger.Entry("/" + BEST_EFFORT, "io.bfq.weight", 100, 163),
            new SliceLedger.Entry("/" + BEST_EFFORT, "io.weight", 100, 800),
            new SliceLedger.Entry("/" + BURSTABLE, "io.weight", 100, 100));
    QosSliceStep.MechanismPass iocost = report.mechanism(WeightMechanism.IOCOST).get();
    assertThat(iocost.share(HIGH_UID).getAsDouble()).isCloseTo(0.8, within(1e-9));
    assertThat(iocost.shareWithout(HIGH_UID).getAsDouble()).isCloseTo(1.0 / 3, within(1e-9));
    assertThat(report.sliceWeights().get("/" + BEST_EFFORT))
        .containsEntry("io.weight", 800)
        .containsEntry("io.bfq.weight", 163);
    // Recorded across restarts.
    assertThat(SliceLedger.open(temp.resolve("state")).entries()).hasSize(3);
  }

  @Test
  void aSliceRewrittenBehindIoqossBackIsRepairedAndReported() throws IOException {
    step.run();
    Files.writeString(cgroup.resolve(BEST_EFFORT).resolve("io.weight"), "default 100\n");
    bumpIo();

    QosSliceStep.Report report = step.run();

    assertThat(report.drift())
        .containsExactly(
            "/" + BEST_EFFORT + " io.weight held default 100, ioqos had written default 800");
    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 800");
  }

  @Test
  void theCheapCheckSeesASliceRewrittenBehindIoqossBackAndWritesNothing() throws IOException {
    assertThat(step.drifted()).as("nothing recorded yet").isFalse();
    step.run();
    assertThat(step.drifted()).as("as written").isFalse();

    // What systemd does to a slice every minute on a systemd node: the unit's default again.
    Files.writeString(cgroup.resolve(BEST_EFFORT).resolve("io.bfq.weight"), "default 100\n");

    assertThat(step.drifted()).isTrue();
    assertThat(weight(BEST_EFFORT, "io.bfq.weight"))
        .as("the check writes nothing")
        .isEqualTo("default 100");
    assertThat(new QosSliceStep(engine, slices, ledger, true).drifted())
        .as("a dry run repairs nothing, so it sees no drift")
        .isFalse();
    bumpIo();
    step.run();
    assertThat(step.drifted()).isFalse();
    assertThat(weight(BEST_EFFORT, "io.bfq.weight")).isEqualTo("default 163");
  }

  @Test
  void aSteadyNodeWritesNothing() throws IOException {
    step.run();
    bumpIo();

    QosSliceStep.Report report = step.run();

    assertThat(report.written()).isEmpty();
    assertThat(report.drift()).isEmpty();
  }

  @Test
  void slicesWhosePodsWentIdleGetTheirOriginalsBack() throws IOException {
    Files.writeString(cgroup.resolve(BEST_EFFORT).resolve("io.weight"), "default 50\n");
    step.run();
    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 800");

    // No I/O since the last run: no pod competes, every slice takes its original value.
    QosSliceStep.Report report = step.run();

    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 50");
    assertThat(weight(BEST_EFFORT, "io.bfq.weight")).isEqualTo("default 100");
    assertThat(report.restored())
        .contains(
            "/" + BEST_EFFORT + " io.weight default 50",
            "/" + BEST_EFFORT + " io.bfq.weight default 100");
    assertThat(slices.entries()).isEmpty();
  }

  @Test
  void whenNoPodHoldsValuesOfIoqosTheSlicesAreRestored() throws IOException {
    step.run();
    ledger.remove(HIGH_UID);
    bumpIo();

    QosSliceStep.Report report = step.run();

    assertThat(report.managing()).isFalse();
    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 100");
    assertThat(weight(BEST_EFFORT, "io.bfq.weight")).isEqualTo("default 100");
    assertThat(slices.entries()).isEmpty();
  }

  @Test
  void withoutAWeightMechanismNothingIsWrittenAndWhatWasIsRestored() throws IOException {
    step.run();
    Files.writeString(cgroup.resolve("io.cost.qos"), "");
    Files.writeString(
        temp.resolve("node/sys/block/vdb/queue/scheduler"), "[none] mq-deadline bfq\n");
    engine.refresh();
    bumpIo();

    QosSliceStep.Report report = step.run();

    assertThat(report.mechanisms()).isEmpty();
    assertThat(report.notEnforced()).singleElement().asString().contains("neither iocost nor bfq");
    assertThat(report.written()).isEmpty();
    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 100");
    assertThat(weight(BEST_EFFORT, "io.bfq.weight")).isEqualTo("default 100");
    assertThat(slices.entries()).isEmpty();
  }

  @Test
  void aDryRunWritesNothing() throws IOException {
    QosSliceStep.Report report = new QosSliceStep(engine, slices, ledger, true).run();

    assertThat(report.written()).isEmpty();
    assertThat(weight(BEST_EFFORT, "io.weight")).isEqualTo("default 100");
    assertThat(report.sliceWeights().get("/" + BEST_EFFORT)).containsEntry("io.weight", 800);
    assertThat(slices.entries()).isEmpty();
  }
}
