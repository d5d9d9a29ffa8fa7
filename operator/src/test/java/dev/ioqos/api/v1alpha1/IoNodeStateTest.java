package dev.ioqos.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class IoNodeStateTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** DESIGN.md's IoNodeState example plus kernel.iocost and pods.failures. */
  private static final String EXAMPLE =
      """
      apiVersion: ioqos.dev/v1alpha1
      kind: IoNodeState
      metadata:
        name: node-1
      status:
        cgroup: {version: v2, driver: systemd, kubepodsPath: /kubepods.slice, ioControllerEnabled: true}
        kernel: {release: 6.12.118, psi: true, ioLatency: false, iocost: true}
        devices:
          - {name: vda, majMin: "254:0", scheduler: none, rotational: false, iocost: enabled,
             weightMechanism: iocost}
        pods:
          managed: 42
          applied: 41
          failed: 1
          failures:
            - {namespace: default, name: web-0, reason: NoSuchDevice, message: "io.max: ENODEV"}
      """;

  @Test
  void roundTripsTheDesignExample() {
    IoNodeState state = SERIALIZATION.unmarshal(EXAMPLE, IoNodeState.class);
    IoNodeStateStatus status = state.getStatus();

    assertThat(status.getCgroup().getKubepodsPath()).isEqualTo("/kubepods.slice");
    assertThat(status.getKernel().getIoLatency()).isFalse();
    assertThat(status.getDevices().get(0).getWeightMechanism())
        .isEqualTo(DeviceStatus.WeightMechanism.IOCOST);
    assertThat(status.getDevices().get(0).getIocost()).isEqualTo(DeviceStatus.IOCOST_ENABLED);
    assertThat(status.getPods().getFailures().get(0).getReason()).isEqualTo("NoSuchDevice");
    assertThat(IoPolicyRoundTripTest.asTree(state))
        .isEqualTo(SERIALIZATION.unmarshal(EXAMPLE, JsonNode.class));
  }

  @Test
  void failureTextIsCutToWhatTheApiServerAccepts() {
    String longMessage = "x".repeat(5000);
    String longReason = "R".repeat(500);

    PodFailure failure = PodFailure.of("ns", "pod", longReason, longMessage);

    assertThat(failure.getMessage()).hasSize(PodFailure.MAX_MESSAGE_LENGTH).endsWith("...");
    assertThat(failure.getReason()).hasSize(PodFailure.MAX_REASON_LENGTH);
    assertThat(PodFailure.of("ns", "pod", "Short", "short").getMessage()).isEqualTo("short");
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    String emoji = "\uD83D\uDCBE"; // one code point, two chars
    String message = "a".repeat(PodFailure.MAX_MESSAGE_LENGTH - 5) + emoji.repeat(10);

    String cut = PodFailure.of("ns", "pod", "R", message).getMessage();

    assertThat(Character.isHighSurrogate(cut.charAt(cut.length() - 4))).isFalse();
    assertThat(cut.codePointCount(0, cut.length()))
        .isLessThanOrEqualTo(PodFailure.MAX_MESSAGE_LENGTH);
  }
}
