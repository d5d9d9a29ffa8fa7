package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.VerifiedWriter;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodApplierTest {
  static final String POD =
      "/kubepods.slice/kubepods-burstable.slice/"
          + "kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice";
  static final DeviceId VDA = new DeviceId(254, 0);
  static final DeviceId VDB = new DeviceId(254, 16);
  static final IoLimits LOW = IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520);

  @TempDir Path temp;
  Path podDir;
  Ledger ledger;
  PodApplier applier;
  final PodTarget pod = new PodTarget("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "db", "pg-0", POD);

  @BeforeEach
  void setUp() {
    Path mount = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("node")).resolve("cgroup");
    podDir = mount.resolve(POD.substring(1));
    ledger = Ledger.open(temp.resolve("state"));
    applier =
        new PodApplier(
            new CgroupTree(mount, "/kubepods.slice"),
            new VerifiedWriter(new CgroupFiles()),
            ledger);
  }

  static DesiredSettings desired(
      OptionalInt weight, OptionalInt bfq, Map<DeviceId, IoLimits> limits) {
    return new DesiredSettings(weight, bfq, Map.of(), limits, Map.of(), List.of());
  }

  @Test
  void appliesAndRecordsWhatItWrote() throws Exception {
    ApplyOutcome outcome =
        applier.apply(
            pod,
            "storage",
            "low",
            desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW)));

    assertThat(outcome.failed()).isFalse();
    assertThat(outcome.written())
        .containsExactly(
            "io.weight default 10", "io.max 254:0 rbps=max wbps=20971520 riops=max wiops=max");
    assertThat(Files.readString(podDir.resolve("io.weight"))).isEqualTo("default 10\n");
    LedgerEntry entry = ledger.get(pod.uid()).orElseThrow();
    assertThat(entry.held().ioWeight()).hasValue(10);
    assertThat(entry.held().bfqWeight()).isEmpty();
    assertThat(entry.held().limits()).containsOnlyKeys(DeviceId.parse("254:0"));
  }

  @Test
  void valuesTheKernelHoldsAlreadyAreReadNotWrittenAndDriftIsRewritten() throws Exception {
    DesiredSettings low = desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW));
    applier.apply(pod, "storage", "low", low);
    Path weight = podDir.resolve("io.weight");
    Files.setLastModifiedTime(weight, java.nio.file.attribute.FileTime.fromMillis(0));

    ApplyOutcome again = applier.apply(pod, "storage", "low", low);

    assertThat(again.unchanged()).isTrue();
    assertThat(again.written()).isEmpty();
    assertThat(Files.getLastModifiedTime(weight).toMillis()).isZero();

    Files.writeString(weight, "default 100\n");
    ApplyOutcome repaired = applier.apply(pod, "storage", "low", low);

    assertThat(repaired.unchanged()).isFalse();
    assertThat(repaired.written()).contains("io.weight default 10");
    assertThat(Files.readString(weight)).isEqualTo("default 10\n");
  }

  @Test
  void aNewTierLiftsWhatTheOldOneWroteAndNothingElse() throws Exception {
    applier.apply(
        pod, "storage", "low", desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW)));

    applier.apply(
        pod, "storage", "high", desired(OptionalInt.empty(), OptionalInt.of(136), Map.of()));

    // The cap on vda and the io.weight written for low go back to the defaults; bfq gets 136.
    assertThat(Files.readString(podDir.resolve("io.max")))
        .isEqualTo("254:0 rbps=max wbps=max riops=max wiops=max\n");
    assertThat(Files.readString(podDir.resolve("io.weight"))).isEqualTo("default 100\n");
    assertThat(Files.readString(podDir.resolve("io.bfq.weight"))).isEqualTo("default 136\n");
    LedgerEntry entry = ledger.get(pod.uid()).orElseThrow();
    assertThat(entry.held().ioWeight()).isEmpty();
    assertThat(entry.held().bfqWeight()).hasValue(136);
    assertThat(entry.held().limits()).isEmpty();
  }

  @Test
  void revertRestoresDefaultsAndForgets() throws Exception {
    applier.apply(
        pod, "storage", "low", desired(OptionalInt.of(10), OptionalInt.of(10), Map.of(VDB, LOW)));

    ApplyOutcome reverted = applier.revert(ledger.get(pod.uid()).orElseThrow());

    assertThat(reverted.failed()).isFalse();
    assertThat(Files.readString(podDir.resolve("io.weight"))).isEqualTo("default 100\n");
    assertThat(Files.readString(podDir.resolve("io.bfq.weight"))).isEqualTo("default 100\n");
    assertThat(Files.readString(podDir.resolve("io.max")))
        .isEqualTo("254:16 rbps=max wbps=max riops=max wiops=max\n");
    assertThat(ledger.get(pod.uid())).isEmpty();
  }

  @Test
  void aRefusedFileDoesNotStopTheOthersAndStaysRecordedForRevert() throws Exception {
    Files.delete(podDir.resolve("io.max"));
    Files.createDirectory(podDir.resolve("io.max"));

    ApplyOutcome outcome =
        applier.apply(
            pod,
            "storage",
            "low",
            desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW)));

    assertThat(outcome.failed()).isTrue();
    assertThat(outcome.failures())
        .extracting(e -> e.failure())
        .containsExactly(CgroupFailure.IO_ERROR);
    assertThat(outcome.written()).containsExactly("io.weight default 10");
    assertThat(outcome.summary()).contains("io.max").contains("applied: io.weight default 10");
    // vda's state is unknown: it stays in the ledger so that a revert tries it again.
    assertThat(ledger.get(pod.uid()).orElseThrow().held().limits())
        .containsOnlyKeys(DeviceId.parse("254:0"));
  }

  @Test
  void valuesItNeverWroteAreLeftAlone() throws Exception {
    Files.writeString(
        podDir.resolve("io.max"), "254:0 rbps=1048576 wbps=max riops=max wiops=max\n");

    applier.apply(
        pod, "storage", "high", desired(OptionalInt.empty(), OptionalInt.of(136), Map.of()));
    applier.revert(ledger.get(pod.uid()).orElseThrow());

    assertThat(Files.readString(podDir.resolve("io.max")))
        .isEqualTo("254:0 rbps=1048576 wbps=max riops=max wiops=max\n");
  }

  @Test
  void aLedgerThatCannotRecordTheChangeMeansNoCgroupWrite() throws Exception {
    applier.apply(
        pod, "storage", "low", desired(OptionalInt.of(10), OptionalInt.empty(), Map.of()));
    String weightBefore = Files.readString(podDir.resolve("io.weight"));
    String maxBefore = Files.readString(podDir.resolve("io.max"));
    Path journal = temp.resolve("state/ledger.journal");
    Files.deleteIfExists(journal);
    Files.writeString(
        temp.resolve("state/ledger.json"), Files.readString(temp.resolve("state/ledger.json")));
    Files.createDirectory(journal); // every append fails from now on, also for root

    assertThatThrownBy(
            () ->
                applier.apply(
                    pod,
                    "storage",
                    "low",
                    desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW))))
        .isInstanceOf(LedgerWriteException.class);

    assertThat(Files.readString(podDir.resolve("io.max"))).isEqualTo(maxBefore);
    assertThat(Files.readString(podDir.resolve("io.weight"))).isEqualTo(weightBefore);
    assertThat(ledger.get(pod.uid()).orElseThrow().held().limits()).isEmpty();
  }

  @Test
  void disksThatDidNotResolveKeepTheirLimitsWhenAskedTo() throws Exception {
    applier.apply(
        pod,
        "storage",
        "low",
        desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW, VDB, LOW)));

    // VDB's selector did not resolve this time: its cap is unknown territory, not "not wanted".
    ApplyOutcome outcome =
        applier.apply(
            pod,
            "storage",
            "low",
            desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW)),
            true);

    // (The fixture's io.max is a plain file that keeps the last line written, so the writes are
    // checked, not the file.)
    assertThat(outcome.failed()).isFalse();
    assertThat(outcome.written()).noneMatch(line -> line.contains("254:16"));
    assertThat(ledger.get(pod.uid()).orElseThrow().held().limits()).containsKeys(VDA, VDB);

    ApplyOutcome resolved =
        applier.apply(
            pod,
            "storage",
            "low",
            desired(OptionalInt.of(10), OptionalInt.empty(), Map.of(VDA, LOW)));
    assertThat(resolved.written()).contains("io.max 254:16 rbps=max wbps=max riops=max wiops=max");
    assertThat(ledger.get(pod.uid()).orElseThrow().held().limits()).containsOnlyKeys(VDA);
  }
}
