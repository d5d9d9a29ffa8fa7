package dev.ioqos.agent;

import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PolicyResolver;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.Skipped;
import dev.ioqos.core.policy.TierWarning;
import dev.ioqos.metrics.AgentMetrics;
import dev.ioqos.metrics.ApplyMetrics;
import dev.ioqos.metrics.TierState;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pod, one pass: observe (facts given), resolve (policy, tier, disks, plan), apply (or dry run,
 * or revert), report (Events, node state). Returns when to look again, if sooner than the periodic
 * resync: a pod whose cgroup does not exist yet is retried with backoff.
 */
public final class PodHandler {
  private static final Logger LOG = LoggerFactory.getLogger(PodHandler.class);

  private final NodeEngine engine;
  private final Ledger ledger;
  private final EventReporter events;
  private final NodeStateReporter nodeState;
  private final Backoff backoff;
  private final boolean dryRun;
  private final AgentMetrics metrics;

  public PodHandler(
      NodeEngine engine,
      Ledger ledger,
      EventReporter events,
      NodeStateReporter nodeState,
      Backoff backoff,
      boolean dryRun,
      AgentMetrics metrics) {
    this.engine = engine;
    this.ledger = ledger;
    this.events = events;
    this.nodeState = nodeState;
    this.backoff = backoff;
    this.dryRun = dryRun;
    this.metrics = metrics;
  }

  /** Handles one pod; the result says when to retry early, if at all. */
  public Optional<Duration> handle(PodFacts pod, NodeFacts node, Collection<PolicyRules> policies) {
    PodDecision decision = PolicyResolver.decide(pod, node, policies);
    Optional<String> cgroupPath;
    try {
      cgroupPath = engine.podPath(pod);
    } catch (IllegalArgumentException e) {
      // A pod UID that is not a UUID: never build a path from it.
      report(
          pod,
          decision,
          EventReporter.Type.Warning,
          "InvalidPod",
          e.getMessage(),
          false,
          "InvalidPod");
      return Optional.empty();
    }
    Optional<CgroupTree> tree = engine.tree();
    if (cgroupPath.isEmpty() || tree.isEmpty()) {
      if (decision.managed()) {
        report(
            pod,
            decision,
            EventReporter.Type.Warning,
            "NodeNotReady",
            engine.layoutProblem(),
            false,
            "NodeNotReady");
      }
      return Optional.of(backoff.next(pod.uid()));
    }
    PodTarget target = new PodTarget(pod.uid(), pod.namespace(), pod.name(), cgroupPath.get());
    for (TierWarning warning : decision.warnings()) {
      events.post(target, EventReporter.Type.Warning, warning.reason(), warning.message());
    }
    if (!decision.conflictingPolicies().isEmpty()) {
      events.post(
          target,
          EventReporter.Type.Warning,
          "PolicyConflict",
          "policies "
              + String.join(", ", decision.conflictingPolicies())
              + " select this pod with the same priority; "
              + decision.policy().get().name()
              + " wins by name");
    }
    PodApplier applier = new PodApplier(tree.get(), engine.writer(), ledger);
    if (!decision.managed()) {
      return revertIfWritten(pod, target, applier);
    }
    PolicyRules policy = decision.policy().get();
    String tier = decision.tier().get().name();
    DiskSelection disks = engine.resolve(decision.devices());
    DesiredSettings desired = PolicyResolver.plan(decision, disks.disks(), engine.kernelFacts());
    for (String problem : disks.problems()) {
      events.post(target, EventReporter.Type.Warning, "DeviceNotResolved", problem);
    }
    if (dryRun || decision.dryRun()) {
      String would = String.join(", ", PodApplier.describe(desired));
      events.post(
          target,
          EventReporter.Type.Normal,
          "DryRun",
          "policy "
              + policy.name()
              + " tier "
              + tier
              + " would write: "
              + (would.isEmpty() ? "nothing" : would)
              + skippedText(desired.skipped()));
      metrics
          .pods()
          .managed(
              pod.uid(), pod.namespace(), pod.name(), tier, target.cgroupPath(), TierState.DRY_RUN);
      nodeState.record(pod.uid(), NodeStateReporter.PodResult.of(pod, decision, true, null, null));
      return Optional.empty();
    }
    try {
      ApplyOutcome outcome =
          metrics
              .apply()
              .time(
                  ApplyMetrics.Operation.APPLY,
                  () -> applier.apply(target, policy.name(), tier, desired),
                  ApplyOutcome::failed);
      backoff.reset(pod.uid());
      metrics
          .pods()
          .managed(
              pod.uid(),
              pod.namespace(),
              pod.name(),
              tier,
              target.cgroupPath(),
              outcome.failed() ? TierState.FAILED : TierState.APPLIED);
      if (outcome.failed()) {
        CgroupFailure cause = outcome.failures().get(0).failure();
        report(
            pod,
            decision,
            EventReporter.Type.Warning,
            "ApplyFailed",
            "policy " + policy.name() + " tier " + tier + ": " + outcome.summary(),
            false,
            reasonOf(cause));
        LOG.warn("pod {}: {}", target.qualifiedName(), outcome.summary());
      } else if (!outcome.unchanged()) {
        events.post(
            target,
            EventReporter.Type.Normal,
            "Applied",
            "policy "
                + policy.name()
                + " tier "
                + tier
                + ": "
                + outcome.summary()
                + skippedText(outcome.skipped()));
        if (!outcome.skipped().isEmpty() || !disks.problems().isEmpty()) {
          events.post(
              target,
              EventReporter.Type.Warning,
              "NotEnforced",
              skippedText(outcome.skipped()).replaceFirst("^; ", "")
                  + String.join("; ", disks.problems()));
        }
        nodeState.record(
            pod.uid(), NodeStateReporter.PodResult.of(pod, decision, true, null, null));
      } else {
        nodeState.record(
            pod.uid(), NodeStateReporter.PodResult.of(pod, decision, true, null, null));
      }
      return Optional.empty();
    } catch (CgroupIoException e) {
      return cgroupUnreachable(pod, decision, target, e);
    }
  }

