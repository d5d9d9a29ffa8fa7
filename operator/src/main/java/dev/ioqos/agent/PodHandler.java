package dev.ioqos.agent;

import dev.ioqos.api.v1alpha1.PodDisks;
import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.metrics.ApplyMetrics;
import dev.ioqos.metrics.TierState;
import dev.ioqos.node.DiskSelection;
import dev.ioqos.node.LatencyLoopStep;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.LedgerWriteException;
import dev.ioqos.node.PodOutcome;
import dev.ioqos.node.PodOutcome.Kind;
import dev.ioqos.node.PodPass;
import dev.ioqos.node.PodTarget;
import dev.ioqos.node.UnknownFact;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's handling of one pod: runs the {@link PodPass} and hands its outcome to the reporters
 * (Events, node state, metrics). Returns when to look again, if sooner than the periodic resync: a
 * pod whose cgroup does not exist yet is retried with backoff.
 */
public final class PodHandler {
  private static final Logger LOG = LoggerFactory.getLogger(PodHandler.class);

  private final PodPass pass;
  private final Ledger ledger;
  private final PodEventSink events;
  private final PodStateSink nodeState;
  private final PodMetricsSink metrics;
  private final Backoff backoff;
  private final LatencyLoopStep loop;

  public PodHandler(
      PodPass pass,
      Ledger ledger,
      PodEventSink events,
      PodStateSink nodeState,
      PodMetricsSink metrics,
      Backoff backoff) {
    this(pass, ledger, events, nodeState, metrics, backoff, null);
  }

  /**
   * @param loop the latency loop that takes each outcome (its members); null without one
   */
  public PodHandler(
      PodPass pass,
      Ledger ledger,
      PodEventSink events,
      PodStateSink nodeState,
      PodMetricsSink metrics,
      Backoff backoff,
      LatencyLoopStep loop) {
    this.loop = loop;
    this.pass = pass;
    this.ledger = ledger;
    this.events = events;
    this.nodeState = nodeState;
    this.metrics = metrics;
    this.backoff = backoff;
  }

  /** Handles one pod; the result says when to retry early, if at all. */
  public Optional<Duration> handle(PodFacts pod, NodeFacts node, Collection<PolicyRules> policies) {
    return handle(pod, node, policies, Set.of());
  }

  /**
   * Handles one pod whose facts may be incomplete ({@code unknown}): a pass that depends on them
   * keeps what the cgroup holds and leaves the pod's state and metrics as they were.
   */
  public Optional<Duration> handle(
      PodFacts pod, NodeFacts node, Collection<PolicyRules> policies, Set<UnknownFact> unknown) {
    PodOutcome outcome = pass.run(pod, node, policies, unknown);
    if (loop != null && outcome.kind() != Kind.FACTS_UNKNOWN) {
      // Unknown facts keep what the pod holds: its place in the latency loop too.
      loop.update(outcome);
    }
    PodTarget target = new PodTarget(pod, outcome.cgroupPath().orElse(""));
    outcome
        .kernelTime()
        .ifPresent(took -> metrics.kernelCall(operation(outcome), result(outcome), took));
    if (outcome.kind() == Kind.FACTS_UNKNOWN) {
      LOG.warn("pod {}: {}", target.qualifiedName(), outcome.problem());
    } else if (outcome.kind() == Kind.LEDGER_FAILED && !outcome.managed()) {
      // A revert the ledger could not record: the pod keeps its series until it is done.
      LOG.warn("pod {}: {}", target.qualifiedName(), outcome.problem());
    } else if (outcome.kind() != Kind.INVALID_POD && !outcome.managed()) {
      nodeState.forget(pod.uid());
      metrics.forget(pod.uid());
    } else {
      recordManaged(outcome, target);
    }
    // Events last: posting one is a round trip to the API server, and the node's own state and
    // metrics should say what the kernel holds as soon as it holds it.
    outcome.events().forEach(event -> events.post(target, event));
    if (outcome.retry()) {
      Duration retry = backoff.next(pod.uid());
      if (outcome.kind() == Kind.CGROUP_MISSING) {
        LOG.debug(
            "pod {}: cgroup {} not there yet, retrying in {}",
            target.qualifiedName(),
            target.cgroupPath(),
            retry);
      }
      return Optional.of(retry);
    }
    backoff.reset(pod.uid());
    return Optional.empty();
  }

