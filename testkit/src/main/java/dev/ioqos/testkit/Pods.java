package dev.ioqos.testkit;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;

/**
 * Pods as the tests, the benchmark and the demo create them: bound to a node as a scheduler would,
 * and reported Running as kubelet would.
 */
public final class Pods {
  public static final String TIER_ANNOTATION = "ioqos.dev/tier";

  private Pods() {}

  /**
   * A pod bound to {@code node}, one container requesting 100m CPU (so Burstable), with the tier
   * annotation when {@code tier} is not null; not yet created.
   */
  public static Pod onNode(String namespace, String name, String node, String tier) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("main")
            .withImage("registry.invalid/app:1")
            .withNewResources()
            .addToRequests("cpu", new Quantity("100m"))
            .endResources()
            .endContainer()
            .endSpec();
    if (tier != null) {
      pod.editMetadata().addToAnnotations(TIER_ANNOTATION, tier).endMetadata();
    }
    return pod.build();
  }

  /**
   * The pod with the status kubelet reports once it runs (phase Running, start time, IPs, Ready),
   * for the status subresource; the QoS class the API server computed is kept.
   */
  public static Pod running(Pod pod) {
    String now = Instant.now().toString();
    return new PodBuilder(pod)
        .editOrNewStatus()
        .withPhase("Running")
        .withHostIP("10.0.0.1")
        .withPodIP("10.244.0.10")
        .withStartTime(now)
        .withConditions(
            new PodConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withLastTransitionTime(now)
                .build())
        .endStatus()
        .build();
  }
}
