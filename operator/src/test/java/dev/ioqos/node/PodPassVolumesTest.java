package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.DeviceSelectorRule;
import dev.ioqos.core.policy.LabelSelectorRule;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PodVolume;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.TierSpec;
import dev.ioqos.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pod pass with a policy that targets pod volumes, on the 6.12 node fixture (vda at /, vdb1 at
 * kubelet's root dir) with kubelet's mount of a local PV from vda added to its mount table: the cap
 * lands on the volume's disk only, follows the selector and the mount table from pass to pass, and
 * what is no longer targeted is restored through the ledger.
 */
class PodPassVolumesTest {
  static final String UID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  static final DeviceId VDA = DeviceId.parse("254:0");
  static final DeviceId VDB = DeviceId.parse("254:16");
  static final String LOCAL_PV_MOUNT =
      "200 26 254:0 /srv/pv-data /var/lib/kubelet/pods/"
          + UID
          + "/volumes/kubernetes.io~local-volume/local-pv-data rw,relatime shared:1 - ext4"
          + " /dev/vda rw\n";
  static final NodeFacts NODE = new NodeFacts("node-a", Map.of());

  @TempDir Path temp;
  Path mountinfo;
  String baseMounts;
  Ledger ledger;
  PodPass pass;

  @BeforeEach
  void node() throws IOException {
    Path node = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("node"));
    mountinfo = node.resolve("proc/1/mountinfo");
    baseMounts = Files.readString(mountinfo);
    Files.writeString(mountinfo, LOCAL_PV_MOUNT, StandardOpenOption.APPEND);
    NodeEngine engine =
        new NodeEngine(
            new NodeConfig(
                node.resolve("cgroup"),
                node.resolve("sys"),
                node.resolve("proc"),
                node.resolve("dev"),
                Optional.empty(),
                "/",
                "/var/lib/kubelet"));
    ledger = Ledger.open(temp.resolve("state"));
    pass = new PodPass(engine, ledger, false);
  }

  static PodFacts pod() {
    return new PodFacts(
        "db",
        "pg-0",
        UID,
        Map.of(),
        Map.of(),
        Map.of(),
        Optional.empty(),
        QosClass.BURSTABLE,
        List.of(
            new PodVolume(
                "data", new PodVolume.Claim("data-pg-0", Optional.of("local-pv-data"), false)),
            new PodVolume("scratch", new PodVolume.EmptyDir(false)),
            new PodVolume("kube-api-access-4xk2p", new PodVolume.ApiData("projected"))));
  }

  static PolicyRules policy(DeviceSelectorRule... devices) {
    return new PolicyRules(
        "volumes",
        1,
        0,
        LabelSelectorRule.EVERYTHING,
        LabelSelectorRule.EVERYTHING,
        LabelSelectorRule.EVERYTHING,
        null,
        Optional.of("capped"),
        Map.of(),
        Map.of(),
        List.of(devices),
        List.of(
            new TierSpec(
                "capped",
                OptionalInt.empty(),
                IoLimits.NONE.with(IoLimits.Key.WBPS, 10_485_760),
                OptionalLong.empty())),
        PolicyRules.Mode.ENFORCE);
  }

  static DeviceSelectorRule volumes(String... names) {
    return new DeviceSelectorRule.PodVolumes(List.of(names));
  }

  @Test
  void theCapLandsOnTheVolumesDiskOnlyWhenThePolicyTargetsPodVolumes() {
    PodOutcome byVolume = pass.run(pod(), NODE, List.of(policy(volumes("data"))));

    assertThat(byVolume.kind()).as(byVolume.events().toString()).isEqualTo(PodOutcome.Kind.APPLIED);
    assertThat(byVolume.desired().orElseThrow().limits()).containsOnlyKeys(VDA);
    assertThat(byVolume.written())
        .containsExactly("io.max 254:0 rbps=max wbps=10485760 riops=max wiops=max");
    assertThat(byVolume.disks().orElseThrow().volumes())
        .extracting(VolumeDecision::describe)
        .containsExactly(
            "data (persistentVolumeClaim data-pg-0, /var/lib/kubelet/pods/"
                + UID
                + "/volumes/kubernetes.io~local-volume/local-pv-data) -> vda 254:0");

    PodOutcome byKubeletRoot =
        pass.run(pod(), NODE, List.of(policy(new DeviceSelectorRule.KubeletRoot())));

    assertThat(byKubeletRoot.desired().orElseThrow().limits()).containsOnlyKeys(VDB);
    assertThat(ledger.get(UID).orElseThrow().held().limits()).containsOnlyKeys(VDB);
  }

  @Test
  void everyVolumeWithADiskIsTargetedAndApiDataIsLeftOut() {
    PodOutcome all = pass.run(pod(), NODE, List.of(policy(volumes())));

    assertThat(all.desired().orElseThrow().limits()).containsOnlyKeys(VDA, VDB);
    assertThat(all.disks().orElseThrow().volumes())
        .extracting(v -> v.volume() + ":" + v.disks().size() + ":" + v.problem())
        .containsExactly("data:1:false", "scratch:1:false", "kube-api-access-4xk2p:0:false");
    assertThat(all.events()).noneMatch(e -> e.reason() == PodEvent.Reason.DEVICE_NOT_RESOLVED);
  }

  @Test
  void aDiskNoLongerTargetedIsRestoredThroughTheLedger() {
    pass.run(pod(), NODE, List.of(policy(volumes("data"))));

    PodOutcome moved = pass.run(pod(), NODE, List.of(policy(volumes("scratch"))));

    assertThat(moved.written())
        .containsExactly(
            "io.max 254:0 rbps=max wbps=max riops=max wiops=max",
            "io.max 254:16 rbps=max wbps=10485760 riops=max wiops=max");
    assertThat(ledger.get(UID).orElseThrow().held().limits()).containsOnlyKeys(VDB);
  }

  @Test
  void aVolumeThatCannotBeResolvedIsNamedInAnEventAndTheCapItHeldIsKept() throws IOException {
    pass.run(pod(), NODE, List.of(policy(volumes("data"))));
    Files.writeString(mountinfo, baseMounts);

    PodOutcome gone = pass.run(pod(), NODE, List.of(policy(volumes("data"))));

    assertThat(gone.events())
        .filteredOn(e -> e.reason() == PodEvent.Reason.DEVICE_NOT_RESOLVED)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.message())
                    .contains("pod volume data (persistentVolumeClaim data-pg-0)")
                    .contains("kubelet has not mounted it yet"));
    // Not knowing where the volume is is not "no longer targeted": the cap stays (fail closed).
    assertThat(gone.written()).isEmpty();
    assertThat(ledger.get(UID).map(entry -> entry.held().limits().isEmpty()).orElse(true))
        .isFalse();

    Files.writeString(mountinfo, LOCAL_PV_MOUNT, StandardOpenOption.APPEND);
    PodOutcome back = pass.run(pod(), NODE, List.of(policy(volumes("data"))));
    assertThat(back.written()).isEmpty();
    assertThat(back.events()).noneMatch(e -> e.reason() == PodEvent.Reason.DEVICE_NOT_RESOLVED);
  }
}
