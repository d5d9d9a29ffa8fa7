package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.DeviceSelectorRule;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PodVolume;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.device.DeviceFixture;
import dev.ioqos.device.DiskResolver;
import dev.ioqos.device.MountTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One pod's volumes resolved to disks on the {@code device/kubelet-volumes} scenario: a table of
 * cases per volume type, as kubelet mounts them (see that scenario's mountinfo).
 */
class PodVolumeResolverTest {
  static final String UID = "3f1c2b8e-5a6d-4e7f-9a0b-1c2d3e4f5a6b";
  static final String OTHER_UID = "9d8c7b6a-5f4e-4d3c-8b2a-190817263544";
  static final DeviceSelectorRule.PodVolumes ALL = new DeviceSelectorRule.PodVolumes(List.of());

  @TempDir Path temp;
  PodVolumeResolver resolver;
  MountTable table;

  @BeforeEach
  void scenario() throws Exception {
    Path resources =
        Path.of(getClass().getResource("/device/kubelet-volumes/tree.txt").toURI()).getParent();
    DeviceFixture.expand(
        Files.readAllLines(resources.resolve("tree.txt"), StandardCharsets.UTF_8),
        temp.resolve("sys"),
        temp.resolve("dev"));
    DiskResolver disks =
        new DiskResolver(resources.resolve("proc"), temp.resolve("sys"), temp.resolve("dev"));
    resolver =
        new PodVolumeResolver(
            disks,
            "/var/lib/kubelet/",
            disk -> new DiskFacts(disk.id(), disk.name(), "none", WeightMechanism.NONE));
    table = disks.readMountTable();
  }

  static PodFacts pod(String uid, PodVolume... volumes) {
    return new PodFacts(
        "db",
        "pg-0",
        uid,
        Map.of(),
        Map.of(),
        Map.of(),
        Optional.empty(),
        QosClass.BURSTABLE,
        List.of(volumes));
  }

  static PodVolume claim(String name, String pv) {
    return new PodVolume(name, new PodVolume.Claim(name + "-claim", Optional.of(pv), false));
  }

  static Stream<Arguments> volumeTypes() {
    return Stream.of(
        Arguments.of(
            "emptyDir on kubelet's root filesystem (vdb1)",
            new PodVolume("scratch", new PodVolume.EmptyDir(false)),
            List.of("254:16 vdb"),
            false),
        Arguments.of(
            "emptyDir medium Memory is a tmpfs",
            new PodVolume("cache", new PodVolume.EmptyDir(true)),
            List.of(),
            false),
        Arguments.of(
            "local PV bind-mounted from a directory on vda",
            claim("data-a", "local-pv-a"),
            List.of("254:0 vda"),
            false),
        Arguments.of(
            "local PV on an LVM volume on partition vdb2",
            claim("data-lvm", "local-pv-lvm"),
            List.of("254:16 vdb"),
            false),
        Arguments.of(
            "CSI filesystem volume on a network block device",
            claim("rbd", "pvc-6a1f0e2d-rbd"),
            List.of("252:0 rbd0"),
            false),
        Arguments.of(
            "raw block volume: kubelet's bind mount of the device node",
            new PodVolume(
                "raw", new PodVolume.Claim("raw-claim", Optional.of("local-pv-nvme"), true)),
            List.of("259:0 nvme0n1"),
            false),
        Arguments.of(
            "hostPath on the root filesystem",
            new PodVolume("host", new PodVolume.HostPath("/srv/data")),
            List.of("254:0 vda"),
            false),
        Arguments.of(
            "nfs volume: no local disk, not an error when not named",
            new PodVolume("shared", new PodVolume.Mounted("nfs")),
            List.of(),
            false),
        Arguments.of(
            "projected token: left out",
            new PodVolume("kube-api-access-x7k2p", new PodVolume.ApiData("projected")),
            List.of(),
            false),
        Arguments.of(
            "claim not bound to a PV",
            new PodVolume("pending", new PodVolume.Claim("pending", Optional.empty(), false)),
            List.of(),
            true),
        Arguments.of(
            "claim whose volume kubelet has not mounted for this pod (another pod's mount)",
            claim("late", "local-pv-late"),
            List.of(),
            true),
        Arguments.of(
            "block claim not mapped for this pod (another pod's mapping)",
            new PodVolume(
                "other", new PodVolume.Claim("other", Optional.of("local-pv-other"), true)),
            List.of(),
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("volumeTypes")
  void eachVolumeTypeResolvesToTheDisksKubeletPutItOn(
      String description, PodVolume volume, List<String> disks, boolean problem) {
    List<VolumeDecision> decisions = resolver.resolve(pod(UID, volume), ALL, table);

    assertThat(decisions).hasSize(1);
    VolumeDecision decision = decisions.get(0);
    assertThat(decision.volume()).isEqualTo(volume.name());
    assertThat(decision.disks()).extracting(d -> d.id() + " " + d.name()).isEqualTo(disks);
    assertThat(decision.problem()).as(decision.describe()).isEqualTo(problem);
    if (disks.isEmpty()) {
      assertThat(decision.note()).as(description).isNotEmpty();
    }
  }

  @Test
  void bindMountsOfTheSameDiskTwiceAreTwoDecisionsOnOneDisk() {
    List<VolumeDecision> decisions =
        resolver.resolve(
            pod(UID, claim("data-a", "local-pv-a"), claim("data-b", "local-pv-b")), ALL, table);

    assertThat(decisions).extracting(VolumeDecision::volume).containsExactly("data-a", "data-b");
    assertThat(decisions)
        .allSatisfy(d -> assertThat(d.disks()).extracting(DiskFacts::name).containsExactly("vda"));
    assertThat(decisions.get(1).location())
        .isEqualTo(
            "/var/lib/kubelet/pods/" + UID + "/volumes/kubernetes.io~local-volume/local-pv-b");
  }

  @Test
  void namesPickVolumesAndANamedVolumeWithoutADiskIsAProblem() {
    PodFacts pod =
        pod(
            UID,
            claim("data-a", "local-pv-a"),
            new PodVolume("scratch", new PodVolume.EmptyDir(false)),
            new PodVolume("cache", new PodVolume.EmptyDir(true)),
            new PodVolume("shared", new PodVolume.Mounted("nfs")));

    List<VolumeDecision> decisions =
        resolver.resolve(
            pod,
            new DeviceSelectorRule.PodVolumes(List.of("data-a", "cache", "shared", "missing")),
            table);

    assertThat(decisions)
        .extracting(VolumeDecision::volume)
        .containsExactly("data-a", "cache", "shared", "missing");
    assertThat(decisions.get(0).disks()).extracting(DiskFacts::name).containsExactly("vda");
    assertThat(decisions.subList(1, 4)).allSatisfy(d -> assertThat(d.problem()).isTrue());
    assertThat(decisions.get(1).note()).contains("medium Memory is a tmpfs");
    assertThat(decisions.get(2).note()).contains("nfs4");
    assertThat(decisions.get(3).note()).contains("the pod has no volume named missing");
  }

  @Test
  void aNamedConfigMapIsOnKubeletsRootDisk() {
    List<VolumeDecision> decisions =
        resolver.resolve(
            pod(UID, new PodVolume("settings", new PodVolume.ApiData("configMap"))),
            new DeviceSelectorRule.PodVolumes(List.of("settings")),
            table);

    assertThat(decisions.get(0).disks()).extracting(DiskFacts::name).containsExactly("vdb");
    assertThat(decisions.get(0).location())
        .isEqualTo("/var/lib/kubelet/pods/" + UID + "/volumes/kubernetes.io~configmap/settings");
  }

  @Test
  void anotherPodsMountsAreNotThisPods() {
    List<VolumeDecision> decisions =
        resolver.resolve(pod(OTHER_UID, claim("data-a", "local-pv-a")), ALL, table);

    assertThat(decisions.get(0).problem()).isTrue();
    assertThat(decisions.get(0).note()).contains("kubelet has not mounted it yet");
  }
}
