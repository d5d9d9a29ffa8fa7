package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupDir;
import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.VerifiedWriter;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoStatEntry;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.WeightRange;
import dev.ioqos.core.policy.QosSliceScheme;
import dev.ioqos.core.policy.QosSliceScheme.Basis;
import dev.ioqos.core.policy.QosSliceScheme.Plan;
import dev.ioqos.core.policy.QosSliceScheme.SliceTarget;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.probe.DiskCapability;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;

/**
 * The node-level step after the pod passes: sets the weights of kubelet's QoS slices ({@code
 * burstable}, {@code besteffort}) by {@link QosSliceScheme}, per weight mechanism present on the
 * node's disks (io.weight where iocost runs, io.bfq.weight where bfq runs).
 *
 * <p>It takes the pods from the cgroup tree itself, not from API objects: every pod directory under
 * kubepods and the two slices, its QoS class from where kubelet put it, its weight from its own
 * weight file (what the pod pass wrote, or the default), its activity from its io.stat on the
 * mechanism's disks (I/O since the previous run of this step; on the first run, any I/O at all).
 * Slice weights go through the {@link VerifiedWriter} (written, read back). Before the first write
 * of a slice weight its original value is recorded in the {@link SliceLedger}; it is written back
 * when the slice empties, when the mechanism goes away, and when no pod holds values of ioqos any
 * more (the pods' {@link Ledger} is empty: policy removed). A slice weight that differs from the
 * one recorded as written (kubelet or systemd re-wrote it) is repaired and reported as drift.
 */
public final class QosSliceStep {
  private final NodeEngine engine;
  private final SliceLedger slices;
  private final Ledger pods;
  private final boolean dryRun;

  /** I/O counts (rios + wios on the mechanism's disks) seen at the previous run, per pod. */
  private final Map<String, Long> lastIos = new HashMap<>();

  /**
   * @param pods the pods' ledger: while it holds no entry, no pod is managed and the slices are
   *     restored; null for a dry run that takes every pod as managed ({@code explain})
   */
  public QosSliceStep(NodeEngine engine, SliceLedger slices, Ledger pods, boolean dryRun) {
    if (pods == null && !dryRun) {
      throw new IllegalArgumentException("a slice step that writes needs the pods' ledger");
    }
    this.engine = engine;
    this.slices = slices;
    this.pods = pods;
    this.dryRun = dryRun;
  }

  /** One pod directory found under kubepods. */
  public record PodCgroup(String uid, QosClass qos, String cgroupPath) {}

  /**
   * One mechanism's pass.
   *
   * @param disks the disks of the node with this mechanism ({@code name MAJ:MIN})
   * @param pods every pod found, with its weight in the mechanism's file and its activity
   * @param originals what each slice held before ioqos (the ledger's record, else the kernel's)
   * @param found what each slice held when the step read it
   * @param plan the scheme's targets
   * @param applied what each slice holds after the step (the targets, unless refused or dry run)
   */
  public record MechanismPass(
      WeightMechanism mechanism,
      List<String> disks,
      List<QosSliceScheme.Pod> pods,
      Map<String, String> podPaths,
      Map<QosClass, String> slicePaths,
      Map<QosClass, Integer> originals,
      Map<QosClass, Integer> found,
      Plan plan,
      Map<QosClass, Integer> applied) {

    /** The pod's share with the slices as the step left them. */
    public OptionalDouble share(String uid) {
      return QosSliceScheme.share(uid, pods, applied);
    }

    /** The pod's share with the slices at their original values (no slice management). */
    public OptionalDouble shareWithout(String uid) {
      return QosSliceScheme.share(uid, pods, originals);
    }

    /** The share the pod's weight asks for: its weight over the active pods' total. */
    public OptionalDouble intendedShare(String uid) {
      return QosSliceScheme.intendedShare(uid, pods);
    }

    public Optional<QosSliceScheme.Pod> pod(String uid) {
      return pods.stream().filter(p -> p.uid().equals(uid)).findFirst();
    }
  }

