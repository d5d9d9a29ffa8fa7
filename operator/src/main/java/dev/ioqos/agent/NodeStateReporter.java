package dev.ioqos.agent;

import dev.ioqos.api.v1alpha1.CgroupStatus;
import dev.ioqos.api.v1alpha1.DeviceStatus;
import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoNodeStateStatus;
import dev.ioqos.api.v1alpha1.KernelStatus;
import dev.ioqos.api.v1alpha1.PodCounts;
import dev.ioqos.api.v1alpha1.PodDisks;
import dev.ioqos.api.v1alpha1.PodFailure;
import dev.ioqos.api.v1alpha1.PolicyPodCounts;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.probe.DiskCapability;
import dev.ioqos.probe.NodeCapabilities;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds this node's capabilities and per-pod results into its IoNodeState and writes it only when
 * something changed: zero API writes in steady state, one object per node, never a shared one.
 */
public final class NodeStateReporter implements PodStateSink {
  private static final Logger LOG = LoggerFactory.getLogger(NodeStateReporter.class);

  /**
   * The last result for one managed pod: the policy that governs it (null when none could be
   * chosen, e.g. an invalid pod) and every policy tied with it at the top priority (empty when the
   * choice was clear), and the pod's own disks when its policy targets its volumes (null when the
   * disks are the policy's, node-wide).
   */
  public record PodResult(
      String namespace,
      String name,
      String policy,
      boolean applied,
      String reason,
      String message,
      List<String> conflictingPolicies,
      PodDisks disks) {
    public PodResult {
      conflictingPolicies =
          conflictingPolicies == null ? List.of() : List.copyOf(conflictingPolicies);
    }

    public PodResult(
        String namespace,
        String name,
        String policy,
        boolean applied,
        String reason,
        String message,
        List<String> conflictingPolicies) {
      this(namespace, name, policy, applied, reason, message, conflictingPolicies, null);
    }

    /** This result with the pod's own disks. */
    public PodResult withDisks(PodDisks podDisks) {
      return new PodResult(
          namespace, name, policy, applied, reason, message, conflictingPolicies, podDisks);
    }

    /** The result of a pod the decision governs; reason and message only for a failure. */
    public static PodResult of(
        PodFacts pod, PodDecision decision, boolean applied, String reason, String message) {
      boolean managed = decision.managed();
      return new PodResult(
          pod.namespace(),
          pod.name(),
          managed ? decision.policy().map(PolicyRules::name).orElse(null) : null,
          applied,
          reason,
          message,
          managed ? decision.conflictingPolicies() : List.of());
    }
  }

  private final KubernetesClient client;
  private final String nodeName;
  private final Clock clock;
  private final Map<String, PodResult> pods = new ConcurrentHashMap<>();
  private final Map<String, Condition> conditions = new ConcurrentHashMap<>();
  private String lastWritten;
  private IoNodeState written;

  public NodeStateReporter(KubernetesClient client, String nodeName, Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.clock = clock;
  }

  @Override
  public void record(String uid, PodResult result) {
    pods.put(uid, result);
  }

  @Override
  public void forget(String uid) {
    pods.remove(uid);
  }

  /** Sets a node condition (type, True/False, reason, message); unchanged ones keep their time. */
  public void condition(String type, boolean status, String reason, String message) {
    Condition existing = conditions.get(type);
    String value = status ? "True" : "False";
    if (existing != null
        && existing.getStatus().equals(value)
        && Objects.equals(existing.getReason(), reason)
        && Objects.equals(existing.getMessage(), message)) {
      return;
    }
    conditions.put(
        type,
        new ConditionBuilder()
            .withType(type)
            .withStatus(value)
            .withReason(reason)
            .withMessage(message)
            .withLastTransitionTime(
                clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())
            .build());
  }

