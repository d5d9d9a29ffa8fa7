package dev.ioqos.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoWeight;
import dev.ioqos.core.policy.DesiredSettings.DiskWeight;
import dev.ioqos.core.policy.Skipped.Feature;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlannerTest {

  private static final DiskFacts NVME =
      new DiskFacts(DeviceId.parse("259:0"), "nvme0n1", "none", WeightMechanism.IOCOST);
  private static final DiskFacts SDA =
      new DiskFacts(DeviceId.parse("8:0"), "sda", "bfq", WeightMechanism.BFQ);
  private static final DiskFacts VDA =
      new DiskFacts(DeviceId.parse("254:0"), "vda", "none", WeightMechanism.NONE);

  private static final IoLimits CAPPED =
      IoLimits.NONE
          .with(IoLimits.Key.RBPS, 52_428_800)
          .with(IoLimits.Key.WBPS, 20_971_520)
          .with(IoLimits.Key.RIOPS, 1000)
          .with(IoLimits.Key.WIOPS, 200);

  private static final TierSpec HIGH =
      new TierSpec("high", OptionalInt.of(500), IoLimits.NONE, OptionalLong.of(5_000));
  private static final TierSpec LOW =
      new TierSpec("low", OptionalInt.of(10), CAPPED, OptionalLong.empty());

  @Test
  void iocostDiskGetsTheIoWeightOnly() {
    DesiredSettings plan = Planner.plan(HIGH, List.of(NVME), KernelFacts.ALL);

    assertThat(plan.ioWeight()).hasValue(500);
    assertThat(plan.bfqWeight()).isEmpty();
    assertThat(plan.diskWeights())
        .containsExactly(Map.entry(NVME.id(), new DiskWeight(WeightMechanism.IOCOST, 500)));
    assertThat(plan.limits()).containsExactly(Map.entry(NVME.id(), IoLimits.NONE));
    assertThat(plan.latencyTargetsMicros()).containsExactly(Map.entry(NVME.id(), 5_000L));
    assertThat(plan.skipped()).isEmpty();
  }

  @Test
  void bfqDiskGetsTheScaledBfqWeightOnly() {
    DesiredSettings plan = Planner.plan(HIGH, List.of(SDA), KernelFacts.ALL);

    assertThat(plan.ioWeight()).isEmpty();
    assertThat(plan.bfqWeight()).hasValue(IoWeight.toBfqWeight(500));
    assertThat(plan.diskWeights())
        .containsExactly(
            Map.entry(SDA.id(), new DiskWeight(WeightMechanism.BFQ, IoWeight.toBfqWeight(500))));
    assertThat(plan.skipped()).isEmpty();
  }

  /** systemd's scaling, through IoWeight.toBfqWeight: 100 + (w - 100) * 900 / 9900. */
  @ParameterizedTest
  @CsvSource({"500, 136", "10, 10", "100, 100", "10000, 1000"})
  void bfqWeightIsScaledLikeSystemd(int ioWeight, int bfqWeight) {
    TierSpec tier = TierSpec.weighted("t", ioWeight);

    assertThat(Planner.plan(tier, List.of(SDA), KernelFacts.ALL).bfqWeight()).hasValue(bfqWeight);
  }

  @Test
  void mixedDisksWriteBothWeightsAndReportTheUnenforcedDisk() {
    DesiredSettings plan = Planner.plan(HIGH, List.of(VDA, SDA, NVME), KernelFacts.ALL);

    assertThat(plan.ioWeight()).hasValue(500);
    assertThat(plan.bfqWeight()).hasValue(136);
    assertThat(plan.diskWeights())
        .containsOnlyKeys(NVME.id(), SDA.id())
        .doesNotContainKey(VDA.id());
    assertThat(plan.limits()).containsOnlyKeys(VDA.id(), SDA.id(), NVME.id());
    assertThat(plan.skipped())
        .containsExactly(
            new Skipped(
                Feature.IO_WEIGHT,
                Optional.of(VDA),
                "io.weight is not enforced on vda: scheduler none and iocost off; enable iocost"
                    + " or use bfq"));
  }

  @Test
  void noDiskEnforcingWeightMeansNoWeightIsWritten() {
    DiskFacts sdb =
        new DiskFacts(DeviceId.parse("8:16"), "sdb", "mq-deadline", WeightMechanism.NONE);

    DesiredSettings plan = Planner.plan(LOW, List.of(VDA, sdb), KernelFacts.ALL);

    assertThat(plan.ioWeight()).isEmpty();
    assertThat(plan.bfqWeight()).isEmpty();
    assertThat(plan.diskWeights()).isEmpty();
    assertThat(plan.skipped())
        .extracting(Skipped::reason)
        .containsExactly(
            "io.weight is not enforced on sdb: scheduler mq-deadline and iocost off; enable"
                + " iocost or use bfq",
            "io.weight is not enforced on vda: scheduler none and iocost off; enable iocost or"
                + " use bfq");
    // Limits do not depend on weight enforcement.
    assertThat(plan.limits()).containsEntry(VDA.id(), CAPPED).containsEntry(sdb.id(), CAPPED);
  }

  @Test
  void tierWithoutLimitsWritesAllMaxSoAnEarlierCapIsLifted() {
    DesiredSettings plan = Planner.plan(HIGH, List.of(VDA), KernelFacts.ALL);

    assertThat(plan.limits()).containsExactly(Map.entry(VDA.id(), IoLimits.NONE));
  }

  @Test
  void tierLimitsGoToEveryTargetedDisk() {
    DesiredSettings plan = Planner.plan(LOW, List.of(NVME, SDA), KernelFacts.ALL);

    assertThat(plan.limits())
        .containsExactly(Map.entry(SDA.id(), CAPPED), Map.entry(NVME.id(), CAPPED));
    assertThat(plan.latencyTargetsMicros()).isEmpty();
  }

  @Test
  void latencyIsSkippedOnceWithoutIoLatency() {
    DesiredSettings plan = Planner.plan(HIGH, List.of(NVME, SDA), new KernelFacts(false, true));

    assertThat(plan.latencyTargetsMicros()).isEmpty();
    assertThat(plan.ioWeight()).hasValue(500);
    assertThat(plan.skipped())
        .containsExactly(
            new Skipped(
                Feature.IO_LATENCY,
                Optional.empty(),
                "kernel lacks io.latency (CONFIG_BLK_CGROUP_IOLATENCY): the agent's latency loop"
                    + " enforces the target through the io.max of the policy's lower tiers"));
  }

  @Test
  void noLatencyTargetMeansNoLatencyWorkAndNoSkip() {
    DesiredSettings plan = Planner.plan(LOW, List.of(NVME), new KernelFacts(false, true));

    assertThat(plan.latencyTargetsMicros()).isEmpty();
    assertThat(plan.skipped()).isEmpty();
  }

  @Test
  void limitsAreSkippedWithoutIoMaxOnlyWhenTheTierHasSome() {
    KernelFacts noIoMax = new KernelFacts(true, false);

    DesiredSettings capped = Planner.plan(LOW, List.of(NVME), noIoMax);
    DesiredSettings uncapped = Planner.plan(HIGH, List.of(NVME), noIoMax);

    assertThat(capped.limits()).isEmpty();
    assertThat(capped.skipped())
        .containsExactly(
            new Skipped(
                Feature.IO_MAX,
                Optional.empty(),
                "io.max is missing from the pod's cgroup: the io controller is not enabled on its"
                    + " path"));
    assertThat(uncapped.limits()).isEmpty();
    assertThat(uncapped.skipped()).isEmpty();
  }

  @Test
  void tierWithoutWeightLeavesWeightAloneEvenOnUnenforcedDisks() {
    TierSpec capsOnly = new TierSpec("caps", OptionalInt.empty(), CAPPED, OptionalLong.empty());

    DesiredSettings plan = Planner.plan(capsOnly, List.of(NVME, VDA), KernelFacts.ALL);

    assertThat(plan.ioWeight()).isEmpty();
    assertThat(plan.bfqWeight()).isEmpty();
    assertThat(plan.diskWeights()).isEmpty();
    assertThat(plan.skipped()).isEmpty();
  }

  @Test
  void aDiskResolvedTwiceIsPlannedOnce() {
    DesiredSettings plan = Planner.plan(LOW, List.of(NVME, NVME), KernelFacts.ALL);

    assertThat(plan.limits()).containsExactly(Map.entry(NVME.id(), CAPPED));
  }

  @Test
  void noTargetedDiskWritesNothingAndSaysSoPerRequestedFeature() {
    TierSpec everything = new TierSpec("all", OptionalInt.of(500), CAPPED, OptionalLong.of(5_000));

    DesiredSettings plan = Planner.plan(everything, List.of(), KernelFacts.ALL);

    assertThat(plan.writesNothing()).isTrue();
    assertThat(plan.skipped())
        .extracting(Skipped::feature, Skipped::disk, Skipped::reason)
        .containsExactly(
            tuple(
                Feature.IO_WEIGHT,
                Optional.empty(),
                "the policy's devices match no disk on this node"),
            tuple(
                Feature.IO_MAX,
                Optional.empty(),
                "the policy's devices match no disk on this node"),
            tuple(
                Feature.IO_LATENCY,
                Optional.empty(),
                "the policy's devices match no disk on this node"));
  }
}