  /**
   * What the step did.
   *
   * @param problem why it did nothing (kubepods not found); empty otherwise
   * @param managing true when some pod holds values of ioqos, so the slices follow the scheme
   * @param notEnforced why some or all weights cannot be enforced (no mechanism on any disk)
   * @param written kernel lines written and read back, slice path first
   * @param restored slice weights put back to their original values
   * @param drift slice weights found different from what ioqos wrote (then repaired)
   */
  public record Report(
      Optional<String> problem,
      boolean managing,
      boolean dryRun,
      List<PodCgroup> podCgroups,
      List<MechanismPass> mechanisms,
      List<String> notEnforced,
      List<String> written,
      List<String> restored,
      List<String> drift,
      List<CgroupIoException> failures) {
    public Report {
      podCgroups = List.copyOf(podCgroups);
      mechanisms = List.copyOf(mechanisms);
      notEnforced = List.copyOf(notEnforced);
      written = List.copyOf(written);
      restored = List.copyOf(restored);
      drift = List.copyOf(drift);
      failures = List.copyOf(failures);
    }

    public boolean ok() {
      return failures.isEmpty() && problem.isEmpty();
    }

    /** The pass of one mechanism, when the node has it. */
    public Optional<MechanismPass> mechanism(WeightMechanism mechanism) {
      return mechanisms.stream().filter(m -> m.mechanism() == mechanism).findFirst();
    }

    /** Each slice weight the step leaves, as {@code (slice path, file) -> weight}. */
    public Map<String, Map<String, Integer>> sliceWeights() {
      Map<String, Map<String, Integer>> weights = new LinkedHashMap<>();
      for (MechanismPass pass : mechanisms) {
        String file = pass.plan().range().map(WeightRange::fileName).orElse("");
        pass.applied()
            .forEach(
                (qos, weight) ->
                    weights
                        .computeIfAbsent(pass.slicePaths().get(qos), k -> new LinkedHashMap<>())
                        .put(file, weight));
      }
      return weights;
    }
  }

  /**
   * Whether a slice weight ioqos wrote no longer holds: one small read per recorded slice file,
   * nothing written. On a systemd node kubelet's QoS manager updates the slices' units every minute
   * and systemd re-applies their properties, which puts io.bfq.weight or io.weight back to the
   * unit's default; checked every second, the agent repairs that within a second instead of at the
   * next resync. False in a dry run and when nothing is recorded; a slice that cannot be read is
   * left to {@link #run()}, which reports it.
   */
  public boolean drifted() {
    Optional<CgroupTree> tree = engine.tree();
    if (dryRun || tree.isEmpty()) {
      return false;
    }
    for (SliceLedger.Entry entry : slices.entries()) {
      Optional<WeightRange> range = WeightRange.ofFile(entry.file());
      try {
        if (range.isPresent()
            && writer()
                    .readWeight(tree.get().below(entry.cgroupPath()), range.get())
                    .defaultWeight()
                != entry.written()) {
          return true;
        }
      } catch (CgroupIoException e) {
        // Gone or unreadable: the next run says so.
      }
    }
    return false;
  }

  /** Runs the step once. */
  public synchronized Report run() {
    Run run = new Run(dryRun);
    Optional<PodCgroupLayout> layout = engine.layout();
    Optional<CgroupTree> tree = engine.tree();
    if (layout.isEmpty() || tree.isEmpty()) {
      return run.end(Optional.of(engine.layoutProblem().orElse("kubepods was not found")), false);
    }
    boolean managing = pods == null || !pods.entries().isEmpty();
    List<PodCgroup> found = podCgroups(layout.get(), tree.get(), run);
    run.podCgroups = found;
    Map<WeightMechanism, List<DiskCapability>> byMechanism = new EnumMap<>(WeightMechanism.class);
    for (DiskCapability disk : engine.capabilities().devices()) {
      byMechanism.computeIfAbsent(disk.weightMechanism(), m -> new ArrayList<>()).add(disk);
    }
    Set<String> seenKeys = new TreeSet<>();
    for (WeightMechanism mechanism : List.of(WeightMechanism.IOCOST, WeightMechanism.BFQ)) {
      List<DiskCapability> disks = byMechanism.getOrDefault(mechanism, List.of());
      if (disks.isEmpty()) {
        // The mechanism went away (bfq switched off, iocost disabled), or never was: put back
        // what ioqos wrote into its file.
        restoreAll(QosSliceScheme.range(mechanism).get(), tree.get(), run);
        continue;
      }
      run.mechanisms.add(
          pass(mechanism, disks, layout.get(), tree.get(), found, managing, run, seenKeys));
    }
    if (run.mechanisms.isEmpty()) {
      run.notEnforced.add(
          QosSliceScheme.plan(WeightMechanism.NONE, List.of(), Map.of()).notEnforced().get());
    }
    lastIos.keySet().retainAll(seenKeys);
    return run.end(Optional.empty(), managing);
  }

