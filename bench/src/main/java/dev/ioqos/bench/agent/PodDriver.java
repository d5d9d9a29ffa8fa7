package dev.ioqos.bench.agent;

import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Pods;
import dev.ioqos.testkit.Policies;
import dev.ioqos.testkit.SandboxNode;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Plays the scheduler and kubelet for one node: binds pods to it through the API, creates their
 * cgroups in the sandbox, reports them Running through the status subresource, flips their tier
 * annotation, and deletes them (cgroup first, then the object, as kubelet finishes a pod).
 */
final class PodDriver {
  static final String TIER_ANNOTATION = Pods.TIER_ANNOTATION;
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
    String policy = Policies.highAndLow("bench", "ioqos-bench", "true", false, "");
    client.resource(Policies.load(client, policy)).createOr(e -> e.update());
  }

  /** Binds a pod to the node (Pending); the caller then creates its cgroup and reports it. */
  Pod bind(String name, String tier) {
    return client.resource(Pods.onNode(namespace, name, nodeName, tier)).create();
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
    client.resource(Pods.running(pod)).updateStatus();
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
