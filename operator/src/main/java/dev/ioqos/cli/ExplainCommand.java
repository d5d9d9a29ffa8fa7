package dev.ioqos.cli;

import dev.ioqos.agent.ClaimVolumes;
import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.cgroup.CgroupDir;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.WeightRange;
import dev.ioqos.core.policy.DesiredSettings;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.Skipped;
import dev.ioqos.core.policy.TierWarning;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.node.DiskSelection;
import dev.ioqos.node.NodeEngine;
import dev.ioqos.node.PodOutcome;
import dev.ioqos.node.PodPass;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ioqos explain --pod NS/NAME}: which policy and tier apply to a pod and why, which cgroup
 * and disks, and the desired values next to what the kernel holds now. Run it on the pod's node
 * (e.g. {@code kubectl exec} into the agent) to see current values; elsewhere it explains the
 * decision only.
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = "Explain which policy, tier and values a pod gets, and why.")
final class ExplainCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeOptions node;

  @Option(names = "--pod", required = true, description = "the pod as NAMESPACE/NAME")
  String pod;

  @Option(
      names = "--state-dir",
      defaultValue = "/var/lib/ioqos",
      description =
          "the agent's state directory, read only for the QoS slices' original weights (default:"
              + " ${DEFAULT-VALUE})")
  java.nio.file.Path stateDir;

  @Override
  public Integer call() {
    String[] parts = pod.split("/", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw new IllegalArgumentException("--pod must be NAMESPACE/NAME, not '" + pod + "'");
    }
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      Pod found = client.pods().inNamespace(parts[0]).withName(parts[1]).get();
      if (found == null) {
        throw new IllegalArgumentException("pod " + pod + " does not exist");
      }
      Namespace namespace = client.namespaces().withName(parts[0]).get();
      String nodeName = found.getSpec().getNodeName();
      NodeFacts nodeFacts =
          ApiMapping.node(
              nodeName, nodeName == null ? null : client.nodes().withName(nodeName).get());
      List<String> ignored = new ArrayList<>();
      List<PolicyRules> rules =
          ApiMapping.usableRules(
              client.resources(IoPolicy.class).list().getItems(),
              unusable -> ignored.add(unusable.getMessage()));
      explain(
          ApiMapping.pod(found, namespace, new ClaimVolumes(client)), nodeFacts, rules, ignored);
    }
    return 0;
  }

  private void explain(
      PodFacts facts, NodeFacts nodeFacts, List<PolicyRules> rules, List<String> ignored) {
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        "pod:      %s (uid %s, QoS %s, node %s)%n",
        facts.qualifiedName(), facts.uid(), facts.qosClass(), nodeFacts.name());
    ignored.forEach(line -> out.println("ignored:  " + line));
    NodeEngine engine = node.engine();
    // The agent's own pass, as a dry run without a ledger: it decides, locates and plans only.
    PodOutcome outcome = new PodPass(engine, null, true).run(facts, nodeFacts, rules);
    if (outcome.kind() == PodOutcome.Kind.INVALID_POD) {
      throw new IllegalArgumentException(outcome.problem());
    }
    PodDecision decision = outcome.decision().orElseThrow();
    if (decision.policy().isEmpty()) {
      out.println(
          "policy:   none selects this pod (node, namespace and pod selectors of "
              + rules.size()
              + " policies checked)");
      return;
    }
    PolicyRules policy = decision.policy().get();
    out.printf(
        "policy:   %s (priority %d%s)%n",
        policy.name(),
        policy.priority(),
        decision.conflictingPolicies().isEmpty()
            ? ""
            : "; tied with "
                + String.join(", ", decision.conflictingPolicies())
                + ", first name wins");
    for (TierWarning warning : decision.warnings()) {
      out.println("warning:  " + warning.message());
    }
    if (!decision.managed()) {
      out.println(
          "tier:     none (no annotation, fallback or defaultTier applies): nothing is written,"
              + " earlier values are restored to the defaults");
      return;
    }
    out.printf("tier:     %s (from %s)%n", decision.tier().get().name(), decision.source());
    out.printf("mode:     %s%n", decision.dryRun() ? "DryRun (nothing is written)" : "Enforce");
    Optional<String> path = outcome.cgroupPath();
    out.printf(
        "cgroup:   %s%n",
        path.map(p -> node.cgroupfs + p)
            .orElse("unknown: " + engine.layoutProblem().orElse("kubepods was not found")));
    DiskSelection disks = outcome.disks().orElseThrow();
    disks.volumes().forEach(v -> out.println("volume:   " + v.describe()));
    disks.disks().forEach(d -> out.print(OutcomeRendering.diskLine(d)));
    disks.problems().forEach(p -> out.println("problem:  " + p.message()));
    DesiredSettings desired = outcome.desired().orElseThrow();
    desired.settings().kernelLines().forEach(line -> out.println("desired:  " + line));
    for (Skipped skipped : desired.skipped()) {
      out.println("skipped:  " + skipped.reason());
    }
    Optional<CgroupTree> tree = engine.tree();
    if (path.isPresent() && tree.isPresent()) {
      current(out, engine, tree.get(), path.get(), disks, nodeFacts);
      // The slice step as a dry run: the shares this pod gets with and without slice management.
      dev.ioqos.node.QosSliceStep.Report slices =
          new dev.ioqos.node.QosSliceStep(
                  engine, dev.ioqos.node.SliceLedger.read(stateDir), null, true)
              .run();
      out.print(SliceRendering.text(slices));
      out.print(SliceRendering.podShares(slices, facts.uid()));
    }
  }

  /** What the kernel holds now, next to the desired values. */
  private static void current(
      PrintWriter out,
      NodeEngine engine,
      CgroupTree tree,
      String path,
      DiskSelection disks,
      NodeFacts nodeFacts) {
    try {
      CgroupDir dir = tree.below(path);
      out.println(
          "current:  io.weight "
              + engine.writer().readWeight(dir, WeightRange.IO_WEIGHT).toKernelText());
      if (disks.disks().stream().anyMatch(d -> d.weightMechanism() == WeightMechanism.BFQ)) {
        out.println(
            "current:  io.bfq.weight "
                + engine.writer().readWeight(dir, WeightRange.BFQ_WEIGHT).toKernelText());
      }
      out.println("current:  io.max " + engine.writer().readMax(dir).toKernelText());
    } catch (CgroupIoException e) {
      out.println(
          "current:  unknown here ("
              + e.failure().text()
              + "): run explain on node "
              + nodeFacts.name()
              + " to compare with the kernel");
    }
  }
}
