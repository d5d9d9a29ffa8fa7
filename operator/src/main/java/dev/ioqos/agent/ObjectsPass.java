package dev.ioqos.agent;

import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.ClaimLookup;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.LedgerEntry;
import dev.ioqos.node.LedgerWriteException;
import dev.ioqos.node.NodeEngine;
import dev.ioqos.node.PodOutcome;
import dev.ioqos.node.PodPass;
import dev.ioqos.node.QosSliceStep;
import dev.ioqos.node.SliceLedger;
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

/**
 * {@code ioqos reconcile}'s loop: the agent's {@link PodPass} over Pods, Namespaces and a Node
 * given as objects (read from files) instead of informers. It leaves alone what the agent would
 * never see (pods bound to another node), forgets finished pods as the agent does, runs the pass
 * for every other pod and reverts the ledger's pods that are not among the objects any more, then
 * runs the node-level {@link QosSliceStep} once.
 */
public final class ObjectsPass {

  /** The node's name in the decision when none was given. */
  public static final String UNNAMED_NODE = "this-node";

  /**
   * One pod's line of the report: the pass's outcome, or why the pod was not passed.
   *
   * @param result the outcome's kind, or {@code OTHER_NODE}, {@code FORGOTTEN}, {@code INVALID_POD}
   *     for a pod the pass did not see
   * @param qosClass as Kubernetes spells it; null for a pod known from the ledger alone
   * @param note why the pod was not passed, or what was assumed about it
   */
  public record Line(
      String namespace,
      String name,
      String uid,
      String qosClass,
      String result,
      boolean ok,
      String note,
      Optional<PodOutcome> outcome) {

    static Line of(PodOutcome outcome, String qosClass, String note) {
      return new Line(
          outcome.pod().namespace(),
          outcome.pod().name(),
          outcome.pod().uid(),
          qosClass,
          outcome.kind().name(),
          outcome.kind().ok(),
          note,
          Optional.of(outcome));
    }
  }

  /**
   * The pass over every object, with the layout it ran on, and the node-level QoS slice step run
   * after the pods.
   */
  public record Report(
      String node,
      String kubepodsPath,
      Optional<String> layoutProblem,
      List<Line> pods,
      QosSliceStep.Report slices) {
    public Report {
      pods = List.copyOf(pods);
    }

    /**
     * True when every pod holds what it should (applied, reverted, unmanaged, dry run) and the
     * kernel took every slice weight.
     */
    public boolean ok() {
      return pods.stream().allMatch(Line::ok) && slices.failures().isEmpty();
    }
  }

  private final NodeEngine engine;
  private final Ledger ledger;
  private final PodPass pass;
  private final QosSliceStep sliceStep;

  public ObjectsPass(NodeEngine engine, Ledger ledger, SliceLedger slices, boolean dryRun) {
    this.engine = engine;
    this.ledger = ledger;
    this.pass = new PodPass(engine, ledger, dryRun);
    this.sliceStep = new QosSliceStep(engine, slices, ledger, dryRun);
  }

  /**
   * Runs the pass once over the given objects.
   *
   * @param nodeName this node's name; pods bound to another node are left alone (null: every pod is
   *     taken as this node's)
   * @param node this node's object, for IoPolicy nodeSelectors (null: no labels)
   * @param policies the usable policies ({@link ApiMapping#usableRules})
   */
  public Report run(
      String nodeName,
      Node node,
      Collection<Pod> pods,
      Collection<PolicyRules> policies,
      Collection<Namespace> namespaces) {
    return run(nodeName, node, pods, policies, namespaces, ClaimLookup.NONE);
  }

  /** As above; {@code claims} finds the PV each pod's claim is bound to (podVolumes). */
  public Report run(
      String nodeName,
      Node node,
      Collection<Pod> pods,
      Collection<PolicyRules> policies,
      Collection<Namespace> namespaces,
      ClaimLookup claims) {
    NodeFacts nodeFacts = ApiMapping.node(nodeName == null ? UNNAMED_NODE : nodeName, node);
    Map<String, Namespace> byName = new LinkedHashMap<>();
    namespaces.forEach(namespace -> byName.put(namespace.getMetadata().getName(), namespace));
    List<Line> lines = new ArrayList<>();
    Set<String> present = new HashSet<>();
    for (Pod pod : pods) {
      String uid = pod.getMetadata().getUid();
      String bound = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (nodeName != null && bound != null && !bound.isBlank() && !bound.equals(nodeName)) {
        lines.add(brief(pod, "OTHER_NODE", true, "bound to node " + bound + ", not " + nodeName));
        continue;
      }
      if (uid != null) {
        present.add(uid);
      }
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
        // As the agent does: kubelet removes a finished pod's cgroup, there is nothing to restore.
        if (uid != null) {
          try {
            ledger.remove(uid);
          } catch (LedgerWriteException e) {
            lines.add(brief(pod, "LEDGER_FAILED", false, e.getMessage()));
            continue;
          }
        }
        lines.add(brief(pod, "FORGOTTEN", true, "the pod is " + phase));
        continue;
      }
      if (uid == null || uid.isBlank()) {
        lines.add(
            brief(
                pod,
                "INVALID_POD",
                false,
                "metadata.uid is missing: the pod's cgroup is named after it (use kubectl get pod"
                    + " -o yaml)"));
        continue;
      }
      if (pod.getSpec() == null) {
        pod.setSpec(new PodSpec());
      }
      var facts = ApiMapping.pod(pod, byName.get(pod.getMetadata().getNamespace()), claims);
      String note = null;
      if (pod.getStatus() == null || pod.getStatus().getQosClass() == null) {
        // The API server always sets it; a hand-written file may not. The agent's default applies.
        note =
            "status.qosClass is missing: taken as "
                + facts.qosClass().kubernetesName()
                + ", which decides the cgroup path";
      }
      lines.add(
          Line.of(pass.run(facts, nodeFacts, policies), facts.qosClass().kubernetesName(), note));
    }
    for (LedgerEntry entry : ledger.entries()) {
      if (!present.contains(entry.uid())) {
        lines.add(
            Line.of(
                pass.revertAbsent(entry, "the pod is not among the objects any more"), null, null));
      }
    }
    // After the pods: the slice weights follow the weights the pod passes left in the kernel.
    return new Report(
        nodeFacts.name(),
        engine.layout().map(l -> l.kubepodsPath()).orElse(null),
        engine.layoutProblem(),
        lines,
        sliceStep.run());
  }

  private static Line brief(Pod pod, String result, boolean ok, String why) {
    var meta = pod.getMetadata();
    String qos = pod.getStatus() == null ? null : pod.getStatus().getQosClass();
    return new Line(
        meta.getNamespace(), meta.getName(), meta.getUid(), qos, result, ok, why, Optional.empty());
  }
}
