package dev.ioqos.node;

import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.core.policy.LabelSelectorRule;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PolicyResolver;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.Skipped;
import dev.ioqos.core.policy.TierWarning;
import dev.ioqos.node.PodEvent.Reason;
import dev.ioqos.node.PodOutcome.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One pod, one pass: decide (policy, tier), locate the cgroup, resolve the disks, plan, then apply,
 * revert or only describe (dry run), and return everything as one {@link PodOutcome}. It posts
 * nothing and records nothing but the ledger: the agent's {@code agent.PodHandler}, {@code ioqos
 * apply} and {@code ioqos explain} all run this pass and differ only in what they do with the
 * outcome.
 */
public final class PodPass {
  private final NodeEngine engine;
  private final Ledger ledger;
  private final boolean dryRun;

  /**
   * @param ledger what ioqos wrote before; null for a dry run that knows no ledger ({@code
   *     explain})
   * @param dryRun compute and report only, for every policy (the agent's {@code --dry-run})
   */
  public PodPass(NodeEngine engine, Ledger ledger, boolean dryRun) {
    if (ledger == null && !dryRun) {
      throw new IllegalArgumentException("a pass that writes needs a ledger");
    }
    this.engine = engine;
    this.ledger = ledger;
    this.dryRun = dryRun;
  }

  /** The pass over one pod of this node, every fact known. */
  public PodOutcome run(PodFacts pod, NodeFacts node, Collection<PolicyRules> policies) {
    return run(pod, node, policies, Set.of());
  }

  /**
   * The pass over one pod of this node. When a selector of some policy depends on a fact in {@code
   * unknown}, nothing is written or reverted ({@link Kind#FACTS_UNKNOWN}, retried): an empty label
   * set read as "not selected" would revert every pod under a policy with a nodeSelector after one
   * failed GET of the node.
   */
  public PodOutcome run(
      PodFacts pod, NodeFacts node, Collection<PolicyRules> policies, Set<UnknownFact> unknown) {
    Outcome out = new Outcome(pod);
    PodDecision decision = PolicyResolver.decide(pod, node, policies);
    out.decision = decision;
    List<UnknownFact> missing = dependsOn(policies, unknown);
    if (!missing.isEmpty()) {
      String message =
          missing.stream().map(UnknownFact::text).collect(Collectors.joining(" and "))
              + "; the pod's cgroup keeps what it holds until "
              + (missing.size() > 1 ? "they are" : "it is")
              + " known";
      out.warning(Reason.FACTS_UNKNOWN, message);
      out.problem = message;
      out.retry = true;
      return out.end(Kind.FACTS_UNKNOWN);
    }
    Optional<String> cgroupPath;
    try {
      cgroupPath = engine.podPath(pod);
    } catch (IllegalArgumentException e) {
      // A pod UID that is not a UUID: never build a path from it.
      out.warning(Reason.INVALID_POD, e.getMessage());
      out.problem = e.getMessage();
      return out.end(Kind.INVALID_POD);
    }
    out.cgroupPath = cgroupPath.orElse(null);
    if (decision.managed()) {
      // Before the layout check, so that a node without kubepods still explains its disks.
      out.disks = engine.resolve(decision.devices(), pod);
      out.desired = PolicyResolver.plan(decision, out.disks.disks(), engine.kernelFacts());
      out.skipped = out.desired.skipped();
    }
    Optional<CgroupTree> tree = engine.tree();
    if (cgroupPath.isEmpty() || tree.isEmpty()) {
      // kubepods may appear later (kubelet starting): look again soon either way.
      out.retry = true;
      if (!decision.managed()) {
        return out.end(Kind.NOT_MANAGED);
      }
      out.warning(Reason.NODE_NOT_READY, layoutProblem());
      out.problem = layoutProblem();
      return out.end(Kind.NODE_NOT_READY);
    }
    for (TierWarning warning : decision.warnings()) {
      out.warning(Reason.of(warning), warning.message());
    }
    if (!decision.conflictingPolicies().isEmpty()) {
      out.warning(
          Reason.POLICY_CONFLICT,
          "policies "
              + String.join(", ", decision.conflictingPolicies())
              + " select this pod with the same priority; "
              + decision.policy().get().name()
              + " wins by name");
    }
    PodApplier applier = new PodApplier(tree.get(), engine.writer(), ledger);
    if (!decision.managed()) {
      Optional<LedgerEntry> written = written(pod.uid());
      if (written.isEmpty()) {
        return out.end(Kind.NOT_MANAGED);
      }
      return revert(out, applier, written.get(), "no policy applies any more");
    }
    return apply(out, applier, decision, new PodTarget(pod, cgroupPath.get()));
  }