  private MechanismPass pass(
      WeightMechanism mechanism,
      List<DiskCapability> disks,
      PodCgroupLayout layout,
      CgroupTree tree,
      List<PodCgroup> found,
      boolean managing,
      Run run,
      Set<String> seenKeys) {
    WeightRange range = QosSliceScheme.range(mechanism).get();
    Set<DeviceId> ids = new TreeSet<>();
    List<String> diskNames = new ArrayList<>();
    disks.forEach(
        disk -> {
          ids.add(disk.majMin());
          diskNames.add(disk.name() + " " + disk.majMin());
        });
    VerifiedWriter writer = engine.writer();
    List<QosSliceScheme.Pod> schemePods = new ArrayList<>();
    Map<String, String> podPaths = new LinkedHashMap<>();
    for (PodCgroup pod : found) {
      try {
        CgroupDir dir = tree.below(pod.cgroupPath());
        int weight = writer.readWeight(dir, range).defaultWeight();
        String key = mechanism + " " + pod.uid();
        seenKeys.add(key);
        long ios = ios(dir, ids, writer);
        Long before = lastIos.put(key, ios);
        boolean active = before == null ? ios > 0 : ios > before;
        schemePods.add(new QosSliceScheme.Pod(pod.uid(), pod.qos(), weight, active));
        podPaths.put(pod.uid(), pod.cgroupPath());
      } catch (CgroupIoException e) {
        if (e.failure() != CgroupFailure.CGROUP_GONE) {
          run.failures.add(e);
        }
      }
    }
    Map<QosClass, String> slicePaths = new EnumMap<>(QosClass.class);
    Map<QosClass, Integer> originals = new EnumMap<>(QosClass.class);
    Map<QosClass, Integer> held = new EnumMap<>(QosClass.class);
    Map<QosClass, CgroupDir> dirs = new EnumMap<>(QosClass.class);
    for (QosClass slice : QosSliceScheme.SLICES) {
      String path = layout.qosPath(slice);
      slicePaths.put(slice, path);
      try {
        CgroupDir dir = tree.below(path);
        dirs.put(slice, dir);
        int now = writer.readWeight(dir, range).defaultWeight();
        held.put(slice, now);
        originals.put(slice, slices.get(path, range).map(SliceLedger.Entry::original).orElse(now));
      } catch (CgroupIoException e) {
        if (e.failure() != CgroupFailure.CGROUP_GONE) {
          run.failures.add(e);
        }
      }
    }
    Plan plan = QosSliceScheme.plan(mechanism, schemePods, originals);
    Map<QosClass, Integer> applied = new EnumMap<>(held);
    for (SliceTarget target : plan.slices()) {
      CgroupDir dir = dirs.get(target.slice());
      if (dir == null) {
        continue; // kubelet has not made this slice (no pod of the class yet)
      }
      String path = slicePaths.get(target.slice());
      Optional<SliceLedger.Entry> recorded = slices.get(path, range);
      int now = held.get(target.slice());
      if (!managing || target.basis() == Basis.ORIGINAL) {
        recorded.ifPresent(entry -> restore(dir, range, entry, now, run, applied, target.slice()));
        continue;
      }
      if (recorded.isPresent() && recorded.get().written() != now) {
        run.drift.add(
            path
                + " "
                + range.fileName()
                + " held default "
                + now
                + ", ioqos had written default "
                + recorded.get().written());
      }
      if (now == target.weight() && recorded.isPresent() && recorded.get().written() == now) {
        continue;
      }
      if (dryRun) {
        applied.put(target.slice(), target.weight());
        continue;
      }
      // Recorded first: a crash after the write still knows the value to restore.
      int original = recorded.map(SliceLedger.Entry::original).orElse(now);
      slices.put(new SliceLedger.Entry(path, range.fileName(), original, now));
      try {
        writer.writeWeight(dir, range, target.weight(), Map.of());
        slices.put(new SliceLedger.Entry(path, range.fileName(), original, target.weight()));
        run.written.add(path + " " + range.fileName() + " default " + target.weight());
        applied.put(target.slice(), target.weight());
      } catch (CgroupIoException e) {
        run.failures.add(e);
      }
    }
    if (!plan.exact()) {
      run.notEnforced.add(
          range.fileName()
              + ": the pods' weights exceed the file's range; exact shares would need the"
              + " Guaranteed pods' weights scaled too ("
              + plan.guaranteedTargets()
              + "), which the pod pass owns: shares are approximate");
    }
    return new MechanismPass(
        mechanism, diskNames, schemePods, podPaths, slicePaths, originals, held, plan, applied);
  }

