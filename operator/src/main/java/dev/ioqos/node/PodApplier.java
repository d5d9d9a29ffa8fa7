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
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.WeightRange;
import dev.ioqos.core.policy.DesiredSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
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
   * Applies {@code desired} to the pod's cgroup, restoring the defaults on disks it held values for
   * and no longer wants.
   *
   * @throws CgroupIoException when the cgroup itself cannot be reached (gone, unsafe): nothing was
   *     written then
   * @throws LedgerWriteException when the ledger cannot record what is about to be written: nothing
   *     was written then; or what was written: the ledger then holds a superset of the cgroup
   */
  public ApplyOutcome apply(PodTarget pod, String policy, String tier, DesiredSettings desired)
      throws CgroupIoException {
    return apply(pod, policy, tier, desired, false);
  }

  /**
   * Applies {@code desired}; with {@code keepOtherDisks}, the values held on disks {@code desired}
   * does not name are left as they are (and stay in the ledger) instead of being restored: for a
   * pass whose disks did not all resolve, where a missing disk is "unknown", not "not wanted".
   */
  public ApplyOutcome apply(
      PodTarget pod, String policy, String tier, DesiredSettings desired, boolean keepOtherDisks)
      throws CgroupIoException {
    CgroupDir dir = tree.below(pod.cgroupPath());
    LedgerEntry before = ledger.get(pod.uid()).orElse(null);
    IoSettings kept =
        keepOtherDisks && before != null ? otherDisks(before.held(), desired) : IoSettings.NONE;
    LedgerEntry wanted = withKept(entry(pod, policy, tier, desired), kept);
    if (wanted.equals(before) && holds(dir, desired)) {
      // Read, not written: a resync or an unrelated pod update costs reads only, and the
      // kernel's state is verified all the same (drift is rewritten below).
      return ApplyOutcome.unchanged(desired.skipped());
    }
    ledger.put(union(before, wanted));

    IoSettings held = before == null ? IoSettings.NONE : before.held();
    List<String> written = new ArrayList<>();
    List<CgroupIoException> failures = new ArrayList<>();
    OptionalInt weight =
        writeWeight(
            dir, WeightRange.IO_WEIGHT, desired.ioWeight(), held.ioWeight(), written, failures);
    OptionalInt bfqWeight =
        writeWeight(
            dir, WeightRange.BFQ_WEIGHT, desired.bfqWeight(), held.bfqWeight(), written, failures);

    Map<DeviceId, IoLimits> limits = new TreeMap<>(desired.limits());
    held.limits().keySet().stream()
        .filter(device -> !kept.limits().containsKey(device))
        .forEach(device -> limits.putIfAbsent(device, IoLimits.NONE));
    Map<DeviceId, IoLimits> heldLimits = new TreeMap<>(kept.limits());
    for (Map.Entry<DeviceId, IoLimits> limit : limits.entrySet()) {
      try {
        writer.writeMax(dir, Map.of(limit.getKey(), limit.getValue()));
        written.add("io.max " + new IoMaxLine(limit.getKey(), limit.getValue()).toKernelLine());
        if (!limit.getValue().isUnlimited()) {
          heldLimits.put(limit.getKey(), limit.getValue());
        }
      } catch (CgroupIoException e) {
        failures.add(e);
        // The disk's state is unknown now: keep it recorded so that a later revert restores it.
        heldLimits.put(
            limit.getKey(), held.limits().getOrDefault(limit.getKey(), limit.getValue()));
      }
    }

    Map<DeviceId, OptionalLong> latency = new TreeMap<>();
    desired
        .latencyTargetsMicros()
        .forEach((device, micros) -> latency.put(device, OptionalLong.of(micros)));
    held.latencyTargetsMicros().keySet().stream()
        .filter(device -> !kept.latencyTargetsMicros().containsKey(device))
        .forEach(device -> latency.putIfAbsent(device, OptionalLong.empty()));
    Map<DeviceId, Long> heldLatency = new TreeMap<>(kept.latencyTargetsMicros());
    for (Map.Entry<DeviceId, OptionalLong> target : latency.entrySet()) {
      try {
        writer.writeLatency(dir, Map.of(target.getKey(), target.getValue()));
        written.add(
            "io.latency "
                + target.getKey()
                + " target="
                + (target.getValue().isPresent() ? target.getValue().getAsLong() : "max"));
        target.getValue().ifPresent(micros -> heldLatency.put(target.getKey(), micros));
      } catch (CgroupIoException e) {
        failures.add(e);
        Long previous = held.latencyTargetsMicros().get(target.getKey());
        heldLatency.put(
            target.getKey(), previous != null ? previous : target.getValue().orElse(0L));
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
            new IoSettings(weight, bfqWeight, heldLimits, heldLatency)));
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

  private OptionalInt writeWeight(
      CgroupDir dir,
      WeightRange range,
      OptionalInt wanted,
      OptionalInt before,
      List<String> written,
      List<CgroupIoException> failures) {
    if (wanted.isEmpty() && before.isEmpty()) {
      return OptionalInt.empty();
    }
    int value = wanted.orElse(WeightRange.DEFAULT);
    try {
      writer.writeWeight(dir, range, value, Map.of());
      written.add(range.fileName() + " default " + value);
      return wanted;
    } catch (CgroupIoException e) {
      failures.add(e);
      return before.isPresent() ? before : wanted;
    }
  }

  private static LedgerEntry entry(
      PodTarget pod, String policy, String tier, DesiredSettings desired) {
    Map<DeviceId, IoLimits> limits = new TreeMap<>(desired.limits());
    limits.values().removeIf(IoLimits::isUnlimited);
    return new LedgerEntry(
        pod.uid(),
        pod.namespace(),
        pod.name(),
        pod.cgroupPath(),
        policy,
        tier,
        new IoSettings(
            desired.ioWeight(), desired.bfqWeight(), limits, desired.latencyTargetsMicros()));
  }

  /** The per-disk values of {@code held} on disks {@code desired} does not name. */
  private static IoSettings otherDisks(IoSettings held, DesiredSettings desired) {
    Map<DeviceId, IoLimits> limits = new TreeMap<>(held.limits());
    limits.keySet().removeAll(desired.limits().keySet());
    Map<DeviceId, Long> latency = new TreeMap<>(held.latencyTargetsMicros());
    latency.keySet().removeAll(desired.latencyTargetsMicros().keySet());
    return new IoSettings(OptionalInt.empty(), OptionalInt.empty(), limits, latency);
  }

  private static LedgerEntry withKept(LedgerEntry wanted, IoSettings kept) {
    if (kept.isEmpty()) {
      return wanted;
    }
    Map<DeviceId, IoLimits> limits = new TreeMap<>(kept.limits());
    limits.putAll(wanted.held().limits());
    Map<DeviceId, Long> latency = new TreeMap<>(kept.latencyTargetsMicros());
    latency.putAll(wanted.held().latencyTargetsMicros());
    return new LedgerEntry(
        wanted.uid(),
        wanted.namespace(),
        wanted.name(),
        wanted.cgroupPath(),
        wanted.policy(),
        wanted.tier(),
        new IoSettings(wanted.held().ioWeight(), wanted.held().bfqWeight(), limits, latency));
  }

  private static LedgerEntry union(LedgerEntry before, LedgerEntry wanted) {
    if (before == null) {
      return wanted;
    }
    IoSettings was = before.held();
    IoSettings will = wanted.held();
    Map<DeviceId, IoLimits> limits = new TreeMap<>(was.limits());
    limits.putAll(will.limits());
    Map<DeviceId, Long> latency = new TreeMap<>(was.latencyTargetsMicros());
    latency.putAll(will.latencyTargetsMicros());
    return new LedgerEntry(
        wanted.uid(),
        wanted.namespace(),
        wanted.name(),
        wanted.cgroupPath(),
        wanted.policy(),
        wanted.tier(),
        new IoSettings(
            will.ioWeight().isPresent() ? will.ioWeight() : was.ioWeight(),
            will.bfqWeight().isPresent() ? will.bfqWeight() : was.bfqWeight(),
            limits,
            latency));
  }
}
