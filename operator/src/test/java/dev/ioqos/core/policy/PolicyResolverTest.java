package dev.ioqos.core.policy;

import static dev.ioqos.core.policy.Policies.NODE;
import static dev.ioqos.core.policy.Policies.pod;
import static dev.ioqos.core.policy.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PolicyResolverTest {

  private static final DiskFacts NVME =
      new DiskFacts(DeviceId.parse("259:0"), "nvme0n1", "none", WeightMechanism.IOCOST);

  @Test
  void annotatedPodGetsItsTierFromTheWinningPolicy() {
    PolicyRules winner =
        policy("winner")
            .priority(10)
            .tier(TierSpec.weighted("high", 500))
            .device(new DeviceSelectorRule.HostPath("/var/lib/containerd"))
            .build();
    PolicyRules loser = policy("loser").tiers("high").build();

    PodDecision decision =
        PolicyResolver.decide(
            pod(Map.of(), Map.of("ioqos.dev/tier", "high")), NODE, List.of(loser, winner));

    assertThat(decision.policy()).hasValue(winner);
    assertThat(decision.conflictingPolicies()).isEmpty();
    assertThat(decision.tier()).hasValue(TierSpec.weighted("high", 500));
    assertThat(decision.source()).isEqualTo(TierSource.ANNOTATION);
    assertThat(decision.warnings()).isEmpty();
    assertThat(decision.mode()).hasValue(PolicyRules.Mode.ENFORCE);
    assertThat(decision.dryRun()).isFalse();
    assertThat(decision.managed()).isTrue();
    assertThat(decision.devices())
        .containsExactly(new DeviceSelectorRule.HostPath("/var/lib/containerd"));

    DesiredSettings plan = PolicyResolver.plan(decision, List.of(NVME), KernelFacts.ALL);
    assertThat(plan.ioWeight()).hasValue(500);
    assertThat(plan.limits()).containsExactly(Map.entry(NVME.id(), IoLimits.NONE));
  }

  @Test
  void dryRunIsCarriedAndThePlanIsStillComputed() {
    PolicyRules dryRun =
        policy("trial")
            .tier(new TierSpec("slow", OptionalInt.of(50), IoLimits.NONE, OptionalLong.empty()))
            .defaultTier("slow")
            .mode(PolicyRules.Mode.DRY_RUN)
            .build();

    PodDecision decision = PolicyResolver.decide(pod(Map.of(), Map.of()), NODE, List.of(dryRun));

    assertThat(decision.mode()).hasValue(PolicyRules.Mode.DRY_RUN);
    assertThat(decision.dryRun()).isTrue();
    assertThat(decision.source()).isEqualTo(TierSource.DEFAULT_TIER);
    assertThat(PolicyResolver.plan(decision, List.of(NVME), KernelFacts.ALL).ioWeight())
        .hasValue(50);
  }

  @Test
  void conflictIsReportedAlongsideTheTier() {
    PolicyRules b = policy("b").tiers("x").defaultTier("x").build();
    PolicyRules a = policy("a").tiers("y").defaultTier("y").build();

    PodDecision decision = PolicyResolver.decide(pod(Map.of(), Map.of()), NODE, List.of(b, a));

    assertThat(decision.policy().map(PolicyRules::name)).hasValue("a");
    assertThat(decision.conflictingPolicies()).containsExactly("a", "b");
    assertThat(decision.tier().map(TierSpec::name)).hasValue("y");
  }

  @Test
  void noSelectingPolicyMeansNothingToWrite() {
    PolicyRules dbOnly =
        policy("db")
            .podSelector(LabelSelectorRule.matchLabels(Map.of("app", "db")))
            .tiers("x")
            .defaultTier("x")
            .build();

    PodDecision decision =
        PolicyResolver.decide(pod(Map.of("app", "web"), Map.of()), NODE, List.of(dbOnly));

    assertThat(decision.policy()).isEmpty();
    assertThat(decision.mode()).isEmpty();
    assertThat(decision.dryRun()).isFalse();
    assertThat(decision.managed()).isFalse();
    assertThat(decision.source()).isEqualTo(TierSource.NONE);
    assertThat(decision.devices()).isEmpty();
    assertThat(PolicyResolver.plan(decision, List.of(NVME), KernelFacts.ALL))
        .isEqualTo(DesiredSettings.NOTHING);
  }

  @Test
  void selectedButUnplacedPodIsNotManagedAndHasNoDevices() {
    PolicyRules noDefault = policy("p").tiers("x").build();

    PodDecision decision = PolicyResolver.decide(pod(Map.of(), Map.of()), NODE, List.of(noDefault));

    assertThat(decision.policy()).hasValue(noDefault);
    assertThat(decision.managed()).isFalse();
    assertThat(decision.devices()).isEmpty();
    assertThat(PolicyResolver.plan(decision, List.of(NVME), KernelFacts.ALL).writesNothing())
        .isTrue();
  }
}
