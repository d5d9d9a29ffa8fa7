package dev.ioqos.agent;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.cgroup.CgroupFailure;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PolicyResolver;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.Skipped;
import dev.ioqos.core.policy.TierWarning;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One reconcile pass of this node over Pods, IoPolicies, Namespaces and a Node given as objects
 * (e.g. read from files), without an API server: the node-debugging path behind {@code ioqos
 * apply}. It takes the steps of {@link PodHandler} with the very same parts ({@link PolicyResolver}
 * to decide and plan, {@link NodeEngine} for the cgroup layout, disks and capabilities, {@link
 * PodApplier} to write, read back and revert, the {@link Ledger} in the state directory) and the
 * same Event reasons, but instead of posting Events it returns, per pod, what was decided, written,
 * skipped and refused. Ledger entries of pods that are not among the given objects are reverted
 * (their cgroup still exists) or forgotten (it went with the pod).
 */
public final class OfflineReconcile {

  /** How one pod's pass ended. */
  public enum Result {
    /** Every value of the tier was written and read back. */
    APPLIED(true),
    /** At least one write was refused or read back different. */
    FAILED(false),
    /** Computed and reported only (policy in DryRun, or {@code --dry-run}). */
    DRY_RUN(true),
    /** No policy places the pod in a tier, and ioqos never wrote anything for it. */
    NOT_MANAGED(true),
    /** The pod left every tier: what ioqos had written was restored to the kernel defaults. */
    REVERTED(true),
    /** Restoring the defaults was refused. */
    REVERT_FAILED(false),
    /** The pod's cgroup does not exist (not created yet, or the pod is gone): nothing written. */
    CGROUP_MISSING(false),
    /** Finished (Succeeded/Failed) or gone with its cgroup: its ledger entry was dropped. */
    FORGOTTEN(true),
    /** Bound to another node: left alone. */
    OTHER_NODE(true),
    /** The pod object cannot be used (e.g. its UID is missing or not a UUID). */
    INVALID_POD(false),
    /** kubepods was not found on this node, so no pod cgroup can be located. */
    NODE_NOT_READY(false);

    private final boolean ok;

    Result(boolean ok) {
      this.ok = ok;
    }

    /** False when the pod does not hold what it should. */
    public boolean ok() {
      return ok;
    }
  }

  /** An Event the agent would have posted on the pod. */
  public record Event(String type, String reason, String message) {}

  /** A kernel refusal (or unreachable cgroup), typed by errno. */
  public record Failure(CgroupFailure type, String file, String data, String message) {
    static Failure of(CgroupIoException e) {
      return new Failure(
          e.failure(), e.file() == null ? null : e.file().toString(), e.data(), e.getMessage());
    }
  }

  /** One whole disk the pod's policy targets, with what enforces weights on it. */
  public record Disk(String majMin, String name, String scheduler, String weights) {
    static Disk of(DiskFacts disk) {
      return new Disk(
          disk.id().toString(), disk.name(), disk.scheduler(), disk.weightEnforcement().toString());
    }
  }

  /** A setting the tier asks for that this node does not enforce, and why. */
  public record SkippedSetting(String feature, String disk, String reason) {
    static SkippedSetting of(Skipped skipped) {
      return new SkippedSetting(
          skipped.feature().fileName(),
          skipped.disk().map(d -> d.id().toString()).orElse(null),
          skipped.reason());
    }
  }

  /** Everything about one pod's pass. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record PodReport(
      String namespace,
      String name,
      String uid,
      String qosClass,
      Result result,
      String note,
      String policy,
      Integer priority,
      List<String> tiedPolicies,
      String tier,
      String tierSource,
      String mode,
      String cgroupPath,
      List<Disk> disks,
      List<String> diskProblems,
      List<String> desired,
      List<String> written,
      List<SkippedSetting> skipped,
      List<Failure> failures,
      List<Event> events,
      @JsonIgnoreProperties("empty") LedgerEntry ledger) {}

  /** The pass over every pod, the policies that could not be used, and the ledger's pods. */
  public record Report(
      String node, String kubepodsPath, String layoutProblem, List<PodReport> pods) {
    public Report {
      pods = List.copyOf(pods);
    }

    /** True when every pod holds what it should (applied, reverted, unmanaged, dry run). */
    public boolean ok() {
      return pods.stream().allMatch(p -> p.result().ok());
    }
  }