  private void recordManaged(PodOutcome outcome, PodTarget target) {
    switch (outcome.kind()) {
      case APPLIED, UNCHANGED, DRY_RUN -> {
        tierMetrics(
            outcome,
            target,
            outcome.kind() == Kind.DRY_RUN ? TierState.DRY_RUN : TierState.APPLIED);
        record(outcome, true, null);
      }
      case FAILED -> {
        tierMetrics(outcome, target, TierState.FAILED);
        record(outcome, false, reasonOf(outcome.failures().get(0).failure()));
        LOG.warn("pod {}: {}", target.qualifiedName(), outcome.problem());
      }
      case CGROUP_MISSING -> record(outcome, false, "CgroupMissing");
      case INVALID_POD -> record(outcome, false, "InvalidPod");
      case NODE_NOT_READY -> record(outcome, false, "NodeNotReady");
      case LEDGER_FAILED -> {
        tierMetrics(outcome, target, TierState.FAILED);
        record(outcome, false, "LedgerNotWritten");
        LOG.warn("pod {}: {}", target.qualifiedName(), outcome.problem());
      }
      default -> {
        // Reverts and unmanaged pods are forgotten by the caller.
      }
    }
  }

  /** The pod's tier state, and its own disks when its policy targets its volumes. */
  private void tierMetrics(PodOutcome outcome, PodTarget target, TierState state) {
    PodFacts pod = outcome.pod();
    String tier = outcome.decision().flatMap(d -> d.tier()).map(t -> t.name()).orElse(null);
    List<DeviceId> disks =
        outcome
            .disks()
            .filter(DiskSelection::perPod)
            .map(d -> d.disks().stream().map(DiskFacts::id).toList())
            .orElse(List.of());
    metrics.tier(pod.uid(), pod.namespace(), pod.name(), tier, target.cgroupPath(), state, disks);
  }

  private void record(PodOutcome outcome, boolean applied, String failureReason) {
    nodeState.record(
        outcome.pod().uid(),
        NodeStateReporter.PodResult.of(
                outcome.pod(),
                outcome.decision().orElseThrow(),
                applied,
                failureReason,
                outcome.problem())
            .withDisks(podDisks(outcome)));
  }

  /** The pod's own disks and volumes when its policy targets its volumes; null otherwise. */
  static PodDisks podDisks(PodOutcome outcome) {
    DiskSelection selection = outcome.disks().orElse(null);
    if (selection == null || !selection.perPod()) {
      return null;
    }
    return PodDisks.of(
        outcome.pod().namespace(),
        outcome.pod().name(),
        selection.disks().stream().map(PodHandler::disk).toList(),
        selection.volumes().stream()
            .map(
                v ->
                    PodDisks.Volume.of(
                        v.volume(),
                        v.kind(),
                        v.disks().stream().map(PodHandler::disk).toList(),
                        v.note()))
            .toList());
  }

  private static String disk(DiskFacts disk) {
    return disk.id() + " (" + disk.name() + ")";
  }

  /** Forgets a pod that finished or went away: its cgroup is gone with it. */
  public void forget(String uid) {
    try {
      ledger.remove(uid);
    } catch (LedgerWriteException e) {
      // The entry stays; the periodic resync forgets it again once the ledger can be written.
      LOG.warn("could not forget pod {} in the ledger: {}", uid, e.getMessage());
    }
    if (loop != null) {
      loop.remove(uid);
    }
    nodeState.forget(uid);
    metrics.forget(uid);
    events.forget(uid);
    backoff.reset(uid);
  }

  private static ApplyMetrics.Operation operation(PodOutcome outcome) {
    return outcome.reverted().isPresent()
        ? ApplyMetrics.Operation.REVERT
        : ApplyMetrics.Operation.APPLY;
  }

  private static ApplyMetrics.Result result(PodOutcome outcome) {
    return switch (outcome.kind()) {
      case CGROUP_MISSING, FORGOTTEN -> ApplyMetrics.Result.CGROUP_MISSING;
      case FAILED, REVERT_FAILED, LEDGER_FAILED -> ApplyMetrics.Result.FAILURE;
      default -> ApplyMetrics.Result.SUCCESS;
    };
  }

  /** A failure type as an IoNodeState reason: CGROUP_GONE becomes CgroupGone. */
  static String reasonOf(CgroupFailure failure) {
    String[] words = failure.name().toLowerCase(Locale.ROOT).split("_");
    StringBuilder reason = new StringBuilder();
    for (String word : words) {
      reason.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
    }
    return reason.toString();
  }
}
