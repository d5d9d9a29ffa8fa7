package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrimmedStoreTest {

  static Pod pod(Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("db-0")
        .withUid("u1")
        .withAnnotations(annotations)
        .withLabels(Map.of("app", "db"))
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager("kubelet")
                .withOperation("Update")
                .withSubresource("status")
                .build())
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-1")
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withQosClass("Burstable")
        .endStatus()
        .build();
  }

  @Test
  void storesThePodWithoutManagedFieldsOrLastAppliedAndKeepsWhatTheAgentReads() {
    TrimmedStore<Pod> store = new TrimmedStore<>();
    Pod pod =
        pod(
            Map.of(
                "ioqos.dev/tier",
                "gold",
                "kubernetes.io/config.hash",
                "abc",
                TrimmedStore.LAST_APPLIED,
                "{\"kind\":\"Pod\"}"));
    String key = store.getKey(pod);
    assertThat(key).isEqualTo(Cache.metaNamespaceKeyFunc(pod)).isEqualTo("shop/db-0");

    store.put(key, pod);

    Pod kept = store.get("shop/db-0");
    assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(kept.getMetadata().getAnnotations())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("ioqos.dev/tier", "gold", "kubernetes.io/config.hash", "abc"));
    assertThat(kept.getMetadata().getLabels()).containsEntry("app", "db");
    assertThat(kept.getMetadata().getUid()).isEqualTo("u1");
    assertThat(kept.getSpec().getNodeName()).isEqualTo("node-1");
    assertThat(kept.getStatus().getQosClass()).isEqualTo("Burstable");
    assertThat(store.size()).isOne();
  }

  @Test
  void aPodWithoutAnnotationsOrMetadataIsStoredAsItIs() {
    TrimmedStore<Pod> store = new TrimmedStore<>();
    Pod bare = pod(null);
    bare.getMetadata().setAnnotations(null);
    store.put("shop/db-0", bare);
    assertThat(store.get("shop/db-0").getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(TrimmedStore.trim(new Pod())).isNotNull();
  }
}