  /** The unknown facts some policy's selectors read. */
  private static List<UnknownFact> dependsOn(
      Collection<PolicyRules> policies, Set<UnknownFact> unknown) {
    List<UnknownFact> missing = new ArrayList<>();
    for (UnknownFact fact : unknown) {
      boolean read =
          policies.stream()
              .anyMatch(
                  policy ->
                      !(fact == UnknownFact.NODE_LABELS
                              ? policy.nodeSelector()
                              : policy.namespaceSelector())
                          .equals(LabelSelectorRule.EVERYTHING));
      if (read) {
        missing.add(fact);
      }
    }
    return missing;
  }

  private PodOutcome ledgerFailed(Outcome out, LedgerWriteException e) {
    out.ledgerFailure = e;
    String message = e.getMessage() + "; the cgroup was not written, retrying";
    out.warning(Reason.LEDGER_NOT_WRITTEN, message);
    out.problem = message;
    out.retry = true;
    return out.end(Kind.LEDGER_FAILED);
  }

  private PodOutcome apply(
      Outcome out, PodApplier applier, PodDecision decision, PodTarget target) {
    String policy = decision.policy().get().name();
    String tier = decision.tier().get().name();
    for (DiskProblem problem : out.disks.problems()) {
      out.warning(Reason.DEVICE_NOT_RESOLVED, problem.message());
    }
    if (dryRun || decision.dryRun()) {
      String would = String.join(", ", out.desired.settings().kernelLines());
      out.normal(
          Reason.DRY_RUN,
          "policy "
              + policy
              + " tier "
              + tier
              + " would write: "
              + (would.isEmpty() ? "nothing" : would)
              + skippedText(out.desired.skipped()));
      return out.end(Kind.DRY_RUN);
    }
    long start = System.nanoTime();
    try {
      // A device selector that did not resolve this time (e.g. a mount not there yet) must not
      // cost the pod the limits it holds on the disks it resolved to before.
      boolean keepOtherDisks = !out.disks.problems().isEmpty();
      ApplyOutcome applied = applier.apply(target, policy, tier, out.desired, keepOtherDisks);
      out.kernelTime = Duration.ofNanos(System.nanoTime() - start);
      out.written = applied.written();
      out.skipped = applied.skipped();
      out.failures.addAll(applied.failures());
      if (applied.failed()) {
        String message = "policy " + policy + " tier " + tier + ": " + applied.summary();
        out.warning(Reason.APPLY_FAILED, message);
        out.problem = message;
        // EBUSY (or a cgroup that went mid-way) may pass by itself: retry with backoff rather
        // than wait for the next resync.
        out.retry = applied.failures().stream().anyMatch(f -> f.failure().retriable());
        return out.end(Kind.FAILED);
      }
      if (applied.unchanged()) {
        // A resync or an unrelated update of the pod: nothing new to tell its owner.
        return out.end(Kind.UNCHANGED);
      }
      out.normal(
          Reason.APPLIED,
          "policy "
              + policy
              + " tier "
              + tier
              + ": "
              + applied.summary()
              + skippedText(applied.skipped()));
      if (!applied.skipped().isEmpty() || !out.disks.problems().isEmpty()) {
        out.warning(
            Reason.NOT_ENFORCED,
            skippedText(applied.skipped()).replaceFirst("^; ", "")
                + out.disks.problems().stream()
                    .map(DiskProblem::message)
                    .collect(Collectors.joining("; ")));
      }
      return out.end(Kind.APPLIED);
    } catch (CgroupIoException e) {
      out.kernelTime = Duration.ofNanos(System.nanoTime() - start);
      out.failures.add(e);
      if (e.failure() == CgroupFailure.CGROUP_GONE) {
        // kubelet creates the pod cgroup shortly after the pod is bound; look again soon.
        out.retry = true;
        out.problem = "waiting for cgroup " + target.cgroupPath();
        return out.end(Kind.CGROUP_MISSING);
      }
      out.warning(Reason.APPLY_FAILED, e.getMessage());
      out.problem = e.getMessage();
      out.retry = e.failure().retriable();
      return out.end(Kind.FAILED);
    } catch (LedgerWriteException e) {
      out.kernelTime = Duration.ofNanos(System.nanoTime() - start);
      return ledgerFailed(out, e);
    }
  }

