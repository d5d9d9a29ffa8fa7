package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.agent.NodeStateReporter.PodResult;
import dev.ioqos.api.v1alpha1.DeviceStatus;
import dev.ioqos.api.v1alpha1.IoNodeStateStatus;
import dev.ioqos.api.v1alpha1.PodDisks;
import dev.ioqos.api.v1alpha1.PolicyPodCounts;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.probe.CgroupVersion;
import dev.ioqos.probe.DiskCapability;
import dev.ioqos.probe.NodeCapabilities;
import java.time.Clock;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NodeStateReporterTest {

  static PodResult applied(String pod, String policy, String... tied) {
    return new PodResult("ns", pod, policy, true, null, null, List.of(tied));
  }

  static PodResult failed(String pod, String policy) {
    return new PodResult("ns", pod, policy, false, "NoSuchDevice", "io.max: ENODEV", List.of());
  }

  @Test
  void countsEachPolicysPodsSortedByName() {
    List<PolicyPodCounts> policies =
        NodeStateReporter.policies(
            List.of(
                applied("a", "web"),
                failed("b", "web"),
                applied("c", "batch"),
                new PodResult("ns", "bad", null, false, "InvalidPod", "uid", List.of())));

    assertThat(policies).extracting(PolicyPodCounts::getName).containsExactly("batch", "web");
    PolicyPodCounts web = policies.get(1);
    assertThat(web.getManaged()).isEqualTo(2);
    assertThat(web.getApplied()).isEqualTo(1);
    assertThat(web.getFailed()).isEqualTo(1);
    assertThat(web.getConflicts()).isNull();
    assertThat(web.getConflictingPolicies()).isNull();
  }

  @Test
  void aTieIsListedForEveryTiedPolicyWithTheOthersNamed() {
    List<PolicyPodCounts> policies =
        NodeStateReporter.policies(
            List.of(applied("x", "a", "a", "b"), applied("y", "a", "a", "b", "c")));

    assertThat(policies).extracting(PolicyPodCounts::getName).containsExactly("a", "b", "c");
    assertThat(policies.get(0).getManaged()).isEqualTo(2);
    assertThat(policies.get(0).getConflicts()).isEqualTo(2);
    assertThat(policies.get(0).getConflictingPolicies()).containsExactly("b", "c");
    assertThat(policies.get(1).getManaged()).isZero();
    assertThat(policies.get(1).getConflicts()).isEqualTo(2);
    assertThat(policies.get(1).getConflictingPolicies()).containsExactly("a", "c");
    assertThat(policies.get(2).getConflicts()).isEqualTo(1);
  }

  @Test
  void nothingManagedListsNothing() {
    assertThat(NodeStateReporter.policies(List.of())).isNull();
  }

  static NodeCapabilities withDisks(int count) {
    // Listed in reverse to show the status keeps the first by name, not the first probed.
    List<DiskCapability> disks =
        IntStream.range(0, count)
            .map(i -> count - 1 - i)
            .mapToObj(
                i ->
                    new DiskCapability(
                        String.format("nbd%03d", i),
                        new DeviceId(43, i),
                        "none",
                        false,
                        false,
                        WeightMechanism.NONE))
            .toList();
    return new NodeCapabilities(CgroupVersion.V2, true, null, true, false, false, "6.12", disks);
  }

  @Test
  void aNodeWithMoreDisksThanTheListHoldsKeepsTheFirstByNameAndCountsTheRest() {
    NodeStateReporter reporter = new NodeStateReporter(null, "node-a", Clock.systemUTC());

    IoNodeStateStatus status = reporter.status(withDisks(300));

    assertThat(status.getDevices()).hasSize(IoNodeStateStatus.MAX_DEVICES);
    assertThat(status.getDevices().get(0).getName()).isEqualTo("nbd000");
    assertThat(status.getDevices()).extracting(DeviceStatus::getName).isSorted();
    assertThat(status.getDevicesOmitted()).isEqualTo(300 - IoNodeStateStatus.MAX_DEVICES);
  }

  @Test
  void everyDiskListedMeansNothingOmitted() {
    NodeStateReporter reporter = new NodeStateReporter(null, "node-a", Clock.systemUTC());

    IoNodeStateStatus status = reporter.status(withDisks(3));

    assertThat(status.getDevices())
        .extracting(DeviceStatus::getName)
        .containsExactly("nbd000", "nbd001", "nbd002");
    assertThat(status.getDevicesOmitted()).isNull();
  }

  @Test
  void podsTargetedByVolumeAreListedByNameWithTheirDisksAndTheRestCounted() {
    NodeStateReporter reporter = new NodeStateReporter(null, "node-a", Clock.systemUTC());
    assertThat(reporter.status(withDisks(1)).getPodDisks()).isNull();

    reporter.record("node-wide", applied("plain", "web"));
    for (int i = 0; i < 300; i++) {
      String pod = String.format("db-%03d", 299 - i);
      reporter.record(
          "uid-" + i,
          applied(pod, "volumes")
              .withDisks(
                  PodDisks.of(
                      "ns",
                      pod,
                      List.of("254:0 (vda)"),
                      List.of(
                          PodDisks.Volume.of(
                              "data", "persistentVolumeClaim data", List.of("254:0 (vda)"), ""),
                          PodDisks.Volume.of(
                              "cache", "emptyDir", List.of(), "memory-backed: no disk")))));
    }

    IoNodeStateStatus status = reporter.status(withDisks(1));

    assertThat(status.getPodDisks()).hasSize(IoNodeStateStatus.MAX_POD_DISKS);
    assertThat(status.getPodDisks())
        .extracting(PodDisks::getName)
        .isSorted()
        .doesNotContain("plain");
    assertThat(status.getPodDisksOmitted()).isEqualTo(300 - IoNodeStateStatus.MAX_POD_DISKS);
    PodDisks first = status.getPodDisks().get(0);
    assertThat(first.getName()).isEqualTo("db-000");
    assertThat(first.getDisks()).containsExactly("254:0 (vda)");
    assertThat(first.getVolumes())
        .extracting(PodDisks.Volume::getName)
        .containsExactly("data", "cache");
    assertThat(first.getVolumes().get(0).getNote()).isNull();
    assertThat(first.getVolumes().get(1).getDisks()).isNull();
    assertThat(first.getVolumes().get(1).getNote()).isEqualTo("memory-backed: no disk");
  }

  @Test
  void aVolumesLongNoteIsCutToWhatTheApiServerAccepts() {
    PodDisks.Volume volume = PodDisks.Volume.of("data", "hostPath", List.of(), "x".repeat(1000));

    assertThat(volume.getNote()).hasSize(PodDisks.MAX_NOTE_LENGTH).endsWith("...");
  }
}
