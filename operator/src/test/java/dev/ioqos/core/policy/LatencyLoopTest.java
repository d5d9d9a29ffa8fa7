package dev.ioqos.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.IoLimits;
import dev.ioqos.core.policy.LatencyLoop.Counters;
import dev.ioqos.core.policy.LatencyLoop.DiskCounters;
import dev.ioqos.core.policy.LatencyLoop.PodSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The loop as a pure controller on signal traces: a small disk model (a reader's latency grows with
 * the writer's rate) closes the loop, and each case checks what the loop wrote.
 */
class LatencyLoopTest {
  static final double PERIOD = 0.25;
  static final long TARGET_US = 2_000;
  static final long MIB = 1 << 20;

  /**
   * The plant: a disk whose read latency is 500 us plus 10 us per MiB/s of writes, and that writes
   * at most 400 MiB/s; the writer writes as fast as its cap allows.
   */
  static final class Disk {
    double writerDemand = 400 * MIB; // bytes/s the writer wants
    double noise; // relative noise on the latency sample
    final Random random = new Random(17);

    double writeRate(IoLimits cap) {
      return Math.min(writerDemand, cap.wbps().orElse(Long.MAX_VALUE));
    }

    double readLatencyMicros(double writeRate) {
      double base = 500 + 10 * writeRate / MIB;
      return base * (1 + noise * (random.nextDouble() * 2 - 1));
    }
  }

  static PodSample reader(String uid, int rank, long targetUs, long reads) {
    return new PodSample(
        uid,
        "p",
        rank,
        OptionalLong.of(targetUs),
        IoLimits.NONE,
        new Counters(reads * 4096, 0, reads, 0));
  }

  static PodSample writer(String uid, int rank, IoLimits staticLimits, double bytesPerSecond) {
    long bytes = (long) (bytesPerSecond * PERIOD);
    return new PodSample(
        uid, "p", rank, OptionalLong.empty(), staticLimits, new Counters(0, bytes, 0, bytes / MIB));
  }

  /** Runs the closed loop; returns the writer's cap at each period. */
  static List<IoLimits> run(
      LatencyLoop loop, Disk disk, int periods, boolean readerActive, IoLimits staticLimits) {
    List<IoLimits> caps = new ArrayList<>();
    IoLimits cap = current(loop, staticLimits);
    for (int i = 0; i < periods; i++) {
      double rate = disk.writeRate(cap);
      double latency = disk.readLatencyMicros(rate);
      long reads = readerActive ? Math.max(1, (long) (PERIOD * 1e6 / latency)) : 0;
      long writes = (long) (rate * PERIOD / MIB);
      var result =
          loop.step(
              PERIOD,
              new DiskCounters(reads, (long) (reads * latency / 1000), writes, writes * 5),
              List.of(reader("r", 0, TARGET_US, reads), writer("w", 1, staticLimits, rate)));
      cap = current(loop, staticLimits);
      if (result.changed().containsKey("w")) {
        assertThat(result.changed().get("w")).isEqualTo(cap);
      }
      caps.add(cap);
    }
    return caps;
  }

  static IoLimits current(LatencyLoop loop, IoLimits staticLimits) {
    return loop.throttled().getOrDefault("w", staticLimits);
  }

  static long wbps(IoLimits limits) {
    return limits.wbps().orElse(Long.MAX_VALUE);
  }

  @Test
  void contentionThrottlesTheWriterUntilTheReaderMeetsItsTargetWithinFivePeriodsAndStays() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    List<IoLimits> caps = run(loop, disk, 80, true, IoLimits.NONE);
    // Settled: from period 12 (3 s) on, the reader's latency is within the target.
    for (int i = 12; i < caps.size(); i++) {
      assertThat(disk.readLatencyMicros(disk.writeRate(caps.get(i))))
          .as("latency at period %d", i)
          .isLessThanOrEqualTo(TARGET_US);
    }
    // No oscillation: after settling the cap moves within a narrow band, no further decrease.
    List<Long> tail = caps.subList(40, 80).stream().map(LatencyLoopTest::wbps).toList();
    long min = tail.stream().mapToLong(Long::longValue).min().getAsLong();
    long max = tail.stream().mapToLong(Long::longValue).max().getAsLong();
    assertThat(max).isEqualTo(min);
    // And the writer keeps a useful share: not pushed to the floor (the model allows 150 MiB/s).
    assertThat(min).isGreaterThan(60 * MIB).isLessThanOrEqualTo(150 * MIB);
  }

  @Test
  void anIdleProtectedPodGivesTheDiskBackWithinTheReleasePeriods() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    run(loop, disk, 20, true, IoLimits.NONE);
    assertThat(loop.throttled()).containsKey("w");
    List<IoLimits> after = run(loop, disk, 3, false, IoLimits.NONE);
    assertThat(after.get(1)).isEqualTo(IoLimits.NONE);
    assertThat(loop.throttled()).isEmpty();
  }

  @Test
  void aNoisySignalDoesNotMakeTheLoopOscillate() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    disk.noise = 0.15;
    List<IoLimits> caps = run(loop, disk, 120, true, IoLimits.NONE);
    long decreasesAfterSettling = 0;
    for (int i = 41; i < caps.size(); i++) {
      if (wbps(caps.get(i)) < wbps(caps.get(i - 1))) {
        decreasesAfterSettling++;
      }
    }
    // A sawtooth would halve the cap every few periods; the dead band absorbs +-15% noise.
    assertThat(decreasesAfterSettling).isLessThanOrEqualTo(3);
    caps.subList(40, 120)
        .forEach(cap -> assertThat(wbps(cap)).isGreaterThan(30 * MIB).isLessThan(200 * MIB));
  }

  @Test
  void aWriterThatStopsByItselfIsNotThrottledFurtherAndIsReleasedWhenTheReaderIsComfortable() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    run(loop, disk, 20, true, IoLimits.NONE);
    long capBefore = wbps(loop.throttled().get("w"));
    disk.writerDemand = 0.001; // stops: no bytes at all
    List<IoLimits> caps = run(loop, disk, 40, true, IoLimits.NONE);
    // Never lowered while it does nothing; raised step by step as the reader is comfortable.
    assertThat(wbps(caps.get(0))).isGreaterThanOrEqualTo(capBefore);
    assertThat(caps.get(caps.size() - 1)).isEqualTo(IoLimits.NONE);
  }

  @Test
  void aTargetAlreadyMetThrottlesNothing() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    disk.writerDemand = 50 * MIB; // 1000 us: below the 2000 us target
    List<IoLimits> caps = run(loop, disk, 40, true, IoLimits.NONE);
    assertThat(caps).allMatch(IoLimits.NONE::equals);
    assertThat(loop.throttled()).isEmpty();
  }

  @Test
  void neverAboveTheTiersStaticLimitsNorBelowTheFloor() {
    IoLimits staticLimits = IoLimits.NONE.with(IoLimits.Key.WBPS, 300 * MIB);
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    List<IoLimits> caps = run(loop, disk, 40, true, staticLimits);
    caps.forEach(cap -> assertThat(wbps(cap)).isLessThanOrEqualTo(300 * MIB));
    // A disk so slow that no cap meets the target: the cap stops at the floor (2% of the rate).
    LatencyLoop hopeless = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    for (int i = 0; i < 40; i++) {
      hopeless.step(
          PERIOD,
          new DiskCounters(10, 100, 10, 10),
          List.of(
              reader("r", 0, 1_000, 10),
              writer("w", 1, IoLimits.NONE, i < 2 ? 400 * MIB : 8 * MIB)));
    }
    assertThat(wbps(hopeless.throttled().get("w")))
        .isEqualTo(Math.max(MIB, (long) (0.02 * 400 * MIB)));
    // When the floor sits above the static limit, the static limit wins.
    assertThat(wbps(hopeless.throttled().get("w"))).isLessThanOrEqualTo(300 * MIB);
  }

  @Test
  void twoProtectedPodsEachGuardOnlyTheTiersBelowThem() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    // r0 (rank 0) is over its target, r1 (rank 1, also protected) under; w (rank 2) is below both,
    // x (another policy) is never touched, nor is r1, a protected pod itself.
    for (int i = 0; i < 4; i++) {
      loop.step(
          PERIOD,
          new DiskCounters(100, 500, 100, 500),
          List.of(
              reader("r0", 0, 2_000, 50),
              reader("r1", 1, 10_000, 50),
              writer("w", 2, IoLimits.NONE, 400 * MIB),
              new PodSample(
                  "x",
                  "other",
                  5,
                  OptionalLong.empty(),
                  IoLimits.NONE,
                  new Counters(0, 100 * MIB, 0, 100))));
    }
    assertThat(loop.throttled()).containsOnlyKeys("w");
  }

  @Test
  void aProtectedPodsOwnSaturationDoesNotThrottleAnIdleNeighbour() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    var result =
        loop.step(
            PERIOD,
            new DiskCounters(100, 1000, 0, 0),
            List.of(reader("r", 0, 2_000, 100), writer("w", 1, IoLimits.NONE, 0)));
    assertThat(result.changed()).isEmpty();
    assertThat(loop.throttled()).isEmpty();
  }

  @Test
  void badParametersAndPeriodsAreRefused() {
    assertThatThrownBy(() -> new LatencyLoop.Parameters(250, 0.5, 1.5, 0.05, 0.8, 0.02, 1, 1, 2, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of range");
    assertThatThrownBy(
            () ->
                new LatencyLoop(LatencyLoop.Parameters.DEFAULT)
                    .step(0, new DiskCounters(0, 0, 0, 0), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive length");
  }

  @Test
  void forgetDropsAPodsState() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    run(loop, disk, 10, true, IoLimits.NONE);
    assertThat(loop.throttled()).containsKey("w");
    loop.forget("w");
    assertThat(loop.throttled()).isEqualTo(Map.of());
  }

  @Test
  void aSinglePeriodsSpikeDoesNotHalveTheCapTwoPeriodsAboveDo() {
    LatencyLoop loop = new LatencyLoop(LatencyLoop.Parameters.DEFAULT);
    Disk disk = new Disk();
    List<IoLimits> settled = run(loop, disk, 60, true, IoLimits.NONE);
    long before = wbps(settled.get(settled.size() - 1));
    // One period of 20 ms completions (the emulator's hiccup), then back to normal.
    IoLimits cap = loop.throttled().get("w");
    double rate = disk.writeRate(cap);
    long writes = (long) (rate * PERIOD / MIB);
    loop.step(
        PERIOD,
        new DiskCounters(10, 200, writes, writes * 5),
        List.of(reader("r", 0, TARGET_US, 10), writer("w", 1, IoLimits.NONE, rate)));
    assertThat(wbps(loop.throttled().get("w"))).isEqualTo(before);
    // Two such periods in a row: a real excess, the cap goes down.
    loop.step(
        PERIOD,
        new DiskCounters(10, 200, writes, writes * 5),
        List.of(reader("r", 0, TARGET_US, 10), writer("w", 1, IoLimits.NONE, rate)));
    assertThat(wbps(loop.throttled().get("w"))).isLessThan(before);
  }
}
