package dev.ioqos.core.policy;

import static dev.ioqos.core.policy.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.IoLimits;
import dev.ioqos.core.QosClass;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PolicyRulesTest {

  @Test
  void omittedFieldsTakeTheApiDefaults() {
    PolicyRules rules =
        new PolicyRules(
            "p",
            3,
            0,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            List.of(TierSpec.weighted("standard", 100)),
            null);

    assertThat(rules.nodeSelector()).isEqualTo(LabelSelectorRule.EVERYTHING);
    assertThat(rules.namespaceSelector()).isEqualTo(LabelSelectorRule.EVERYTHING);
    assertThat(rules.podSelector()).isEqualTo(LabelSelectorRule.EVERYTHING);
    assertThat(rules.tierAnnotation()).isEqualTo("ioqos.dev/tier");
    assertThat(rules.defaultTier()).isEmpty();
    assertThat(rules.tierFromPriorityClasses()).isEmpty();
    assertThat(rules.tierFromQosClasses()).isEmpty();
    assertThat(rules.devices()).containsExactly(new DeviceSelectorRule.KubeletRoot());
    assertThat(rules.mode()).isEqualTo(PolicyRules.Mode.ENFORCE);
    assertThat(rules.generation()).isEqualTo(3);
  }

  @Test
  void namedDevicesReplaceTheKubeletRootDefault() {
    PolicyRules rules =
        policy("p")
            .device(new DeviceSelectorRule.HostPath("/var/lib/containerd"))
            .device(new DeviceSelectorRule.DeviceName("/dev/disk/by-id/*SSD*"))
            .build();

    assertThat(rules.devices())
        .containsExactly(
            new DeviceSelectorRule.HostPath("/var/lib/containerd"),
            new DeviceSelectorRule.DeviceName("/dev/disk/by-id/*SSD*"));
  }

  @Test
  void tiersAreLookedUpByExactName() {
    PolicyRules rules = policy("p").tiers("high", "low").build();

    assertThat(rules.tier("low").map(TierSpec::name)).hasValue("low");
    assertThat(rules.tier("LOW")).isEmpty();
    assertThat(rules.tierNames()).containsExactly("high", "low");
  }

  @Test
  void duplicateTierNamesAreRefused() {
    assertThatThrownBy(() -> policy("p").tiers("high", "high").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("IoPolicy p: tier name high is used more than once");
  }

  @Test
  void fallbacksNamingNoTierAreRefusedAllAtOnce() {
    assertThatThrownBy(
            () ->
                policy("p")
                    .tiers("low", "high")
                    .defaultTier("standard")
                    .fromPriorityClass("system-node-critical", "critical")
                    .fromQosClass(QosClass.BEST_EFFORT, "lowest")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "IoPolicy p: defaultTier -> standard, tierFrom.priorityClasses[system-node-critical]"
                + " -> critical, tierFrom.qosClasses[BestEffort] -> lowest names no tier in"
                + " spec.tiers [high, low]");
  }

  @Test
  void aPolicyWithoutTiersIsRefused() {
    assertThatThrownBy(
            () ->
                new PolicyRules(
                    "p",
                    1,
                    0,
                    null,
                    null,
                    null,
                    null,
                    Optional.empty(),
                    Map.of(),
                    Map.of(),
                    List.of(),
                    List.of(),
                    PolicyRules.Mode.ENFORCE))
        .hasMessage("IoPolicy p: spec.tiers must not be empty");
  }

  @Test
  void tierSpecChecksWeightAndLatency() {
    assertThatThrownBy(() -> TierSpec.weighted("t", 10_001))
        .hasMessage("weight 10001 is outside io.weight's range 1..10000");
    assertThatThrownBy(() -> TierSpec.weighted("t", 0))
        .hasMessage("weight 0 is outside io.weight's range 1..10000");
    assertThatThrownBy(
            () -> new TierSpec("t", OptionalInt.empty(), IoLimits.NONE, OptionalLong.of(0)))
        .hasMessage("tier t: latency target must be positive, was 0us");
    assertThat(TierSpec.weighted("t", 1).hasLimits()).isFalse();
  }

  @Test
  void deviceSelectorsNeedAbsolutePaths() {
    assertThatThrownBy(() -> new DeviceSelectorRule.HostPath("var/lib"))
        .hasMessage("host path 'var/lib' must be absolute");
    assertThatThrownBy(() -> new DeviceSelectorRule.DeviceName("nvme0n1"))
        .hasMessage("device name 'nvme0n1' must be absolute");
  }
}
