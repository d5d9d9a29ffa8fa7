package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupFiles;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cgroup.DriverDetection;
import dev.ioqos.cgroup.VerifiedWriter;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.policy.DeviceSelectorRule;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.KernelFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.device.DeviceResolutionException;
import dev.ioqos.device.Disk;
import dev.ioqos.device.DiskResolver;
import dev.ioqos.device.MountTable;
import dev.ioqos.probe.CapabilityProbe;
import dev.ioqos.probe.DiskCapability;
import dev.ioqos.probe.NodeCapabilities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node side of the agent: kubelet's cgroup layout, the capability probe, disk resolution and
 * the guarded writer, built from one {@link NodeConfig}. Probes once and again on {@link
 * #refresh()}; never throws for node-only problems, it reports them.
 */
public final class NodeEngine {
  private final NodeConfig config;
  private final CapabilityProbe probe;
  private final DiskResolver disks;
  private final PodVolumeResolver volumeResolver;
  private final VerifiedWriter writer = new VerifiedWriter(new CgroupFiles());
  private volatile Optional<PodCgroupLayout> layout = Optional.empty();
  private volatile Optional<String> layoutProblem = Optional.of("not probed yet");
  private volatile NodeCapabilities capabilities;

  /**
   * Device selections by selector list, until the next {@link #refresh()}: resolving reads and
   * parses the host's mount table (hundreds of lines on a busy node) and walks sysfs, which every
   * pod of a policy would otherwise repeat. Which disk backs a path changes rarely; a change is
   * seen at the next refresh (each resync).
   */
  private final Map<List<DeviceSelectorRule>, DiskSelection> resolved = new ConcurrentHashMap<>();

  public NodeEngine(NodeConfig config) {
    this.config = config;
    this.probe = new CapabilityProbe(config.cgroupfs(), config.sysfs(), config.procfs());
    this.disks = new DiskResolver(config.procfs(), config.sysfs(), config.devfs());
    this.volumeResolver = new PodVolumeResolver(disks, config.kubeletRootDir(), this::facts);
    refresh();
  }

  /** Probes the node again (kubepods may appear after start, disks and schedulers change). */
  public synchronized NodeCapabilities refresh() {
    try {
      layout =
          Optional.of(
              DriverDetection.layout(
                  config.cgroupfs(), config.cgroupDriver(), config.kubeletCgroupRoot()));
      layoutProblem = Optional.empty();
    } catch (IllegalStateException | IllegalArgumentException e) {
      layout = Optional.empty();
      layoutProblem = Optional.of(e.getMessage());
    }
    capabilities = probe.probe(layout);
    resolved.clear();
    return capabilities;
  }

  public NodeConfig config() {
    return config;
  }

  public NodeCapabilities capabilities() {
    return capabilities;
  }

  public Optional<PodCgroupLayout> layout() {
    return layout;
  }

  /** Why there is no layout; empty when there is one. */
  public Optional<String> layoutProblem() {
    return layoutProblem;
  }

  public VerifiedWriter writer() {
    return writer;
  }

  /** The guarded tree below kubepods, when kubepods was found. */
  public Optional<CgroupTree> tree() {
    return layout.map(l -> new CgroupTree(config.cgroupfs(), l.kubepodsPath()));
  }

  /** The pod's cgroup path relative to the mount; the UID is validated first. */
  public Optional<String> podPath(PodFacts pod) {
    PodUid uid = PodUid.of(pod.cgroupUid());
    return layout.map(l -> l.podPath(pod.qosClass(), uid));
  }

  public KernelFacts kernelFacts() {
    NodeCapabilities caps = capabilities;
    return new KernelFacts(caps.ioLatency(), caps.ioUsable());
  }

  /**
   * Resolves device selectors to whole disks for one pod: node-wide selectors through the cache,
   * {@code podVolumes} afresh from the mount table on every call (a volume attached after the pod
   * started, or a disk gone, is followed at the next pass). Volumes that cannot resolve become
   * problems naming the volume.
   */
  public DiskSelection resolve(List<DeviceSelectorRule> selectors, PodFacts pod) {
    List<DeviceSelectorRule> nodeWide =
        selectors.stream().filter(s -> !(s instanceof DeviceSelectorRule.PodVolumes)).toList();
    List<DeviceSelectorRule.PodVolumes> perPod =
        selectors.stream()
            .filter(DeviceSelectorRule.PodVolumes.class::isInstance)
            .map(DeviceSelectorRule.PodVolumes.class::cast)
            .toList();
    if (perPod.isEmpty()) {
      return resolve(selectors);
    }
    Map<String, DiskFacts> found = new LinkedHashMap<>();
    List<DiskProblem> problems = new ArrayList<>();
    if (!nodeWide.isEmpty()) {
      DiskSelection base = resolve(nodeWide);
      base.disks().forEach(d -> found.putIfAbsent(d.id().toString(), d));
      problems.addAll(base.problems());
    }
    List<VolumeDecision> volumes = new ArrayList<>();
    MountTable table;
    try {
      table = disks.readMountTable();
    } catch (DeviceResolutionException e) {
      perPod.forEach(rule -> problems.add(new DiskProblem(rule, e.getMessage())));
      return new DiskSelection(new ArrayList<>(found.values()), problems, volumes, true);
    }
    for (DeviceSelectorRule.PodVolumes rule : perPod) {
      for (VolumeDecision decision : volumeResolver.resolve(pod, rule, table)) {
        if (volumes.stream().noneMatch(v -> v.volume().equals(decision.volume()))) {
          volumes.add(decision);
        }
        decision.disks().forEach(d -> found.putIfAbsent(d.id().toString(), d));
        if (decision.problem()) {
          problems.add(
              new DiskProblem(
                  rule,
                  "pod volume "
                      + decision.volume()
                      + " ("
                      + decision.kind()
                      + "): "
                      + decision.note()));
        }
      }
    }
    return new DiskSelection(new ArrayList<>(found.values()), problems, volumes, true);
  }

  /** Resolves device selectors to whole disks; selectors that cannot resolve become problems. */
  public DiskSelection resolve(List<DeviceSelectorRule> selectors) {
    List<DeviceSelectorRule> key = List.copyOf(selectors);
    DiskSelection known = resolved.get(key);
    if (known != null) {
      return known;
    }
    DiskSelection fresh = resolveNow(key);
    if (fresh.problems().isEmpty()) {
      // Failures are not kept: a disk that appears is used at the next pod event.
      resolved.put(key, fresh);
    }
    return fresh;
  }

  private DiskSelection resolveNow(List<DeviceSelectorRule> selectors) {
    Map<String, DiskFacts> found = new LinkedHashMap<>();
    List<DiskProblem> problems = new ArrayList<>();
    List<DeviceSelectorRule> effective =
        selectors.isEmpty() ? List.of(new DeviceSelectorRule.KubeletRoot()) : selectors;
    for (DeviceSelectorRule selector : effective) {
      try {
        for (Disk disk : resolveOne(selector)) {
          found.putIfAbsent(disk.id().toString(), facts(disk));
        }
      } catch (DeviceResolutionException e) {
        problems.add(new DiskProblem(selector, e.getMessage()));
      }
    }
    return new DiskSelection(new ArrayList<>(found.values()), problems);
  }

  private List<Disk> resolveOne(DeviceSelectorRule selector) throws DeviceResolutionException {
    if (selector instanceof DeviceSelectorRule.HostPath) {
      return disks.forPath(((DeviceSelectorRule.HostPath) selector).path());
    }
    if (selector instanceof DeviceSelectorRule.PodVolumes) {
      // Per pod: resolve(selectors, pod) handles these; without a pod there is nothing to find.
      return List.of();
    }
    if (selector instanceof DeviceSelectorRule.DeviceName) {
      return disks.forDeviceName(((DeviceSelectorRule.DeviceName) selector).nameOrGlob());
    }
    return disks.forPath(config.kubeletRootDir());
  }

  private DiskFacts facts(Disk disk) {
    for (DiskCapability capability : capabilities.devices()) {
      if (capability.majMin().equals(disk.id())) {
        return new DiskFacts(
            disk.id(), disk.name(), capability.scheduler(), capability.weightMechanism());
      }
    }
    // A disk the probe did not list (e.g. a loop device): nothing enforces weights on it.
    return new DiskFacts(disk.id(), disk.name(), "none", WeightMechanism.NONE);
  }
}