  /** The node's name in the decision when none was given. */
  public static final String UNNAMED_NODE = "this-node";

  private final NodeEngine engine;
  private final Ledger ledger;
  private final boolean dryRun;

  public OfflineReconcile(NodeEngine engine, Ledger ledger, boolean dryRun) {
    this.engine = engine;
    this.ledger = ledger;
    this.dryRun = dryRun;
  }

  /**
   * Reconciles the given objects once.
   *
   * @param nodeName this node's name; pods bound to another node are left alone (null: every pod is
   *     taken as this node's)
   * @param node this node's object, for IoPolicy nodeSelectors (null: no labels)
   * @param policyRules the usable policies (see {@link #rules})
   */
  public Report reconcile(
      String nodeName,
      Node node,
      Collection<Pod> pods,
      Collection<PolicyRules> policyRules,
      Collection<Namespace> namespaces) {
    NodeFacts nodeFacts = ApiMapping.node(nodeName == null ? UNNAMED_NODE : nodeName, node);
    Map<String, Namespace> byName = new LinkedHashMap<>();
    for (Namespace namespace : namespaces) {
      byName.put(namespace.getMetadata().getName(), namespace);
    }
    List<PodReport> reports = new ArrayList<>();
    Set<String> present = new HashSet<>();
    for (Pod pod : pods) {
      String uid = pod.getMetadata().getUid();
      String bound = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (nodeName != null && bound != null && !bound.isBlank() && !bound.equals(nodeName)) {
        reports.add(brief(pod, Result.OTHER_NODE, "bound to node " + bound + ", not " + nodeName));
        continue;
      }
      if (uid != null) {
        present.add(uid);
      }
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
        // As the agent does: kubelet removes a finished pod's cgroup, there is nothing to restore.
        if (uid != null) {
          ledger.remove(uid);
        }
        reports.add(brief(pod, Result.FORGOTTEN, "the pod is " + phase));
        continue;
      }
      if (uid == null || uid.isBlank()) {
        reports.add(
            brief(
                pod,
                Result.INVALID_POD,
                "metadata.uid is missing: the pod's cgroup is named after it (use kubectl get pod"
                    + " -o yaml)"));
        continue;
      }
      reports.add(
          handle(
              withSpec(pod), byName.get(pod.getMetadata().getNamespace()), nodeFacts, policyRules));
    }
    for (LedgerEntry entry : ledger.entries()) {
      if (!present.contains(entry.uid())) {
        reports.add(revertAbsent(entry));
      }
    }
    return new Report(
        nodeFacts.name(),
        engine.layout().map(l -> l.kubepodsPath()).orElse(null),
        engine.layoutProblem(),
        reports);
  }

  /**
   * The rules of each usable policy; a policy that cannot be used (no admission checked these
   * objects) is added to {@code ignored} with the reason, never a crash.
   */
  public static List<PolicyRules> rules(Collection<IoPolicy> policies, List<String> ignored) {
    List<PolicyRules> rules = new ArrayList<>();
    for (IoPolicy policy : policies) {
      String name = policy.getMetadata() == null ? null : policy.getMetadata().getName();
      if (name == null || name.isBlank()) {
        ignored.add("an IoPolicy without metadata.name");
        continue;
      }
      try {
        rules.add(ApiMapping.rules(policy));
      } catch (RuntimeException e) {
        ignored.add("IoPolicy " + name + ": " + e.getMessage());
      }
    }
    return rules;
  }

  private final class Pass {
    final PodFacts pod;
    final String qosClass;

    /** For a pod known only from the ledger: its last policy, tier and cgroup. */
    LedgerEntry known;

    String note;

    final List<Event> events = new ArrayList<>();
    final List<Failure> failures = new ArrayList<>();
    PodDecision decision;
    String cgroupPath;
    List<Disk> disks;
    List<String> diskProblems;
    List<String> desired;
    List<String> written;
    List<SkippedSetting> skipped;

    Pass(PodFacts pod, String qosClass) {
      this.pod = pod;
      this.qosClass = qosClass;
    }

    void event(PodEvent.Type type, String reason, String message) {
      events.add(new Event(type.name(), reason, message));
    }

    PodReport report(Result result) {
      Optional<PolicyRules> policy =
          decision == null ? Optional.empty() : decision.policy().filter(p -> decision.managed());
      return new PodReport(
          pod.namespace(),
          pod.name(),
          pod.uid(),
          qosClass,
          result,
          note,
          known != null ? known.policy() : policy.map(PolicyRules::name).orElse(null),
          policy.map(PolicyRules::priority).orElse(null),
          decision == null || decision.conflictingPolicies().isEmpty()
              ? null
              : decision.conflictingPolicies(),
          known != null
              ? known.tier()
              : decision == null ? null : decision.tier().map(t -> t.name()).orElse(null),
          decision == null || !decision.managed() ? null : decision.source().name(),
          policy.isEmpty() ? null : decision.dryRun() || dryRun ? "DryRun" : "Enforce",
          known != null ? known.cgroupPath() : cgroupPath,
          disks,
          diskProblems == null || diskProblems.isEmpty() ? null : diskProblems,
          desired,
          written,
          skipped == null || skipped.isEmpty() ? null : skipped,
          failures.isEmpty() ? null : List.copyOf(failures),
          List.copyOf(events),
          ledger.get(pod.uid()).orElse(null));
    }
  }

  /** {@link PodHandler#handle}'s steps for one pod, reporting instead of posting. */
  private PodReport handle(
      Pod object, Namespace namespace, NodeFacts node, Collection<PolicyRules> policies) {
    PodFacts pod = ApiMapping.pod(object, namespace);
    Pass pass = new Pass(pod, pod.qosClass().kubernetesName());
    if (object.getStatus() == null || object.getStatus().getQosClass() == null) {
      // The API server always sets it; a hand-written file may not. The agent's default applies.
      pass.note =
          "status.qosClass is missing: taken as "
              + pod.qosClass().kubernetesName()
              + ", which decides the cgroup path";
    }
    pass.decision = PolicyResolver.decide(pod, node, policies);
    PodDecision decision = pass.decision;
    Optional<String> cgroupPath;
    try {
      cgroupPath = engine.podPath(pod);
    } catch (IllegalArgumentException e) {
      pass.event(PodEvent.Type.Warning, "InvalidPod", e.getMessage());
      return pass.report(Result.INVALID_POD);
    }
    Optional<CgroupTree> tree = engine.tree();
    if (cgroupPath.isEmpty() || tree.isEmpty()) {
      if (decision.managed()) {
        pass.event(PodEvent.Type.Warning, "NodeNotReady", engine.layoutProblem());
        return pass.report(Result.NODE_NOT_READY);
      }
      return pass.report(Result.NOT_MANAGED);
    }
    pass.cgroupPath = cgroupPath.get();
    PodTarget target = new PodTarget(pod.uid(), pod.namespace(), pod.name(), cgroupPath.get());
    for (TierWarning warning : decision.warnings()) {
      pass.event(PodEvent.Type.Warning, warning.reason(), warning.message());
    }
    if (!decision.conflictingPolicies().isEmpty()) {
      pass.event(
          PodEvent.Type.Warning,
          "PolicyConflict",
          "policies "
              + String.join(", ", decision.conflictingPolicies())
              + " select this pod with the same priority; "
              + decision.policy().get().name()
              + " wins by name");
    }
    PodApplier applier = new PodApplier(tree.get(), engine.writer(), ledger);
    if (!decision.managed()) {
      Optional<LedgerEntry> written = ledger.get(pod.uid());
      if (written.isEmpty()) {
        return pass.report(Result.NOT_MANAGED);
      }
      return revert(pass, applier, written.get(), "no policy applies any more");
    }
    PolicyRules policy = decision.policy().get();
    String tier = decision.tier().get().name();
    DiskSelection disks = engine.resolve(decision.devices());
    DesiredSettings desired = PolicyResolver.plan(decision, disks.disks(), engine.kernelFacts());
    pass.disks = disks.disks().stream().map(Disk::of).toList();
    pass.diskProblems = disks.problems();
    pass.desired = PodApplier.describe(desired);
    pass.skipped = desired.skipped().stream().map(SkippedSetting::of).toList();
    for (String problem : disks.problems()) {
      pass.event(PodEvent.Type.Warning, "DeviceNotResolved", problem);
    }
    if (dryRun || decision.dryRun()) {
      String would = String.join(", ", pass.desired);
      pass.event(
          PodEvent.Type.Normal,
          "DryRun",
          "policy "
              + policy.name()
              + " tier "
              + tier
              + " would write: "
              + (would.isEmpty() ? "nothing" : would)
              + skippedText(desired.skipped()));
      return pass.report(Result.DRY_RUN);
    }
    try {
      ApplyOutcome outcome = applier.apply(target, policy.name(), tier, desired);
      pass.written = outcome.written();
      outcome.failures().forEach(f -> pass.failures.add(Failure.of(f)));
      if (outcome.failed()) {
        pass.event(
            PodEvent.Type.Warning,
            "ApplyFailed",
            "policy " + policy.name() + " tier " + tier + ": " + outcome.summary());
        return pass.report(Result.FAILED);
      }
      pass.event(
          PodEvent.Type.Normal,
          "Applied",
          "policy "
              + policy.name()
              + " tier "
              + tier
              + ": "
              + outcome.summary()
              + skippedText(outcome.skipped()));
      if (!outcome.skipped().isEmpty() || !disks.problems().isEmpty()) {
        pass.event(
            PodEvent.Type.Warning,
            "NotEnforced",
            skippedText(outcome.skipped()).replaceFirst("^; ", "")
                + String.join("; ", disks.problems()));
      }
      return pass.report(Result.APPLIED);
    } catch (CgroupIoException e) {
      pass.failures.add(Failure.of(e));
      if (e.failure() == CgroupFailure.CGROUP_GONE) {
        return pass.report(Result.CGROUP_MISSING);
      }
      pass.event(PodEvent.Type.Warning, "ApplyFailed", e.getMessage());
      return pass.report(Result.FAILED);
    }
  }

  private PodReport revert(Pass pass, PodApplier applier, LedgerEntry entry, String why) {
    if (dryRun) {
      pass.event(PodEvent.Type.Normal, "DryRun", why + "; would restore the defaults");
      return pass.report(Result.DRY_RUN);
    }
    try {
      ApplyOutcome outcome = applier.revert(entry);
      pass.written = outcome.written();
      outcome.failures().forEach(f -> pass.failures.add(Failure.of(f)));
      if (outcome.failed()) {
        pass.event(PodEvent.Type.Warning, "RevertFailed", outcome.summary());
        return pass.report(Result.REVERT_FAILED);
      }
      pass.event(PodEvent.Type.Normal, "Reverted", why + "; restored " + outcome.summary());
      return pass.report(Result.REVERTED);
    } catch (CgroupIoException e) {
      if (e.failure() == CgroupFailure.CGROUP_GONE) {
        ledger.remove(entry.uid());
        return pass.report(Result.FORGOTTEN);
      }
      pass.failures.add(Failure.of(e));
      pass.event(PodEvent.Type.Warning, "RevertFailed", e.getMessage());
      return pass.report(Result.REVERT_FAILED);
    }
  }

  /** A pod the ledger knows and the given objects do not: restore its cgroup if it is there. */
  private PodReport revertAbsent(LedgerEntry entry) {
    PodFacts pod =
        new PodFacts(
            entry.namespace(),
            entry.name(),
            entry.uid(),
            Map.of(),
            Map.of(),
            Map.of(),
            Optional.empty(),
            dev.ioqos.core.QosClass.BEST_EFFORT);
    Pass pass = new Pass(pod, null);
    pass.known = entry;
    Optional<CgroupTree> tree = engine.tree();
    if (tree.isEmpty()) {
      pass.event(PodEvent.Type.Warning, "NodeNotReady", engine.layoutProblem());
      return pass.report(Result.NODE_NOT_READY);
    }
    return revert(
        pass,
        new PodApplier(tree.get(), engine.writer(), ledger),
        entry,
        "the pod is not among the objects any more");
  }

  private static Pod withSpec(Pod pod) {
    if (pod.getSpec() == null) {
      pod.setSpec(new PodSpec());
    }
    return pod;
  }

  private PodReport brief(Pod pod, Result result, String why) {
    var meta = pod.getMetadata();
    String qos = pod.getStatus() == null ? null : pod.getStatus().getQosClass();
    return new PodReport(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        qos,
        result,
        why,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        List.of(),
        meta.getUid() == null ? null : ledger.get(meta.getUid()).orElse(null));
  }

  private static String skippedText(List<Skipped> skipped) {
    if (skipped.isEmpty()) {
      return "";
    }
    return "; not enforced here: "
        + skipped.stream().map(Skipped::reason).distinct().collect(Collectors.joining("; "));
  }
}