  private void restore(
      CgroupDir dir,
      WeightRange range,
      SliceLedger.Entry entry,
      int now,
      Run run,
      Map<QosClass, Integer> applied,
      QosClass slice) {
    if (dryRun) {
      applied.put(slice, entry.original());
      return;
    }
    try {
      if (now != entry.original()) {
        writer().writeWeight(dir, range, entry.original(), Map.of());
        run.restored.add(
            entry.cgroupPath() + " " + range.fileName() + " default " + entry.original());
      }
      slices.remove(entry.cgroupPath(), entry.file());
      applied.put(slice, entry.original());
    } catch (CgroupIoException e) {
      run.failures.add(e);
    }
  }

  private void restoreAll(WeightRange range, CgroupTree tree, Run run) {
    for (SliceLedger.Entry entry : slices.entries()) {
      if (!entry.file().equals(range.fileName()) || dryRun) {
        continue;
      }
      try {
        CgroupDir dir = tree.below(entry.cgroupPath());
        int now = writer().readWeight(dir, range).defaultWeight();
        restore(dir, range, entry, now, run, new EnumMap<>(QosClass.class), QosClass.BURSTABLE);
      } catch (CgroupIoException e) {
        if (e.failure() == CgroupFailure.CGROUP_GONE) {
          slices.remove(entry.cgroupPath(), entry.file());
        } else {
          run.failures.add(e);
        }
      }
    }
  }

  private VerifiedWriter writer() {
    return engine.writer();
  }

  /** Reads + writes completed on the given disks, from the pod's io.stat. */
  private static long ios(CgroupDir dir, Set<DeviceId> disks, VerifiedWriter writer)
      throws CgroupIoException {
    long total = 0;
    for (IoStatEntry entry : writer.readStat(dir).values()) {
      if (disks.contains(entry.device())) {
        total += entry.rios() + entry.wios();
      }
    }
    return total;
  }

  /** Every pod directory: Guaranteed ones directly under kubepods, the others in their slice. */
  private static List<PodCgroup> podCgroups(PodCgroupLayout layout, CgroupTree tree, Run run) {
    List<PodCgroup> found = new ArrayList<>();
    for (QosClass qos : QosClass.values()) {
      String parent = layout.qosPath(qos);
      List<String> children;
      try {
        children = tree.childDirectories(parent);
      } catch (CgroupIoException e) {
        if (e.failure() != CgroupFailure.CGROUP_GONE) {
          run.failures.add(e);
        }
        continue;
      }
      for (String child : children) {
        Optional<PodUid> uid = layout.podUidOf(qos, child);
        uid.ifPresent(u -> found.add(new PodCgroup(u.value(), qos, parent + "/" + child)));
      }
    }
    return found;
  }

  /** The report while the step fills it in. */
  private static final class Run {
    List<PodCgroup> podCgroups = List.of();
    final List<MechanismPass> mechanisms = new ArrayList<>();
    final List<String> notEnforced = new ArrayList<>();
    final List<String> written = new ArrayList<>();
    final List<String> restored = new ArrayList<>();
    final List<String> drift = new ArrayList<>();
    final List<CgroupIoException> failures = new ArrayList<>();
    final boolean dryRun;

    Run(boolean dryRun) {
      this.dryRun = dryRun;
    }

    Report end(Optional<String> problem, boolean managing) {
      return new Report(
          problem,
          managing,
          dryRun,
          podCgroups,
          mechanisms,
          notEnforced,
          written,
          restored,
          drift,
          failures);
    }
  }
}
