package dev.ioqos.demo;

import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.Pods;
import dev.ioqos.testkit.Policies;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The demo's objects in the API server, created as an admin and a scheduler would; what kubelet
 * would do (marking pods Running) is done here through the status subresource.
 */
final class DemoCluster {
  static final String NODE = "ioqos-demo-node";
  static final String NAMESPACE = "ioqos-demo";
  static final String POLICY = "ioqos-demo";
  static final String TIER_ANNOTATION = Pods.TIER_ANNOTATION;

  /** The IoPolicy the demo creates, as a user would write it. */
  static final String POLICY_YAML =
      "apiVersion: ioqos.dev/v1alpha1\n"
          + "kind: IoPolicy\n"
          + "metadata:\n"
          + "  name: "
          + POLICY
          + "\n"
          + "spec:\n"
          + "  namespaceSelector:\n"
          + "    matchLabels: {kubernetes.io/metadata.name: "
          + NAMESPACE
          + "}\n"
          + "  defaultTier: standard\n"
          + "  tiers:\n"
          + "    - {name: high, weight: 500}\n"
          + "    - {name: standard, weight: 100}\n"
          + "    - name: low\n"
          + "      weight: 10\n"
          + "      limits: {writeBytesPerSecond: 20Mi, writeIOPS: 200}\n";

  private final KubernetesClient client;

  DemoCluster(KubernetesClient client) {
    this.client = client;
  }

  void createNodeAndNamespace() {
    client
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .addToLabels("kubernetes.io/hostname", NODE)
                .endMetadata()
                .build())
        .create();
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
  }

  /** Creates the policy; the API server validates it against the CRD schema first. */
  void createPolicy() {
    client.resource(Policies.load(client, POLICY_YAML)).create();
  }

  void deletePolicy() {
    client.resources(IoPolicy.class).withName(POLICY).delete();
  }

  /**
   * Creates a pod bound to the demo node (tier annotation when {@code tier} is not null) and marks
   * it Running as kubelet would.
   */
  Pod createRunningPod(String name, String tier) {
    client
        .resource(
            new PodBuilder(Pods.onNode(NAMESPACE, name, NODE, tier))
                .editMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .build())
        .create();
    return client.pods().inNamespace(NAMESPACE).withName(name).editStatus(Pods::running);
  }

  /** The QoS class the API server computed for the pod (status.qosClass). */
  static QosClass qosClass(Pod pod) {
    return QosClass.parse(pod.getStatus().getQosClass());
  }

  /** Waits for the agent's Event {@code reason} on the pod and returns its message. */
  String awaitEvent(String pod, String reason) {
    String[] message = new String[1];
    Eventually.until(
        "the agent's " + reason + " Event on " + NAMESPACE + "/" + pod,
        () -> {
          client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
              .filter(e -> pod.equals(e.getInvolvedObject().getName()))
              .filter(e -> reason.equals(e.getReason()))
              .findFirst()
              .ifPresent(e -> message[0] = e.getMessage());
          return message[0] != null;
        });
    return message[0];
  }

  /** Sets the pod's tier annotation, as a user would with kubectl annotate --overwrite. */
  void setTier(String pod, String tier) {
    client
        .pods()
        .inNamespace(NAMESPACE)
        .withName(pod)
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToAnnotations(TIER_ANNOTATION, tier)
                    .endMetadata()
                    .build());
  }
}
