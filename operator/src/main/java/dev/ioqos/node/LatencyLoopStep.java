package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupDir;
import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoMaxLine;
import dev.ioqos.core.IoStatEntry;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.LatencyLoop;
import dev.ioqos.core.policy.LatencyLoop.Counters;
import dev.ioqos.core.policy.LatencyLoop.DiskCounters;
import dev.ioqos.core.policy.LatencyLoop.PodSample;
import dev.ioqos.core.policy.PodDecision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-level latency loop beside the pod pass, for kernels without io.latency: one {@link
 * LatencyLoop} per disk that a protected pod (a tier with a {@code latencyTarget}) uses. Its
 * members come from the pod pass's outcomes ({@link #update}); each {@link #tick} reads the disks'
 * {@code stat} and the members' io.stat, runs the controllers and writes the lower-tier pods'
 * io.max through the verified writer. Every dynamic cap is recorded in the {@link LoopLedger}
 * before it is written; {@link #restoreRecorded} (at start) and {@link #restoreAll} (at stop) put
 * the static values back, so a restart or a crash never leaves a pod below its tier's values.
 */
public final class LatencyLoopStep {

  /** A pod the loop knows, from its last pod pass. */
  public record Member(
      String uid,
      String namespace,
      String name,
      String cgroupPath,
      String policy,
      int rank,
      OptionalLong latencyTargetMicros,
      Map<DeviceId, IoLimits> staticLimits,
      List<DiskFacts> disks,
      boolean dryRun) {}

  /** One disk's period: the controller's answer and what was written. */
  public record DiskReport(
      DiskFacts disk,
      LatencyLoop.Result result,
      List<String> written,
      List<CgroupIoException> failures) {}

  /** A pod whose throttling started or stopped in a tick (for Events). */
  public record Transition(Member pod, boolean throttled, String line) {
    /** The Event for the pod's owner. */
    public PodEvent event() {
      String would = pod.dryRun() ? "dry run, nothing written: io.max would be " : "io.max ";
      return throttled
          ? PodEvent.normal(
              PodEvent.Reason.LATENCY_THROTTLED,
              would
                  + "lowered on disk "
                  + line.split(" ", 2)[0]
                  + " to protect the latency target of a higher tier of policy "
                  + pod.policy())
          : PodEvent.normal(
              PodEvent.Reason.LATENCY_RELEASED,
              "io.max on disk " + line.split(" ", 2)[0] + " back to its tier's static values");
    }
  }

  /** One tick over every disk. */
  public record Report(List<DiskReport> disks, List<Transition> transitions, long kernelNanos) {}

  private static final Logger LOG = LoggerFactory.getLogger(LatencyLoopStep.class);

  private final NodeEngine engine;
  private final LoopLedger record;
  private final boolean dryRun;
  private final LatencyLoop.Parameters parameters;
  private final Map<String, Member> members = new LinkedHashMap<>();
  private final Map<DeviceId, LatencyLoop> loops = new TreeMap<>();
  private final Map<DeviceId, long[]> lastDisk = new HashMap<>();
  private final Map<String, Counters> lastPod = new HashMap<>();

  /** Resolved (and checked) pod directories: a period reads, it does not walk the path again. */
  private final Map<String, CgroupDir> dirs = new HashMap<>();

  /** Pods (uid and disk) whose throttling start was reported and whose end was not yet. */
  private final java.util.Set<String> announced = new java.util.HashSet<>();

  private long lastTickNanos;

  /** False until a previous run's recorded caps were restored (kubepods may appear later). */
  private boolean leftoversRestored;

  private volatile Report last = new Report(List.of(), List.of(), 0);

  public LatencyLoopStep(
      NodeEngine engine, LoopLedger record, boolean dryRun, LatencyLoop.Parameters parameters) {
    this.engine = engine;
    this.record = record;
    this.dryRun = dryRun;
    this.parameters = parameters;
  }

  /** True where the loop replaces io.latency: the kernel lacks it. */
  public boolean needed() {
    return !engine.kernelFacts().ioLatency();
  }

  /** Takes a pod pass's outcome: the pod joins, changes or leaves the loop. */
  public synchronized void update(PodOutcome outcome) {
    String uid = outcome.pod().uid();
    Optional<Member> member = member(outcome);
    if (member.isPresent()) {
      members.put(uid, member.get());
    } else if (members.remove(uid) != null || hasRecord(uid)) {
      loops.values().forEach(loop -> loop.forget(uid));
      announced.removeIf(key -> key.startsWith(uid + " "));
      // A pod no policy manages any more gets the kernel's default (no cap): the pod pass's revert
      // restores only what its own ledger holds, and a tier without limits holds no io.max there.
      boolean managed = outcome.decision().map(PodDecision::managed).orElse(false);
      restore(uid, !managed);
    }
  }

  /** Forgets a pod that is gone (its cgroup too): nothing to restore. */
  public synchronized void remove(String uid) {
    Member gone = members.remove(uid);
    if (gone != null) {
      dirs.remove(gone.cgroupPath());
    }
    loops.values().forEach(loop -> loop.forget(uid));
    announced.removeIf(key -> key.startsWith(uid + " "));
    for (LoopLedger.Entry entry : record.entries()) {
      if (entry.uid().equals(uid)) {
        record.remove(entry);
      }
    }
  }

  private static Optional<Member> member(PodOutcome outcome) {
    if (outcome.decision().isEmpty()
        || outcome.cgroupPath().isEmpty()
        || outcome.desired().isEmpty()
        || outcome.disks().isEmpty()) {
      return Optional.empty();
    }
    boolean dryRun = outcome.kind() == PodOutcome.Kind.DRY_RUN;
    if (!dryRun
        && outcome.kind() != PodOutcome.Kind.APPLIED
        && outcome.kind() != PodOutcome.Kind.UNCHANGED) {
      return Optional.empty();
    }
    PodDecision decision = outcome.decision().get();
    if (!decision.managed()) {
      return Optional.empty();
    }
    String tier = decision.tier().get().name();
    int rank = decision.policy().get().tierNames().indexOf(tier);
    return Optional.of(
        new Member(
            outcome.pod().uid(),
            outcome.pod().namespace(),
            outcome.pod().name(),
            outcome.cgroupPath().get(),
            decision.policy().get().name(),
            rank,
            decision.tier().get().latencyTargetMicros(),
            outcome.desired().get().limits(),
            outcome.disks().get().disks(),
            dryRun));
  }

  /** The members now, for reports. */
  public synchronized List<Member> members() {
    return List.copyOf(members.values());
  }

  /** The disks where a protected pod is a member: where the loop runs. */
  public synchronized List<DiskFacts> protectedDisks() {
    Map<DeviceId, DiskFacts> disks = new TreeMap<>();
    for (Member m : members.values()) {
      if (m.latencyTargetMicros().isPresent()) {
        m.disks().forEach(d -> disks.put(d.id(), d));
      }
    }
    return List.copyOf(disks.values());
  }

  public Report last() {
    return last;
  }

  /** One period over every disk with a protected member. */
  public synchronized Report tick() {
    long now = System.nanoTime();
    double seconds = lastTickNanos == 0 ? 0 : (now - lastTickNanos) / 1e9;
    lastTickNanos = now;
    List<DiskReport> reports = new ArrayList<>();
    List<Transition> transitions = new ArrayList<>();
    Optional<CgroupTree> tree = engine.tree();
    if (tree.isPresent() && !leftoversRestored) {
      restoreRecorded(); // kubepods was missing at start: a previous run's caps go back now
    }
    if (!needed() || tree.isEmpty()) {
      last = new Report(reports, transitions, 0);
      return last;
    }
    for (DiskFacts disk : protectedDisks()) {
      Map<String, CgroupDir> podDirs = new LinkedHashMap<>();
      List<PodSample> samples = new ArrayList<>();
      List<CgroupIoException> failures = new ArrayList<>();
      List<Member> onDisk =
          members.values().stream()
              .filter(m -> m.disks().stream().anyMatch(d -> d.id().equals(disk.id())))
              .toList();
      for (Member m : onDisk) {
        if (m.latencyTargetMicros().isPresent()) {
          sample(m, disk, tree.get(), podDirs, failures).ifPresent(samples::add);
        }
      }
      LatencyLoop current = loops.get(disk.id());
      boolean quiet =
          samples.stream().allMatch(p -> p.delta().rios() + p.delta().wios() == 0)
              && (current == null || current.throttled().isEmpty());
      if (quiet) {
        // Nothing to protect and nobody held: the protected pods' io.stat is all a period reads.
        // The others' counters start afresh when a protected pod wakes up.
        for (Member m : onDisk) {
          if (m.latencyTargetMicros().isEmpty()) {
            lastPod.remove(m.uid() + " " + disk.id());
          }
        }
        lastDisk.remove(disk.id());
        continue;
      }
      Optional<DiskCounters> diskDelta = diskDelta(disk);
      for (Member m : onDisk) {
        if (m.latencyTargetMicros().isEmpty()) {
          sample(m, disk, tree.get(), podDirs, failures).ifPresent(samples::add);
        }
      }
      if (diskDelta.isEmpty() || seconds <= 0) {
        continue; // the first sample: deltas from the next period on
      }
      LatencyLoop loop = loops.computeIfAbsent(disk.id(), id -> new LatencyLoop(parameters));
      LatencyLoop.Result result = loop.step(seconds, diskDelta.get(), samples);
      List<String> written = new ArrayList<>();
      for (Map.Entry<String, IoLimits> change : result.changed().entrySet()) {
        Member m = members.get(change.getKey());
        IoLimits staticLimits = m.staticLimits().getOrDefault(disk.id(), IoLimits.NONE);
        boolean throttled = loop.throttled().containsKey(m.uid());
        String line = new IoMaxLine(disk.id(), change.getValue()).toKernelLine();
        LoopLedger.Entry entry =
            new LoopLedger.Entry(
                m.uid(),
                m.cgroupPath(),
                new IoMaxLine(disk.id(), staticLimits).toKernelLine(),
                line);
        boolean wasThrottled = announced.contains(m.uid() + " " + disk.id());
        if (!(dryRun || m.dryRun())) {
          try {
            if (throttled) {
              record.put(entry); // recorded first: a crash after the write still restores
            }
            engine.writer().writeMax(podDirs.get(m.uid()), Map.of(disk.id(), change.getValue()));
            if (!throttled) {
              record.remove(entry);
            }
            written.add(m.cgroupPath() + " io.max " + line);
          } catch (CgroupIoException e) {
            if (e.failure() == CgroupFailure.CGROUP_GONE) {
              record.remove(entry);
            } else {
              failures.add(e);
            }
            continue;
          } catch (LedgerWriteException e) {
            // Not recorded, so not written (a throttle), or written and still recorded (a
            // release): either way the record covers the cgroup; the next period tries again.
            LOG.warn("latency loop: {} not changed: {}", m.cgroupPath(), e.getMessage());
            continue;
          }
        }
        if (throttled != wasThrottled) {
          if (throttled) {
            announced.add(m.uid() + " " + disk.id());
          } else {
            announced.remove(m.uid() + " " + disk.id());
          }
          transitions.add(new Transition(m, throttled, line));
        }
      }
      reports.add(new DiskReport(disk, result, written, failures));
    }
    last = new Report(reports, transitions, System.nanoTime() - now);
    return last;
  }

  /** One member's io.stat deltas on the disk since the previous read. */
  private Optional<PodSample> sample(
      Member m,
      DiskFacts disk,
      CgroupTree tree,
      Map<String, CgroupDir> podDirs,
      List<CgroupIoException> failures) {
    try {
      CgroupDir dir = dirs.get(m.cgroupPath());
      if (dir == null) {
        dir = tree.below(m.cgroupPath());
        dirs.put(m.cgroupPath(), dir);
      }
      IoStatEntry stat;
      try {
        stat = engine.writer().readStat(dir).getOrDefault(disk.id(), IoStatEntry.idle(disk.id()));
      } catch (CgroupIoException e) {
        dirs.remove(m.cgroupPath()); // gone, or replaced: resolved afresh next period
        throw e;
      }
      Counters total = new Counters(stat.rbytes(), stat.wbytes(), stat.rios(), stat.wios());
      Counters before = lastPod.put(m.uid() + " " + disk.id(), total);
      Counters delta =
          before == null
              ? Counters.ZERO
              : new Counters(
                  Math.max(0, total.rbytes() - before.rbytes()),
                  Math.max(0, total.wbytes() - before.wbytes()),
                  Math.max(0, total.rios() - before.rios()),
                  Math.max(0, total.wios() - before.wios()));
      podDirs.put(m.uid(), dir);
      return Optional.of(
          new PodSample(
              m.uid(),
              m.policy(),
              m.rank(),
              m.latencyTargetMicros(),
              m.staticLimits().getOrDefault(disk.id(), IoLimits.NONE),
              delta));
    } catch (CgroupIoException e) {
      if (e.failure() != CgroupFailure.CGROUP_GONE) {
        failures.add(e);
      }
      return Optional.empty();
    }
  }

  /** At start: every cap a previous run left recorded goes back to its tier's static line. */
  public synchronized List<String> restoreRecorded() {
    List<String> restored = new ArrayList<>();
    leftoversRestored = engine.tree().isPresent();
    for (LoopLedger.Entry entry : record.entries()) {
      restoreEntry(entry).ifPresent(restored::add);
    }
    return restored;
  }

  /** At stop: every pod the loop holds goes back to its static values. */
  public synchronized List<String> restoreAll() {
    List<String> restored = restoreRecorded();
    loops.clear();
    return restored;
  }

  private boolean hasRecord(String uid) {
    return record.entries().stream().anyMatch(e -> e.uid().equals(uid));
  }

  private void restore(String uid, boolean toDefault) {
    for (LoopLedger.Entry entry : record.entries()) {
      if (entry.uid().equals(uid)) {
        restoreEntry(entry, toDefault);
      }
    }
  }

  private Optional<String> restoreEntry(LoopLedger.Entry entry) {
    return restoreEntry(entry, false);
  }

  private Optional<String> restoreEntry(LoopLedger.Entry entry, boolean toDefault) {
    if (dryRun) {
      return Optional.empty();
    }
    Optional<CgroupTree> tree = engine.tree();
    if (tree.isEmpty()) {
      return Optional.empty();
    }
    IoMaxLine recorded = IoMaxLine.parse(entry.staticLine());
    IoMaxLine line = toDefault ? new IoMaxLine(recorded.device(), IoLimits.NONE) : recorded;
    try {
      CgroupDir dir = tree.get().below(entry.cgroupPath());
      engine.writer().writeMax(dir, Map.of(line.device(), line.limits()));
      record.remove(entry);
      return Optional.of(entry.cgroupPath() + " io.max " + line.toKernelLine());
    } catch (CgroupIoException e) {
      if (e.failure() == CgroupFailure.CGROUP_GONE) {
        record.remove(entry);
      }
      return Optional.empty();
    }
  }

  /** The disk's counters since the previous tick; empty on the first read or when unreadable. */
  private Optional<DiskCounters> diskDelta(DiskFacts disk) {
    Path stat = engine.config().sysfs().resolve("block").resolve(disk.name()).resolve("stat");
    long[] now;
    try {
      String[] fields = Files.readString(stat).trim().split("\\s+");
      now =
          new long[] {
            Long.parseLong(fields[0]),
            Long.parseLong(fields[3]),
            Long.parseLong(fields[4]),
            Long.parseLong(fields[7])
          };
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    long[] before = lastDisk.put(disk.id(), now);
    if (before == null) {
      return Optional.empty();
    }
    return Optional.of(
        new DiskCounters(
            now[0] - before[0], now[1] - before[1], now[2] - before[2], now[3] - before[3]));
  }
}
