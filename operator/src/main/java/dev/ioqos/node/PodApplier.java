package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupDir;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.VerifiedWriter;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLatency;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoMax;
import dev.ioqos.core.IoMaxLine;
import dev.ioqos.core.WeightRange;
import dev.ioqos.core.policy.DesiredSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Writes one pod's desired settings through the verified writer and keeps the ledger true: before
 * writing it records the union of old and new values (so a crash mid-way can still be reverted),
 * writes each file and each disk separately (one refused disk does not block the rest), restores
 * defaults for what was written before and is no longer wanted, then records what the kernel now
 * holds.
 */
public final class PodApplier {
  private final CgroupTree tree;
  private final VerifiedWriter writer;
  private final Ledger ledger;

  public PodApplier(CgroupTree tree, VerifiedWriter writer, Ledger ledger) {
    this.tree = tree;
    this.writer = writer;
    this.ledger = ledger;
  }

  /**
   * Applies {@code desired} to the pod's cgroup.
   *
   * @throws CgroupIoException when the cgroup itself cannot be reached (gone, unsafe): nothing was
   *     written then
   */
  public ApplyOutcome apply(PodTarget pod, String policy, String tier, DesiredSettings desired)
      throws CgroupIoException {
    CgroupDir dir = tree.below(pod.cgroupPath());
    LedgerEntry before = ledger.get(pod.uid()).orElse(null);
    LedgerEntry wanted = entry(pod, policy, tier, desired);
    if (wanted.equals(before) && holds(dir, desired)) {
      // Read, not written: a resync or an unrelated pod update costs reads only, and the
      // kernel's state is verified all the same (drift is rewritten below).
      return ApplyOutcome.unchanged(desired.skipped());
    }
    ledger.put(union(before, wanted));

    List<String> written = new ArrayList<>();
    List<CgroupIoException> failures = new ArrayList<>();
    Integer weight =
        writeWeight(
            dir,
            WeightRange.IO_WEIGHT,
            desired.ioWeight().isPresent() ? desired.ioWeight().getAsInt() : null,
            before == null ? null : before.weight(),
            written,
            failures);
    Integer bfqWeight =
        writeWeight(
            dir,
            WeightRange.BFQ_WEIGHT,
            desired.bfqWeight().isPresent() ? desired.bfqWeight().getAsInt() : null,
            before == null ? null : before.bfqWeight(),
            written,
            failures);

    Map<DeviceId, IoLimits> limits = new TreeMap<>(desired.limits());
    if (before != null) {
      for (String device : before.limits().keySet()) {
        limits.putIfAbsent(DeviceId.parse(device), IoLimits.NONE);
      }
    }
    Map<String, Map<String, Long>> heldLimits = new TreeMap<>();
    for (Map.Entry<DeviceId, IoLimits> limit : limits.entrySet()) {
      try {
        writer.writeMax(dir, Map.of(limit.getKey(), limit.getValue()));
        written.add("io.max " + new IoMaxLine(limit.getKey(), limit.getValue()).toKernelLine());
        if (!limit.getValue().isUnlimited()) {
          heldLimits.put(limit.getKey().toString(), keys(limit.getValue()));
        }
      } catch (CgroupIoException e) {
        failures.add(e);
        // The disk's state is unknown now: keep it recorded so that a later revert restores it.
        String device = limit.getKey().toString();
        heldLimits.put(
            device,
            before != null && before.limits().containsKey(device)
                ? before.limits().get(device)
                : keys(limit.getValue()));
      }
    }

    Map<DeviceId, OptionalLong> latency = new TreeMap<>();
    desired
        .latencyTargetsMicros()
        .forEach((device, micros) -> latency.put(device, OptionalLong.of(micros)));
    if (before != null) {
      for (String device : before.latencyTargetsMicros().keySet()) {
        latency.putIfAbsent(DeviceId.parse(device), OptionalLong.empty());
      }
    }
    Map<String, Long> heldLatency = new TreeMap<>();
    for (Map.Entry<DeviceId, OptionalLong> target : latency.entrySet()) {
      try {
        writer.writeLatency(dir, Map.of(target.getKey(), target.getValue()));
        written.add(
            "io.latency "
                + target.getKey()
                + " target="
                + (target.getValue().isPresent() ? target.getValue().getAsLong() : "max"));
        target.getValue().ifPresent(micros -> heldLatency.put(target.getKey().toString(), micros));
      } catch (CgroupIoException e) {
        failures.add(e);
        String device = target.getKey().toString();
        Long previous = before == null ? null : before.latencyTargetsMicros().get(device);
        heldLatency.put(device, previous != null ? previous : target.getValue().orElse(0L));
      }
    }

    ledger.put(
        new LedgerEntry(
            pod.uid(),
            pod.namespace(),
            pod.name(),
            pod.cgroupPath(),
            policy,
            tier,
            weight,
            bfqWeight,
            heldLimits,
            heldLatency));
    return new ApplyOutcome(written, desired.skipped(), failures);
  }

