package dev.ioqos.bench.agent;

import dev.ioqos.core.QosClass;
import dev.ioqos.demo.SandboxNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

/**
 * Plays the scheduler and kubelet for one node: binds pods to it through the API, creates their
 * cgroups in the sandbox, reports them Running through the status subresource, flips their tier
 * annotation, and deletes them (cgroup first, then the object, as kubelet finishes a pod).
 */
final class PodDriver {
  static final String TIER_ANNOTATION = "ioqos.dev/tier";
  static final QosClass QOS = QosClass.BURSTABLE;

  /** One pod the driver made. */
  record BenchPod(String name, String uid, Path dir) {}

  private final KubernetesClient client;
  private final SandboxNode node;
  private final String nodeName;
  private final String namespace;

  PodDriver(KubernetesClient client, SandboxNode node, String nodeName, String namespace) {
    this.client = client;
    this.node = node;
    this.nodeName = nodeName;
    this.namespace = namespace;
  }

  /** The Node object (the agent reads its labels), the namespace and the policy. */
  void prepareCluster() {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(nodeName)
                .withLabels(Map.of("kubernetes.io/hostname", nodeName))
                .endMetadata()
                .build())
        .createOr(e -> e.update());
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .withLabels(Map.of("ioqos-bench", "true"))
                .endMetadata()
                .build())
        .createOr(e -> e.update());
    String policy =
        "apiVersion: ioqos.dev/v1alpha1\n"
            + "kind: IoPolicy\n"
            + "metadata: {name: bench}\n"
            + "spec:\n"
            + "  namespaceSelector: {matchLabels: {ioqos-bench: 'true'}}\n"
            + "  tiers:\n"
            + "    - {name: high, weight: 500}\n"
            + "    - name: low\n"
            + "      weight: 10\n"
            + "      limits: {writeBytesPerSecond: 20Mi, writeIOPS: 200}\n";
    client
        .resource(
            client
                .resources(dev.ioqos.api.v1alpha1.IoPolicy.class)
                .load(new java.io.ByteArrayInputStream(policy.getBytes()))
                .item())
        .createOr(e -> e.update());
  }

  /** Binds a pod to the node (Pending); the caller then creates its cgroup and reports it. */
  Pod bind(String name, String tier) {
    return client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withAnnotations(Map.of(TIER_ANNOTATION, tier))
                .endMetadata()
                .withNewSpec()
                .withNodeName(nodeName)
                .addNewContainer()
                .withName("main")
                .withImage("registry.invalid/app:1")
                .withNewResources()
                .addToRequests("cpu", new Quantity("100m"))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** Creates the pod's cgroup as kubelet does, with an io.stat of two disks as the kernel keeps. */
  BenchPod cgroup(Pod pod) throws IOException {
    String uid = pod.getMetadata().getUid();
    Path dir = node.createPod(uid, QOS);
    Files.writeString(
        dir.resolve("io.stat"),
        "254:0 rbytes=1945600 wbytes=4096 rios=118 wios=1 dbytes=0 dios=0\n"
            + "254:16 rbytes=52428800 wbytes=104857600 rios=12800 wios=25600 dbytes=0 dios=0\n");
    return new BenchPod(pod.getMetadata().getName(), uid, dir);
  }

  /** Reports the pod Running through the status subresource, as kubelet does. */
  void running(Pod pod) {
    String now = Instant.now().toString();
    Pod withStatus =
        new PodBuilder(pod)
            .withNewStatus()
            .withPhase("Running")
            .withHostIP("10.0.0.1")
            .withPodIP("10.244.0.10")
            .withStartTime(now)
            .withQosClass("Burstable")
            .withConditions(
                new PodConditionBuilder()
                    .withType("Ready")
                    .withStatus("True")
                    .withLastTransitionTime(now)
                    .build())
            .endStatus()
            .build();
    client.resource(withStatus).updateStatus();
  }

  void setTier(String name, String tier) {
    client
        .pods()
        .inNamespace(namespace)
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"" + TIER_ANNOTATION + "\":\"" + tier + "\"}}}");
  }

  /** kubelet's order: the cgroup goes when the containers stopped, then the object. */
  void delete(BenchPod pod) {
    node.removePod(pod.uid(), QOS);
    client.pods().inNamespace(namespace).withName(pod.name()).withGracePeriod(0).delete();
  }
}