  /** The status as it would be written now. */
  public IoNodeStateStatus status(NodeCapabilities caps) {
    IoNodeStateStatus status = new IoNodeStateStatus();
    CgroupStatus cgroup = new CgroupStatus();
    cgroup.setVersion(caps.cgroupVersion().toString());
    if (caps.kubepods() != null) {
      cgroup.setDriver(caps.kubepods().driver().toString());
      cgroup.setKubepodsPath(caps.kubepods().path());
    }
    cgroup.setIoControllerEnabled(caps.ioUsable());
    status.setCgroup(cgroup);
    KernelStatus kernel = new KernelStatus();
    kernel.setRelease(caps.kernelRelease());
    kernel.setPsi(caps.psi());
    kernel.setIoLatency(caps.ioLatency());
    kernel.setIocost(caps.iocostAvailable());
    status.setKernel(kernel);
    List<DeviceStatus> devices = new ArrayList<>();
    // The CRD holds at most MAX_DEVICES (a node with hundreds of rbd/nbd disks would otherwise
    // have every status write refused): the first by name, and the count of the rest.
    List<DiskCapability> disks =
        caps.devices().stream().sorted(Comparator.comparing(DiskCapability::name)).toList();
    int omitted = Math.max(0, disks.size() - IoNodeStateStatus.MAX_DEVICES);
    for (DiskCapability disk : disks.subList(0, disks.size() - omitted)) {
      DeviceStatus device = new DeviceStatus();
      device.setName(disk.name());
      device.setMajMin(disk.majMin().toString());
      device.setScheduler(disk.scheduler());
      device.setRotational(disk.rotational());
      device.setIocost(disk.iocost() ? DeviceStatus.IOCOST_ENABLED : DeviceStatus.IOCOST_DISABLED);
      device.setWeightMechanism(
          DeviceStatus.WeightMechanism.valueOf(disk.weightMechanism().name()));
      devices.add(device);
    }
    status.setDevices(devices);
    status.setDevicesOmitted(omitted == 0 ? null : omitted);
    PodCounts counts = new PodCounts();
    List<PodFailure> failures = new ArrayList<>();
    int applied = 0;
    // One snapshot for every count: pods change while the status is built (reconciler threads).
    List<PodResult> results = List.copyOf(pods.values());
    for (PodResult result : results) {
      if (result.applied()) {
        applied++;
      } else if (failures.size() < PodCounts.MAX_FAILURES) {
        failures.add(
            PodFailure.of(result.namespace(), result.name(), result.reason(), result.message()));
      }
    }
    failures.sort(Comparator.comparing(f -> f.getNamespace() + "/" + f.getName()));
    int managed = results.size();
    counts.setManaged(managed);
    counts.setApplied(applied);
    counts.setFailed(managed - applied);
    counts.setFailures(failures.isEmpty() ? null : failures);
    status.setPods(counts);
    status.setPolicies(policies(results));
    List<PodDisks> podDisks =
        results.stream()
            .map(PodResult::disks)
            .filter(Objects::nonNull)
            .sorted(Comparator.comparing(d -> d.getNamespace() + "/" + d.getName()))
            .toList();
    int podDisksOmitted = Math.max(0, podDisks.size() - IoNodeStateStatus.MAX_POD_DISKS);
    status.setPodDisks(
        podDisks.isEmpty()
            ? null
            : new ArrayList<>(podDisks.subList(0, podDisks.size() - podDisksOmitted)));
    status.setPodDisksOmitted(podDisksOmitted == 0 ? null : podDisksOmitted);
    // A kernel refusal on any pod shows on the node too, not only as that pod's Event.
    int failed = managed - applied;
    condition(
        "PodsApplied",
        failed == 0,
        failed == 0 ? "AllApplied" : "SomeFailed",
        failed == 0
            ? "every managed pod holds its tier's values"
            : failed
                + " of "
                + managed
                + " managed pods failed, first: "
                + failures.get(0).getNamespace()
                + "/"
                + failures.get(0).getName()
                + ": "
                + failures.get(0).getReason());
    List<Condition> sorted = new ArrayList<>(conditions.values());
    sorted.sort(Comparator.comparing(Condition::getType));
    status.setConditions(sorted);
    return status;
  }

  /**
   * Per policy: the pods it governs and how they fared, and the pods on which it tied with other
   * policies (listed for the winner and the losers alike, so that every tied policy can report the
   * conflict). Sorted by name, cut at {@link IoNodeStateStatus#MAX_POLICIES}; null when empty.
   */
  static List<PolicyPodCounts> policies(java.util.Collection<PodResult> results) {
    Map<String, PolicyPodCounts> byName = new TreeMap<>();
    Map<String, SortedSet<String>> tiedWith = new TreeMap<>();
    for (PodResult result : results) {
      if (result.policy() != null) {
        PolicyPodCounts counts = byName.computeIfAbsent(result.policy(), NodeStateReporter::empty);
        counts.setManaged(counts.getManaged() + 1);
        if (result.applied()) {
          counts.setApplied(counts.getApplied() + 1);
        } else {
          counts.setFailed(counts.getFailed() + 1);
        }
      }
      for (String tied : result.conflictingPolicies()) {
        PolicyPodCounts counts = byName.computeIfAbsent(tied, NodeStateReporter::empty);
        counts.setConflicts(counts.getConflicts() == null ? 1 : counts.getConflicts() + 1);
        SortedSet<String> others = tiedWith.computeIfAbsent(tied, k -> new TreeSet<>());
        for (String other : result.conflictingPolicies()) {
          if (!other.equals(tied)) {
            others.add(other);
          }
        }
      }
    }
    tiedWith.forEach(
        (name, others) ->
            byName
                .get(name)
                .setConflictingPolicies(
                    others.stream().limit(PolicyPodCounts.MAX_CONFLICTING_POLICIES).toList()));
    List<PolicyPodCounts> list =
        byName.values().stream().limit(IoNodeStateStatus.MAX_POLICIES).toList();
    return list.isEmpty() ? null : new ArrayList<>(list);
  }

  private static PolicyPodCounts empty(String name) {
    return new PolicyPodCounts(name, 0, 0, 0);
  }

  /** Writes the IoNodeState when its status differs from the last one written. */
  public synchronized void publish(NodeCapabilities caps) {
    IoNodeStateStatus status = status(caps);
    String json = Serialization.asJson(status);
    if (json.equals(lastWritten)) {
      return;
    }
    try {
      IoNodeState state = written;
      if (state == null) {
        state = client.resources(IoNodeState.class).withName(nodeName).get();
      }
      if (state == null) {
        state = new IoNodeState();
        state.getMetadata().setName(nodeName);
        Node node = client.nodes().withName(nodeName).get();
        if (node != null) {
          // Owned by the Node, so it goes when the node is deleted.
          state
              .getMetadata()
              .setOwnerReferences(
                  List.of(
                      new OwnerReferenceBuilder()
                          .withApiVersion("v1")
                          .withKind("Node")
                          .withName(nodeName)
                          .withUid(node.getMetadata().getUid())
                          .build()));
        }
        state = client.resource(state).create();
      }
      state.setStatus(status);
      // The object this agent wrote last is the one to update: no read before each write. Its
      // resourceVersion makes a concurrent change (or a deletion) fail the update, and the next
      // publish reads the object again.
      written = client.resource(state).updateStatus();
      lastWritten = json;
    } catch (KubernetesClientException e) {
      written = null;
      LOG.warn("could not write IoNodeState {}: {}", nodeName, e.getMessage());
    }
  }
}
