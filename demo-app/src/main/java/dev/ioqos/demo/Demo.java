package dev.ioqos.demo;

import dev.ioqos.agent.Agent;
import dev.ioqos.agent.AgentConfig;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.metrics.MetricsServer;
import dev.ioqos.node.LedgerEntry;
import dev.ioqos.testkit.ControlPlaneBinaries;
import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.IoqosCrds;
import dev.ioqos.testkit.LocalControlPlane;
import dev.ioqos.testkit.MetricLine;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code ioqos demo}: a real etcd and kube-apiserver, the repository's CRDs, a node, a policy and
 * three pods, the real agent in this process on a sandbox node tree (or this host's cgroups), and
 * what it wrote, read back; then a tier change, the metrics and the revert when the policy goes.
 */
public final class Demo {
  static final int STEPS = 7;

  private final DemoOptions options;
  private final PrintWriter out;
  private final Cleanup cleanup = new Cleanup();

  public Demo(DemoOptions options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  /** Runs the demo; every check that can refuse runs before anything is started. */
  public void run() throws IOException {
    if (options.realCgroups()) {
      HostCgroupNode.requireUsable(options.cgroupfs(), options.sysfs(), options.procfs());
    }
    ControlPlaneBinaries binaries =
        ControlPlaneBinaries.locate(options.binaries(), ControlPlaneBinaries.jvmArch());
    Path temp = Files.createTempDirectory(options.tempParent(), "ioqos-demo-");
    cleanup.deleteLater(temp);
    Thread onInterrupt = new Thread(cleanup::run, "ioqos-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(onInterrupt);
    try {
      run(binaries, temp);
    } finally {
      List<String> problems = cleanup.run();
      try {
        Runtime.getRuntime().removeShutdownHook(onInterrupt);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is exiting (a signal): the hook has run the cleanup already.
      }
      if (problems.isEmpty()) {
        out.println("Stopped the agent, kube-apiserver and etcd; removed " + temp + ".");
      } else {
        out.println("Stopped, with problems: " + String.join("; ", problems));
      }
      out.flush();
    }
  }

  private void run(ControlPlaneBinaries binaries, Path temp) throws IOException {
    out.println(
        "ioqos demo: a real Kubernetes API server and the real ioqos agent, on "
            + (options.realCgroups() ? "this host's cgroups." : "a simulated node."));
    out.println();

    step(1, "Control plane: starting etcd and kube-apiserver " + binaries.version());
    out.print("      from " + binaries.binDir() + " ");
    out.flush();
    long started = System.nanoTime();
    LocalControlPlane controlPlane =
        cleanup.add(
            "stop kube-apiserver and etcd",
            LocalControlPlane.start(
                binaries,
                () -> {
                  out.print('.');
                  out.flush();
                }));
    out.printf(" ready in %.1f s%n", (System.nanoTime() - started) / 1e9);
    KubernetesClient client = cleanup.add("close the client", controlPlane.newClient());

    step(2, "CRDs from the jar (the repository's crds/), applied server-side:");
    out.println(
        "      " + String.join(", ", IoqosCrds.install(client, "ioqos-demo")) + ": Established");

    DemoNode node =
        cleanup.add(
            "remove the demo's pod cgroups",
            options.realCgroups()
                ? new HostCgroupNode(
                    options.cgroupfs(),
                    options.sysfs(),
                    options.procfs(),
                    options.devfs(),
                    options.hostKubeletRootDir())
                : new SandboxDemoNode(temp.resolve("node")));
    DemoCluster cluster = new DemoCluster(client);
    step(3, "Node " + DemoCluster.NODE + ": " + node.description());
    cluster.createNodeAndNamespace();
    cluster.createPolicy();
    out.println("      IoPolicy, accepted by the API server's CRD schema validation:");
    DemoCluster.POLICY_YAML.lines().forEach(line -> out.println("        " + line));
    out.println(
        "      Pods in namespace "
            + DemoCluster.NAMESPACE
            + ", bound to the node, set Running and given cgroups as kubelet would:");
    List<DemoPod> pods = new ArrayList<>();
    pods.add(createPod(cluster, node, "database", "high"));
    pods.add(createPod(cluster, node, "backup", "low"));
    pods.add(createPod(cluster, node, "web", null));

    step(4, "Agent: the real ioqos agent, in this process, for node " + DemoCluster.NODE);
    KubernetesClient agentClient =
        cleanup.add("close the agent's client", controlPlane.newClient());
    Agent agent =
        cleanup.add(
            "stop the agent",
            new Agent(
                new AgentConfig(
                    DemoCluster.NODE,
                    node.config(),
                    temp.resolve("state"),
                    false,
                    Duration.ofSeconds(5)),
                agentClient));
    MetricsServer server =
        cleanup.add(
            "stop the metrics server",
            MetricsServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                agent.metrics(),
                agent::ready));
    MetricsScrape metrics = new MetricsScrape(server.port());
    agent.start();
    out.println("      metrics, health and readiness on " + metrics.url());
    String disks = disks(agent, false);
    out.println(
        "      the policy's disk(s), those under kubelet's root dir: " + disks(agent, true));
    awaitTiers(metrics, pods, Map.of("database", "high", "backup", "low", "web", "standard"));
    out.println("      applied; each pod's cgroup files read back:");
    out.print(ReadbackTable.render(pods, tierOf(agent), disks));

    step(5, "Metrics: GET " + metrics.url() + ", the ioqos_pod_* lines of the demo's pods");
    boolean simulated = false;
    int scale = 1;
    for (DemoPod pod : pods) {
      simulated |= node.simulateIo(pod.dir(), scale++);
    }
    if (simulated) {
      out.println(
          "      (io.stat and io.pressure hold numbers the demo wrote, as a kernel counts them)");
      metrics.awaitNonZero(pods, "ioqos_pod_io_written_bytes_total");
    } else {
      out.println("      (io counters are the kernel's: the demo's pods run no processes)");
    }
    metrics.podLines(pods).forEach(line -> out.println("      " + line.text()));

    step(
        6,
        "Tier change: kubectl annotate pod backup "
            + DemoCluster.TIER_ANNOTATION
            + "=high --overwrite");
    cluster.setTier("backup", "high");
    awaitTiers(metrics, pods, Map.of("database", "high", "backup", "high", "web", "standard"));
    out.print(ReadbackTable.render(pods, tierOf(agent), disks));

    step(7, "Policy deleted: kubectl delete iopolicy " + DemoCluster.POLICY);
    cluster.deletePolicy();
    Eventually.until(
        "the agent to restore the defaults of every pod",
        () -> pods.stream().allMatch(p -> agent.ledger().get(p.uid()).isEmpty()));
    out.println("      no policy selects the pods: the agent restored what it had changed");
    out.print(ReadbackTable.render(pods, tierOf(agent), disks));
    out.println("      the agent's Events on the pods:");
    for (DemoPod pod : pods) {
      out.println(
          "        " + pod.name() + ": Reverted: " + cluster.awaitEvent(pod.name(), "Reverted"));
    }

    out.println();
    out.println(
        "Real: etcd and kube-apiserver "
            + binaries.version()
            + ", CRD schema validation of the IoPolicy, the agent (informers, policy resolution,"
            + " planner, writes and read-back, ledger, revert, /metrics over HTTP).");
    out.println(
        options.realCgroups()
            ? "Simulated: no kubelet and no containers: the demo set the pods Running and created"
                + " their cgroups (real ones, under "
                + HostCgroupNode.CGROUP_ROOT
                + ", removed now)."
            : "Simulated: no kubelet and no containers: the demo set the pods Running and created"
                + " their cgroups; the node is a directory of plain files shaped like a 6.12"
                + " kernel's, not a kernel, so nothing throttled real I/O."
                + " See ioqos demo --kernel for a real kernel.");
  }

  private DemoPod createPod(DemoCluster cluster, DemoNode node, String name, String tier) {
    Pod pod = cluster.createRunningPod(name, tier);
    String uid = pod.getMetadata().getUid();
    Path dir = node.createPod(uid, DemoCluster.qosClass(pod));
    String cgroupPath = "/" + node.config().cgroupfs().relativize(dir);
    out.printf(
        "        %-9s %s%n",
        name,
        tier == null
            ? "no annotation: the policy's defaultTier"
            : DemoCluster.TIER_ANNOTATION + "=" + tier);
    return new DemoPod(name, tier, uid, cgroupPath, dir);
  }

  private static String disks(Agent agent, boolean detail) {
    List<DiskFacts> disks = agent.engine().resolve(List.of()).disks();
    if (disks.isEmpty()) {
      return "(none found)";
    }
    return disks.stream()
        .map(
            d ->
                d.name()
                    + " "
                    + d.id()
                    + (detail
                        ? " (scheduler "
                            + d.scheduler()
                            + ", weights enforced by "
                            + d.weightMechanism()
                            + ")"
                        : ""))
        .collect(Collectors.joining(", "));
  }

  private static java.util.function.Function<String, String> tierOf(Agent agent) {
    return uid -> agent.ledger().get(uid).map(LedgerEntry::tier).orElse("(none)");
  }

  private void awaitTiers(MetricsScrape metrics, List<DemoPod> pods, Map<String, String> tiers) {
    Eventually.until(
        "the agent to apply tiers " + tiers,
        () -> {
          List<MetricLine> lines = metrics.podLines(pods);
          return tiers.entrySet().stream()
              .allMatch(
                  t ->
                      lines.stream()
                          .anyMatch(
                              l ->
                                  l.name().equals("ioqos_pod_tier_applied")
                                      && l.label("pod").equals(t.getKey())
                                      && l.label("tier").equals(t.getValue())
                                      && l.value() == 1.0));
        });
  }

  private void step(int number, String title) {
    out.println();
    out.printf("[%d/%d] %s%n", number, STEPS, title);
    out.flush();
  }
}