  /**
   * Restores the defaults for a pod that only the ledger knows (its object is gone, its cgroup may
   * not be): what {@code ioqos reconcile} does for pods no longer among its objects.
   */
  public PodOutcome revertAbsent(LedgerEntry entry, String why) {
    PodFacts pod =
        new PodFacts(
            entry.namespace(),
            entry.name(),
            entry.uid(),
            Map.of(),
            Map.of(),
            Map.of(),
            Optional.empty(),
            QosClass.BEST_EFFORT);
    Outcome out = new Outcome(pod);
    out.cgroupPath = entry.cgroupPath();
    out.reverted = entry;
    Optional<CgroupTree> tree = engine.tree();
    if (tree.isEmpty()) {
      out.warning(Reason.NODE_NOT_READY, layoutProblem());
      out.problem = layoutProblem();
      out.retry = true;
      return out.end(Kind.NODE_NOT_READY);
    }
    return revert(out, new PodApplier(tree.get(), engine.writer(), ledger), entry, why);
  }

  private PodOutcome revert(Outcome out, PodApplier applier, LedgerEntry entry, String why) {
    out.reverted = entry;
    if (dryRun) {
      out.normal(Reason.DRY_RUN, why + "; would restore the defaults");
      return out.end(Kind.DRY_RUN);
    }
    long start = System.nanoTime();
    try {
      ApplyOutcome reverted = applier.revert(entry);
      out.kernelTime = Duration.ofNanos(System.nanoTime() - start);
      out.written = reverted.written();
      out.failures.addAll(reverted.failures());
      if (reverted.failed()) {
        out.warning(Reason.REVERT_FAILED, reverted.summary());
        out.problem = reverted.summary();
        out.retry = reverted.failures().stream().anyMatch(f -> f.failure().retriable());
        return out.end(Kind.REVERT_FAILED);
      }
      out.normal(Reason.REVERTED, why + "; restored " + reverted.summary());
      return out.end(Kind.REVERTED);
    } catch (CgroupIoException e) {
      out.kernelTime = Duration.ofNanos(System.nanoTime() - start);
      if (e.failure() == CgroupFailure.CGROUP_GONE) {
        // Gone with the pod: there is nothing left to restore.
        try {
          ledger.remove(entry.uid());
        } catch (LedgerWriteException notRemoved) {
          return ledgerFailed(out, notRemoved);
        }
        return out.end(Kind.FORGOTTEN);
      }
      out.failures.add(e);
      out.warning(Reason.REVERT_FAILED, e.getMessage());
      out.problem = e.getMessage();
      out.retry = true;
      return out.end(Kind.REVERT_FAILED);
    } catch (LedgerWriteException e) {
      out.kernelTime = Duration.ofNanos(System.nanoTime() - start);
      return ledgerFailed(out, e);
    }
  }

  private String layoutProblem() {
    return engine.layoutProblem().orElse("kubepods was not found");
  }

  private Optional<LedgerEntry> written(String uid) {
    return ledger == null ? Optional.empty() : ledger.get(uid);
  }

  private static String skippedText(List<Skipped> skipped) {
    if (skipped.isEmpty()) {
      return "";
    }
    return "; not enforced here: "
        + skipped.stream().map(Skipped::reason).distinct().collect(Collectors.joining("; "));
  }

  /** The outcome while the pass fills it in. */
  private static final class Outcome {
    final PodFacts pod;
    PodDecision decision;
    String cgroupPath;
    DiskSelection disks;
    DesiredSettings desired;
    List<String> written = List.of();
    List<Skipped> skipped = List.of();
    final List<CgroupIoException> failures = new ArrayList<>();
    LedgerWriteException ledgerFailure;
    final List<PodEvent> events = new ArrayList<>();
    String problem;
    LedgerEntry reverted;
    Duration kernelTime;
    boolean retry;

    Outcome(PodFacts pod) {
      this.pod = pod;
    }

    void normal(Reason reason, String message) {
      events.add(PodEvent.normal(reason, message));
    }

    void warning(Reason reason, String message) {
      events.add(PodEvent.warning(reason, message));
    }

    PodOutcome end(Kind kind) {
      return new PodOutcome(
          kind,
          pod,
          Optional.ofNullable(decision),
          Optional.ofNullable(cgroupPath),
          Optional.ofNullable(disks),
          Optional.ofNullable(desired),
          written,
          skipped,
          failures,
          Optional.ofNullable(ledgerFailure),
          events,
          problem,
          Optional.ofNullable(reverted),
          Optional.ofNullable(kernelTime),
          retry);
    }
  }
}
