package dev.ioqos.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.api.v1alpha1.DeviceSelector;
import dev.ioqos.core.policy.DeviceSelectorRule;
import dev.ioqos.core.policy.PodVolume;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A pod spec's volumes as the node needs them, and the podVolumes selector as a rule. */
class ApiMappingVolumesTest {
  static final String POD =
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: pg-0, namespace: db, uid: 3f1c2b8e-5a6d-4e7f-9a0b-1c2d3e4f5a6b}
      spec:
        containers:
          - name: main
            image: postgres
            volumeMounts: [{name: data, mountPath: /data}]
            volumeDevices: [{name: raw, devicePath: /dev/xvdb}]
        volumes:
          - {name: data, persistentVolumeClaim: {claimName: data-pg-0}}
          - {name: raw, persistentVolumeClaim: {claimName: raw-pg-0}}
          - name: scratch
            ephemeral:
              volumeClaimTemplate:
                spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
          - {name: cache, emptyDir: {medium: Memory}}
          - {name: tmp, emptyDir: {}}
          - {name: logs, hostPath: {path: /var/log/pg}}
          - {name: settings, configMap: {name: pg}}
          - {name: kube-api-access-x7k2p, projected: {sources: []}}
          - {name: shared, nfs: {server: nas, path: /export}}
          - {name: inline, csi: {driver: secrets-store.csi.k8s.io}}
      """;

  @Test
  void eachVolumeKeepsWhatSaysWhereItsDataLives() {
    List<String> asked = new ArrayList<>();
    ClaimLookup claims =
        (podUid, namespace, claim) -> {
          asked.add(podUid + " " + namespace + "/" + claim);
          return claim.equals("data-pg-0") ? Optional.of("local-pv-a") : Optional.empty();
        };

    List<PodVolume> volumes =
        ApiMapping.pod(Serialization.unmarshal(POD, Pod.class), null, claims).volumes();

    assertThat(volumes)
        .extracting(PodVolume::source)
        .containsExactly(
            new PodVolume.Claim("data-pg-0", Optional.of("local-pv-a"), false),
            new PodVolume.Claim("raw-pg-0", Optional.empty(), true),
            // A generic ephemeral volume's claim is <pod>-<volume>.
            new PodVolume.Claim("pg-0-scratch", Optional.empty(), false),
            new PodVolume.EmptyDir(true),
            new PodVolume.EmptyDir(false),
            new PodVolume.HostPath("/var/log/pg"),
            new PodVolume.ApiData("configMap"),
            new PodVolume.ApiData("projected"),
            new PodVolume.Mounted("nfs"),
            new PodVolume.Mounted("csi secrets-store.csi.k8s.io"));
    assertThat(volumes.get(0).name()).isEqualTo("data");
    assertThat(asked)
        .containsExactly(
            "3f1c2b8e-5a6d-4e7f-9a0b-1c2d3e4f5a6b db/data-pg-0",
            "3f1c2b8e-5a6d-4e7f-9a0b-1c2d3e4f5a6b db/raw-pg-0",
            "3f1c2b8e-5a6d-4e7f-9a0b-1c2d3e4f5a6b db/pg-0-scratch");
  }

  @Test
  void podVolumesBecomesARuleWithItsNames() {
    assertThat(ApiMapping.device(DeviceSelector.podVolumes()))
        .isEqualTo(new DeviceSelectorRule.PodVolumes(List.of()));
    assertThat(ApiMapping.device(DeviceSelector.podVolumes("data", "wal")))
        .isEqualTo(new DeviceSelectorRule.PodVolumes(List.of("data", "wal")));
  }
}