  /**
   * Whether the cgroup holds every desired value already. A file that cannot be read or parsed
   * counts as not holding them (the write path reports it); a cgroup that is gone is thrown.
   */
  private boolean holds(CgroupDir dir, DesiredSettings desired) throws CgroupIoException {
    try {
      if (desired.ioWeight().isPresent()
          && writer.readWeight(dir, WeightRange.IO_WEIGHT).defaultWeight()
              != desired.ioWeight().getAsInt()) {
        return false;
      }
      if (desired.bfqWeight().isPresent()
          && writer.readWeight(dir, WeightRange.BFQ_WEIGHT).defaultWeight()
              != desired.bfqWeight().getAsInt()) {
        return false;
      }
      if (!desired.limits().isEmpty()) {
        IoMax max = writer.readMax(dir);
        for (Map.Entry<DeviceId, IoLimits> limit : desired.limits().entrySet()) {
          if (!max.limitsFor(limit.getKey()).equals(limit.getValue())) {
            return false;
          }
        }
      }
      if (!desired.latencyTargetsMicros().isEmpty()) {
        IoLatency latency = writer.readLatency(dir);
        for (Map.Entry<DeviceId, Long> target : desired.latencyTargetsMicros().entrySet()) {
          if (!latency.targetMicros(target.getKey()).equals(OptionalLong.of(target.getValue()))) {
            return false;
          }
        }
      }
      return true;
    } catch (CgroupIoException e) {
      if (e.failure() == dev.ioqos.cgroup.CgroupFailure.CGROUP_GONE) {
        throw e;
      }
      return false;
    }
  }

  /** Restores the kernel defaults for everything the ledger says ioqos wrote, then forgets it. */
  public ApplyOutcome revert(LedgerEntry entry) throws CgroupIoException {
    PodTarget pod = new PodTarget(entry.uid(), entry.namespace(), entry.name(), entry.cgroupPath());
    return apply(pod, null, null, DesiredSettings.NOTHING);
  }

  /** Computes what the pod's plan would write, without touching anything (dry run). */
  public static List<String> describe(DesiredSettings desired) {
    List<String> lines = new ArrayList<>();
    desired.ioWeight().ifPresent(w -> lines.add("io.weight default " + w));
    desired.bfqWeight().ifPresent(w -> lines.add("io.bfq.weight default " + w));
    desired.limits().forEach((d, l) -> lines.add("io.max " + new IoMaxLine(d, l).toKernelLine()));
    desired.latencyTargetsMicros().forEach((d, t) -> lines.add("io.latency " + d + " target=" + t));
    return lines;
  }

  private Integer writeWeight(
      CgroupDir dir,
      WeightRange range,
      Integer wanted,
      Integer before,
      List<String> written,
      List<CgroupIoException> failures) {
    if (wanted == null && before == null) {
      return null;
    }
    int value = wanted == null ? WeightRange.DEFAULT : wanted;
    try {
      writer.writeWeight(dir, range, value, Map.of());
      written.add(range.fileName() + " default " + value);
      return wanted;
    } catch (CgroupIoException e) {
      failures.add(e);
      return before != null ? before : wanted;
    }
  }

  private static LedgerEntry entry(
      PodTarget pod, String policy, String tier, DesiredSettings desired) {
    Map<String, Map<String, Long>> limits = new TreeMap<>();
    desired
        .limits()
        .forEach(
            (device, value) -> {
              if (!value.isUnlimited()) {
                limits.put(device.toString(), keys(value));
              }
            });
    Map<String, Long> latency = new TreeMap<>();
    desired
        .latencyTargetsMicros()
        .forEach((device, micros) -> latency.put(device.toString(), micros));
    return new LedgerEntry(
        pod.uid(),
        pod.namespace(),
        pod.name(),
        pod.cgroupPath(),
        policy,
        tier,
        desired.ioWeight().isPresent() ? desired.ioWeight().getAsInt() : null,
        desired.bfqWeight().isPresent() ? desired.bfqWeight().getAsInt() : null,
        limits,
        latency);
  }

  private static LedgerEntry union(LedgerEntry before, LedgerEntry wanted) {
    if (before == null) {
      return wanted;
    }
    Map<String, Map<String, Long>> limits = new HashMap<>(before.limits());
    limits.putAll(wanted.limits());
    Map<String, Long> latency = new HashMap<>(before.latencyTargetsMicros());
    latency.putAll(wanted.latencyTargetsMicros());
    return new LedgerEntry(
        wanted.uid(),
        wanted.namespace(),
        wanted.name(),
        wanted.cgroupPath(),
        wanted.policy(),
        wanted.tier(),
        wanted.weight() != null ? wanted.weight() : before.weight(),
        wanted.bfqWeight() != null ? wanted.bfqWeight() : before.bfqWeight(),
        limits,
        latency);
  }

  private static Map<String, Long> keys(IoLimits limits) {
    Map<String, Long> keys = new TreeMap<>();
    for (IoLimits.Key key : IoLimits.Key.values()) {
      limits.get(key).ifPresent(value -> keys.put(key.kernelName(), value));
    }
    return keys;
  }
}
