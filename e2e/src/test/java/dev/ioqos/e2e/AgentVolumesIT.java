package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.PodDisks;
import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Pods;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;

/**
 * Per-volume targeting through the real API server: the agent reads the pod's claim for its bound
 * PV, finds kubelet's mount of it in the node's mount table and caps that disk only; a volume not
 * mounted yet is a DeviceNotResolved Event naming it, and the cap follows once kubelet mounts it.
 */
class AgentVolumesIT extends AgentTestSupport {
  static final String VDA_LOW_CAP = "254:0 rbps=max wbps=20971520 riops=max wiops=200";

  Pod podWithVolumes(String name) {
    Pod pod = Pods.onNode(namespace, name, nodeName, "low");
    return client
        .resource(
            new PodBuilder(pod)
                .editSpec()
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName("data-" + name)
                .endPersistentVolumeClaim()
                .endVolume()
                .addNewVolume()
                .withName("scratch")
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .build())
        .create();
  }

  void claim(String name, String pv) {
    PersistentVolumeClaim claim =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withStorageClassName("local")
            .withVolumeName(pv)
            .withNewResources()
            .addToRequests("storage", new Quantity("1Gi"))
            .endResources()
            .endSpec()
            .build();
    client.resource(claim).create();
  }

  void kubeletMounts(Pod pod, String pv) {
    String line =
        "300 26 254:0 /srv/"
            + pv
            + " /var/lib/kubelet/pods/"
            + uid(pod)
            + "/volumes/kubernetes.io~local-volume/"
            + pv
            + " rw,relatime shared:1 - ext4 /dev/vda rw\n";
    try {
      Files.writeString(node.procfs.resolve("1/mountinfo"), line, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void theCapLandsOnTheDiskOfTheNamedVolumeOnly() {
    policy("volumes", "  devices: [{podVolumes: {names: [data]}}]\n");
    claim("data-db", "local-pv-db");
    Pod db = podWithVolumes("db");
    kubeletMounts(db, "local-pv-db");
    node.createPod(uid(db), QosClass.BURSTABLE);
    startAgent();

    awaitCap(db, VDA_LOW_CAP);
    assertThat(file(db, "io.max")).doesNotContain("254:16");
    assertThat(event(db, "Applied").getMessage()).contains("io.max 254:0");

    // The node's state names the pod's own disk and each targeted volume's resolution.
    PodDisks disks = podDisks("db");
    assertThat(disks.getDisks()).containsExactly("254:0 (vda)");
    assertThat(disks.getVolumes()).extracting(PodDisks.Volume::getName).containsExactly("data");
    assertThat(disks.getVolumes().get(0).getKind()).isEqualTo("persistentVolumeClaim data-db");
    assertThat(disks.getVolumes().get(0).getDisks()).containsExactly("254:0 (vda)");
    // And the scrape carries one series per disk of the pod's.
    assertThat(agent.metrics().scrape())
        .contains(
            "ioqos_pod_target_disk_info{device=\"254:0\",device_name=\"vda\",namespace=\""
                + namespace
                + "\",pod=\"db\",tier=\"low\"} 1")
        .doesNotContain("ioqos_pod_target_disk_info{device=\"254:16\"");
  }

  /** The pod's entry in this node's IoNodeState, once the agent has written it. */
  PodDisks podDisks(String pod) {
    return eventually(
        () -> {
          IoNodeState state = client.resources(IoNodeState.class).withName(nodeName).get();
          if (state == null
              || state.getStatus() == null
              || state.getStatus().getPodDisks() == null) {
            return null;
          }
          return state.getStatus().getPodDisks().stream()
              .filter(d -> d.getName().equals(pod) && d.getNamespace().equals(namespace))
              .findFirst()
              .orElse(null);
        },
        java.util.Objects::nonNull,
        "pod " + pod + " in IoNodeState " + nodeName + " status.podDisks");
  }

  @Test
  void aVolumeNotMountedYetIsNamedAndFollowedOnceMounted() {
    policy("volumes", "  devices: [{podVolumes: {}}]\n");
    claim("data-web", "local-pv-web");
    Pod web = podWithVolumes("web");
    node.createPod(uid(web), QosClass.BURSTABLE);
    startAgent();

    // The emptyDir is on kubelet's root disk (vdb1) at once; the claim's volume is not mounted.
    awaitCap(web, LOW_CAP);
    assertThat(event(web, "DeviceNotResolved").getMessage())
        .contains("pod volume data (persistentVolumeClaim data-web)")
        .contains("kubelet has not mounted it yet");

    PodDisks before = podDisks("web");
    assertThat(before.getDisks()).containsExactly("254:16 (vdb)");
    assertThat(before.getVolumes())
        .filteredOn(v -> v.getName().equals("data"))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.getDisks()).isNull();
              assertThat(v.getNote()).contains("kubelet has not mounted it yet");
            });

    kubeletMounts(web, "local-pv-web");
    // The resync (2 s here) resolves the pod's volumes afresh. The sandbox's io.max is a plain
    // file that keeps the last line written (the kernel merges lines per disk), so the proof is the
    // Applied Event, which lists each line written and read back.
    eventually(
        () -> events(web),
        events ->
            events.stream()
                .anyMatch(
                    e ->
                        e.getReason().equals("Applied")
                            && e.getMessage().contains("io.max " + VDA_LOW_CAP)
                            && e.getMessage().contains("io.max " + LOW_CAP)),
        "an Applied Event with the caps on vda and vdb");
    eventually(
        () -> podDisks("web").getDisks(),
        d ->
            d.equals(java.util.List.of("254:16 (vdb)", "254:0 (vda)"))
                || d.equals(java.util.List.of("254:0 (vda)", "254:16 (vdb)")),
        "the node's state lists vda too once the claim's volume is mounted");
  }
}