  private Optional<Duration> revertIfWritten(PodFacts pod, PodTarget target, PodApplier applier) {
    nodeState.forget(pod.uid());
    metrics.pods().forget(pod.uid());
    Optional<LedgerEntry> written = ledger.get(pod.uid());
    if (written.isEmpty()) {
      return Optional.empty();
    }
    if (dryRun) {
      events.post(
          target,
          EventReporter.Type.Normal,
          "DryRun",
          "no policy applies any more; would restore the defaults");
      return Optional.empty();
    }
    try {
      ApplyOutcome outcome =
          metrics
              .apply()
              .time(
                  ApplyMetrics.Operation.REVERT,
                  () -> applier.revert(written.get()),
                  ApplyOutcome::failed);
      if (outcome.failed()) {
        events.post(target, EventReporter.Type.Warning, "RevertFailed", outcome.summary());
      } else {
        events.post(
            target,
            EventReporter.Type.Normal,
            "Reverted",
            "no policy applies any more; restored " + outcome.summary());
      }
      return Optional.empty();
    } catch (CgroupIoException e) {
      if (e.failure() == CgroupFailure.CGROUP_GONE) {
        ledger.remove(pod.uid());
        return Optional.empty();
      }
      events.post(target, EventReporter.Type.Warning, "RevertFailed", e.getMessage());
      return Optional.of(backoff.next(pod.uid()));
    }
  }

  private Optional<Duration> cgroupUnreachable(
      PodFacts pod, PodDecision decision, PodTarget target, CgroupIoException e) {
    if (e.failure() == CgroupFailure.CGROUP_GONE) {
      // kubelet creates the pod cgroup shortly after the pod is bound; look again soon.
      Duration retry = backoff.next(pod.uid());
      LOG.debug(
          "pod {}: cgroup {} not there yet, retrying in {}",
          target.qualifiedName(),
          target.cgroupPath(),
          retry);
      nodeState.record(
          pod.uid(),
          NodeStateReporter.PodResult.of(
              pod, decision, false, "CgroupMissing", "waiting for cgroup " + target.cgroupPath()));
      return Optional.of(retry);
    }
    String tier = decision.tier().get().name();
    metrics
        .pods()
        .managed(
            pod.uid(), pod.namespace(), pod.name(), tier, target.cgroupPath(), TierState.FAILED);
    report(
        pod,
        decision,
        EventReporter.Type.Warning,
        "ApplyFailed",
        e.getMessage(),
        false,
        reasonOf(e.failure()));
    return Optional.empty();
  }

  /** Forgets a pod that finished or went away: its cgroup is gone with it. */
  public void forget(String uid) {
    ledger.remove(uid);
    nodeState.forget(uid);
    metrics.pods().forget(uid);
    events.forget(uid);
    backoff.reset(uid);
  }

  private void report(
      PodFacts pod,
      PodDecision decision,
      EventReporter.Type type,
      String reason,
      String message,
      boolean applied,
      String failureReason) {
    PodTarget target = new PodTarget(pod.uid(), pod.namespace(), pod.name(), "");
    events.post(target, type, reason, message == null ? reason : message);
    nodeState.record(
        pod.uid(), NodeStateReporter.PodResult.of(pod, decision, applied, failureReason, message));
  }

  static String reasonOf(CgroupFailure failure) {
    String[] words = failure.name().toLowerCase(java.util.Locale.ROOT).split("_");
    StringBuilder reason = new StringBuilder();
    for (String word : words) {
      reason.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
    }
    return reason.toString();
  }

  private static String skippedText(List<Skipped> skipped) {
    if (skipped.isEmpty()) {
      return "";
    }
    return "; not enforced here: "
        + skipped.stream().map(Skipped::reason).distinct().collect(Collectors.joining("; "));
  }
}
