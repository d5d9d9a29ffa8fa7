package dev.ioqos.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The DESIGN.md example (API section) read into the model and written back unchanged. */
class IoPolicyRoundTripTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Verbatim from DESIGN.md, with apiVersion/kind/metadata added. */
  static final String DESIGN_EXAMPLE =
      """
      apiVersion: ioqos.dev/v1alpha1
      kind: IoPolicy
      metadata:
        name: example
      spec:
        priority: 100            # int, default 0; when several policies select a pod the highest wins;
                                 # a tie is broken by name and reported as a Conflict condition
        nodeSelector: {}         # LabelSelector over Nodes (default: all)
        namespaceSelector: {}    # LabelSelector over Namespaces (default: all)
        podSelector: {}          # LabelSelector over Pods (default: all)
        tierAnnotation: ioqos.dev/tier    # default shown
        defaultTier: standard    # tier for selected pods without the annotation (optional)
        tierFrom:                # optional fallbacks, tried after the annotation
          priorityClasses: {system-node-critical: critical}
          qosClasses: {BestEffort: low}
        devices:                 # which block devices io.max / io.latency / per-device weights target
          - kubeletRoot: {}      # the disk(s) under kubelet's root dir (default when omitted)
          - path: /var/lib/containerd     # any host path: resolved to the disk(s) beneath it
          - name: /dev/nvme0n1   # a device node; globs allowed, e.g. /dev/disk/by-id/*SSD*
        tiers:
          - name: high
            weight: 500          # io.weight 1..10000 (scaled to io.bfq.weight 1..1000 on bfq disks)
            latencyTarget: 5ms   # io.latency target, only where the kernel has it
          - name: low
            weight: 10
            limits: {readBytesPerSecond: 50Mi, writeBytesPerSecond: 20Mi, readIOPS: 1000, writeIOPS: 200}
        mode: Enforce            # Enforce | DryRun (compute and report, write nothing)
      """;

  /** As written on the wire: Jackson trees of a Long and a parsed int would differ. */
  static JsonNode asTree(Object value) {
    return SERIALIZATION.unmarshal(SERIALIZATION.asJson(value), JsonNode.class);
  }

  @Test
  void readsEveryFieldOfTheDesignExample() {
    IoPolicy policy = SERIALIZATION.unmarshal(DESIGN_EXAMPLE, IoPolicy.class);
    IoPolicySpec spec = policy.getSpec();

    assertThat(policy.getMetadata().getName()).isEqualTo("example");
    assertThat(spec.getPriority()).isEqualTo(100);
    assertThat(spec.getNodeSelector()).isNotNull();
    assertThat(spec.getNamespaceSelector()).isNotNull();
    assertThat(spec.getPodSelector()).isNotNull();
    assertThat(spec.getTierAnnotation()).isEqualTo("ioqos.dev/tier");
    assertThat(spec.getDefaultTier()).isEqualTo("standard");
    assertThat(spec.getTierFrom().getPriorityClasses())
        .isEqualTo(Map.of("system-node-critical", "critical"));
    assertThat(spec.getTierFrom().getQosClasses()).isEqualTo(Map.of("BestEffort", "low"));
    assertThat(spec.getDevices()).hasSize(3);
    assertThat(spec.getDevices().get(0).getKubeletRoot()).isNotNull();
    assertThat(spec.getDevices().get(0).getPath()).isNull();
    assertThat(spec.getDevices().get(1).getPath()).isEqualTo("/var/lib/containerd");
    assertThat(spec.getDevices().get(2).getName()).isEqualTo("/dev/nvme0n1");
    assertThat(spec.getMode()).isEqualTo(PolicyMode.ENFORCE);

    Tier high = spec.getTiers().get(0);
    assertThat(high.getName()).isEqualTo("high");
    assertThat(high.getWeight()).isEqualTo(500);
    assertThat(high.getLatencyTarget()).isEqualTo("5ms");
    assertThat(high.latencyTargetMicros()).hasValue(5000);
    assertThat(high.getLimits()).isNull();

    Tier low = spec.getTiers().get(1);
    assertThat(low.getWeight()).isEqualTo(10);
    assertThat(low.latencyTargetMicros()).isEmpty();
    TierLimits limits = low.getLimits();
    assertThat(limits.readBytesPerSecondValue()).hasValue(52_428_800);
    assertThat(limits.writeBytesPerSecondValue()).hasValue(20_971_520);
    assertThat(limits.getReadIOPS()).isEqualTo(1000);
    assertThat(limits.getWriteIOPS()).isEqualTo(200);
  }

  @Test
  void writesTheDesignExampleBackUnchanged() {
    IoPolicy policy = SERIALIZATION.unmarshal(DESIGN_EXAMPLE, IoPolicy.class);

    assertThat(asTree(policy)).isEqualTo(SERIALIZATION.unmarshal(DESIGN_EXAMPLE, JsonNode.class));
  }

  @Test
  void omittedFieldsTakeTheSameDefaultsAsTheApiServer() {
    IoPolicy policy =
        SERIALIZATION.unmarshal(
            """
            apiVersion: ioqos.dev/v1alpha1
            kind: IoPolicy
            metadata: {name: minimal}
            spec:
              tiers: [{name: capped, limits: {readBytesPerSecond: 1048576}}]
            """,
            IoPolicy.class);
    IoPolicySpec spec = policy.getSpec();

    assertThat(spec.getPriority()).isZero();
    assertThat(spec.getTierAnnotation()).isEqualTo(IoPolicySpec.DEFAULT_TIER_ANNOTATION);
    assertThat(spec.getMode()).isEqualTo(PolicyMode.ENFORCE);
    assertThat(spec.getDevices()).isNull();
    assertThat(spec.getNodeSelector()).isNull();
    assertThat(spec.getTiers().get(0).getWeight()).isNull();
    assertThat(spec.getTiers().get(0).getLimits().readBytesPerSecondValue()).hasValue(1_048_576);
    assertThat(spec.getTiers().get(0).getLimits().writeBytesPerSecondValue()).isEmpty();
  }

  @Test
  void dryRunIsSpelledAsInTheApi() {
    IoPolicySpec spec = new IoPolicySpec();
    spec.setMode(PolicyMode.DRY_RUN);

    assertThat(SERIALIZATION.convertValue(spec, JsonNode.class).get("mode").asText())
        .isEqualTo("DryRun");
  }

  @Test
  void statusRoundTrips() {
    IoPolicyStatus status = new IoPolicyStatus();
    status.setObservedGeneration(3L);
    Condition ready =
        new ConditionBuilder()
            .withType(IoPolicyStatus.READY)
            .withStatus("True")
            .withReason("Applied")
            .withLastTransitionTime("2026-01-01T00:00:00Z")
            .build();
    status.setConditions(List.of(ready));
    status.setNodes(new NodeCounts(3, 2, 1));

    JsonNode json = asTree(status);
    IoPolicyStatus read =
        SERIALIZATION.unmarshal(SERIALIZATION.asJson(status), IoPolicyStatus.class);

    assertThat(json.at("/nodes/selected").asInt()).isEqualTo(3);
    assertThat(json.at("/conditions/0/type").asText()).isEqualTo("Ready");
    assertThat(asTree(read)).isEqualTo(json);
  }
}
