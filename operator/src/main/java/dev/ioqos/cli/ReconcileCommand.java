package dev.ioqos.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ioqos.agent.ObjectsPass;
import dev.ioqos.agent.ObjectsPass.Line;
import dev.ioqos.agent.ObjectsPass.Report;
import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.ClaimLookup;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.policy.LatencyLoop;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.node.LatencyLoopStep;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.LoopLedger;
import dev.ioqos.node.NodeEngine;
import dev.ioqos.node.SliceLedger;
import dev.ioqos.node.StateDirLock;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ioqos reconcile --objects DIR}: runs the agent's own pod pass ({@link
 * dev.ioqos.node.PodPass}) once over Pods and IoPolicies read from files on this node, without an
 * API server (a node-debugging tool, and how the kernel tests drive the agent's code). Named {@code
 * apply} before; that name stays as an alias, but it read like {@code kubectl apply}, which it is
 * not: it changes cgroups of this node, nothing in the cluster.
 */
@Command(
    name = "reconcile",
    aliases = "apply",
    mixinStandardHelpOptions = true,
    description = {
      "Reconcile Pod, IoPolicy, Namespace, Node and PersistentVolumeClaim objects from YAML/JSON files once on this node,"
          + " without an API server, as the agent would, and print the outcome per pod.",
      "Pods in the ledger (--state-dir) that are not among the objects are reverted.",
      "Then the QoS slices' weights are set so that tier weights hold across QoS classes."
    })
final class ReconcileCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeOptions node;

  @Option(
      names = "--objects",
      required = true,
      description =
          "directory of *.yaml, *.yml and *.json files (multi-document YAML and List kinds work)")
  Path objects;

  @Option(
      names = "--node-name",
      defaultValue = "${env:NODE_NAME}",
      description =
          "this node's name; pods bound to another node are left alone (default: $NODE_NAME, else"
              + " the one Node object among the files, else every pod is taken as this node's)")
  String nodeName;

  @Option(
      names = "--state-dir",
      defaultValue = "/var/lib/ioqos",
      description = "where the ledger of written values lives (default: ${DEFAULT-VALUE})")
  Path stateDir;

  @Option(names = "--dry-run", description = "compute and report, write nothing")
  boolean dryRun;

  @Option(
      names = "--loop-for",
      defaultValue = "0",
      description =
          "after the pass, run the agent's latency loop (kernels without io.latency) for this many"
              + " seconds, printing each period's figures, then restore the static values"
              + " (default: ${DEFAULT-VALUE}: no loop)")
  double loopFor;

  @Option(
      names = "--ignore-lock",
      description =
          "write the ledger even while another process (a running agent) holds --state-dir;"
              + " without it such a directory is refused")
  boolean ignoreLock;

  @Option(
      names = "--output",
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE})")
  String output;

  /** The objects read from the directory. */
  record ObjectFiles(
      List<Pod> pods,
      List<IoPolicy> policies,
      List<Namespace> namespaces,
      List<Node> nodes,
      List<PersistentVolumeClaim> claims,
      List<String> ignored) {}

  @Override
  public Integer call() {
    if (!output.equals("text") && !output.equals("json")) {
      throw new IllegalArgumentException("--output must be text or json, not '" + output + "'");
    }
    ObjectFiles read = read(objects);
    String name = nodeName(read.nodes());
    Node self =
        read.nodes().stream()
            .filter(n -> n.getMetadata().getName().equals(name))
            .findFirst()
            .orElse(null);
    List<String> ignored = new ArrayList<>(read.ignored());
    List<PolicyRules> rules =
        ApiMapping.usableRules(read.policies(), unusable -> ignored.add(unusable.getMessage()));
    NodeEngine engine = node.engine();
    Report report;
    Ledger ledger;
    try (StateDirLock lock = ignoreLock ? null : StateDirLock.acquire(stateDir)) {
      ledger = Ledger.open(stateDir);
      report =
          new ObjectsPass(engine, ledger, SliceLedger.open(stateDir), dryRun)
              .run(name, self, read.pods(), rules, read.namespaces(), claims(read.claims()));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (output.equals("json")) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("node", report.node());
      json.put("kubepodsPath", report.kubepodsPath());
      report.layoutProblem().ifPresent(problem -> json.put("layoutProblem", problem));
      json.put("stateDir", stateDir.toString());
      json.put("dryRun", dryRun);
      json.put("policies", rules.stream().map(PolicyRules::name).toList());
      json.put("ignored", ignored);
      json.put("ok", report.ok());
      json.put(
          "pods",
          report.pods().stream()
              .map(
                  line ->
                      OutcomeRendering.json(
                          line,
                          line.uid() == null ? Optional.empty() : ledger.get(line.uid()),
                          dryRun))
              .toList());
      json.put("qosSlices", SliceRendering.json(report.slices()));
      try {
        out.println(
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      out.print(text(report, rules, ignored));
    }
    out.flush();
    if (loopFor > 0) {
      runLoop(engine, report, out);
    }
    List<Line> bad = report.pods().stream().filter(p -> !p.ok()).toList();
    if (!bad.isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "ioqos reconcile: "
                  + bad.size()
                  + " of "
                  + report.pods().size()
                  + " pods do not hold their values: "
                  + bad.stream()
                      .map(p -> p.namespace() + "/" + p.name() + " " + p.result())
                      .collect(Collectors.joining(", ")));
      return 1;
    }
    if (!report.slices().failures().isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "ioqos reconcile: the kernel refused QoS slice weights: "
                  + report.slices().failures().get(0).getMessage());
      return 1;
    }
    return 0;
  }

  /**
   * The agent's latency loop over the pass's pods for {@code --loop-for} seconds: one line per
   * period and disk ({@code loop t=MILLIS disk=... read_us=... write_us=...} followed by each pod's
   * {@code NAME=latency/target} or {@code NAME=throttled:SCALE}), the Events it would post, then
   * the static values back and the CPU time the loop's periods took.
   */
  private void runLoop(NodeEngine engine, Report report, PrintWriter out) {
    LatencyLoopStep loop =
        new LatencyLoopStep(
            engine, LoopLedger.open(stateDir), dryRun, LatencyLoop.Parameters.DEFAULT);
    loop.restoreRecorded().forEach(line -> out.println("loop restored " + line));
    report.pods().forEach(line -> line.outcome().ifPresent(loop::update));
    out.println(
        "loop start needed="
            + loop.needed()
            + " disks="
            + loop.protectedDisks().stream().map(d -> d.name()).toList()
            + " members="
            + loop.members().size());
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long period = LatencyLoop.Parameters.DEFAULT.periodMillis();
    long start = System.nanoTime();
    long cpu = 0;
    long ticks = 0;
    long end = start + (long) (loopFor * 1e9);
    java.util.Map<String, String> names = new java.util.HashMap<>();
    loop.members().forEach(m -> names.put(m.uid(), m.name()));
    while (System.nanoTime() < end) {
      long cpuBefore = threads.getCurrentThreadCpuTime();
      LatencyLoopStep.Report tick = loop.tick();
      cpu += threads.getCurrentThreadCpuTime() - cpuBefore;
      ticks++;
      long t = (System.nanoTime() - start) / 1_000_000;
      for (LatencyLoopStep.DiskReport disk : tick.disks()) {
        StringBuilder line =
            new StringBuilder(
                "loop t="
                    + t
                    + " at="
                    + System.currentTimeMillis()
                    + " disk="
                    + disk.disk().name());
        line.append(" read_us=").append(micros(disk.result().diskReadMicros()));
        line.append(" write_us=").append(micros(disk.result().diskWriteMicros()));
        for (LatencyLoop.PodState pod : disk.result().pods()) {
          line.append(' ').append(names.getOrDefault(pod.uid(), pod.uid())).append('=');
          if (pod.latencyTargetMicros().isPresent()) {
            line.append(micros(pod.latencyMicros()))
                .append('/')
                .append(pod.latencyTargetMicros().getAsLong());
          } else {
            line.append(pod.throttled() ? "throttled:" : "free:")
                .append(String.format(java.util.Locale.ROOT, "%.2f", pod.scale()));
          }
        }
        disk.failures().forEach(e -> out.println("loop failure " + e.getMessage()));
        out.println(line);
      }
      for (LatencyLoopStep.Transition transition : tick.transitions()) {
        out.println(
            "loop t="
                + t
                + " event "
                + transition.event().reason().text()
                + " pod="
                + transition.pod().name()
                + " io.max "
                + transition.line());
      }
      out.flush();
      long sleep = period - (System.nanoTime() - start) / 1_000_000 % period;
      try {
        Thread.sleep(sleep);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    loop.restoreAll().forEach(line -> out.println("loop restored " + line));
    double seconds = (System.nanoTime() - start) / 1e9;
    out.println(
        String.format(
            java.util.Locale.ROOT,
            "loop end periods=%d seconds=%.1f loop_cpu_ms=%.1f cpu_share=%.4f",
            ticks,
            seconds,
            cpu / 1e6,
            cpu / 1e9 / seconds));
    out.flush();
  }

  private static String micros(java.util.OptionalDouble value) {
    return value.isPresent() ? String.valueOf(Math.round(value.getAsDouble())) : "-";
  }

  private String nodeName(List<Node> nodes) {
    if (nodeName != null && !nodeName.isBlank()) {
      return nodeName.strip();
    }
    return nodes.size() == 1 ? nodes.get(0).getMetadata().getName() : null;
  }

  /** Reads every object file of the directory, sorted by name. */
  static ObjectFiles read(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--objects " + dir + " is not a directory");
    }
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files =
          walk.filter(Files::isRegularFile)
              .filter(
                  f -> {
                    String n = f.getFileName().toString();
                    return n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json");
                  })
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
    ObjectFiles read =
        new ObjectFiles(
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>());
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    for (Path file : files) {
      List<JsonNode> documents = new ArrayList<>();
      try (MappingIterator<JsonNode> docs =
          yaml.readerFor(JsonNode.class).readValues(file.toFile())) {
        while (docs.hasNext()) {
          JsonNode doc = docs.next();
          if (doc == null || doc.isNull() || doc.isMissingNode() || doc.isEmpty()) {
            continue;
          }
          if (doc.path("kind").asText().endsWith("List") && doc.path("items").isArray()) {
            doc.path("items").forEach(documents::add);
          } else {
            documents.add(doc);
          }
        }
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "cannot read " + file + ": " + firstLine(e.getMessage()), e);
      }
      for (JsonNode doc : documents) {
        add(read, file, doc);
      }
    }
    return read;
  }

  /** The claims among the files, for pods' podVolumes: each bound claim's PV by its name. */
  private static ClaimLookup claims(List<PersistentVolumeClaim> claims) {
    return (podUid, namespace, claimName) ->
        claims.stream()
            .filter(c -> c.getMetadata() != null && c.getSpec() != null)
            .filter(c -> namespace.equals(c.getMetadata().getNamespace()))
            .filter(c -> claimName.equals(c.getMetadata().getName()))
            .map(c -> c.getSpec().getVolumeName())
            .filter(volume -> volume != null && !volume.isBlank())
            .findFirst();
  }

  private static void add(ObjectFiles read, Path file, JsonNode doc) {
    String kind = doc.path("kind").asText("");
    String apiVersion = doc.path("apiVersion").asText("");
    String name = doc.path("metadata").path("name").asText("");
    String what = kind + " " + name + " in " + file.getFileName();
    try {
      String json = doc.toString();
      if (kind.equals("Pod") && apiVersion.equals("v1")) {
        Pod pod = Serialization.unmarshal(json, Pod.class);
        if (pod.getMetadata() == null
            || pod.getMetadata().getName() == null
            || pod.getMetadata().getNamespace() == null) {
          throw new IllegalArgumentException(
              "a Pod in " + file + " needs metadata.name and metadata.namespace");
        }
        read.pods().add(pod);
      } else if (kind.equals("IoPolicy") && apiVersion.equals("ioqos.dev/v1alpha1")) {
        read.policies().add(Serialization.unmarshal(json, IoPolicy.class));
      } else if (kind.equals("Namespace") && apiVersion.equals("v1")) {
        read.namespaces().add(Serialization.unmarshal(json, Namespace.class));
      } else if (kind.equals("Node") && apiVersion.equals("v1")) {
        read.nodes().add(Serialization.unmarshal(json, Node.class));
      } else if (kind.equals("PersistentVolumeClaim") && apiVersion.equals("v1")) {
        read.claims().add(Serialization.unmarshal(json, PersistentVolumeClaim.class));
      } else {
        read.ignored()
            .add(
                what.strip()
                    + ": not a v1 Pod, Namespace, Node or PersistentVolumeClaim, nor an IoPolicy");
      }
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot read " + what + ": " + firstLine(e.getMessage()), e);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static String text(Report report, List<PolicyRules> rules, List<String> ignored) {
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            "node:     %s (kubepods %s)%n",
            report.node(),
            report.kubepodsPath() != null
                ? report.kubepodsPath()
                : "not found: " + report.layoutProblem().orElse("")));
    text.append(
        String.format(
            "policies: %s%n",
            rules.isEmpty()
                ? "none"
                : rules.stream().map(PolicyRules::name).collect(Collectors.joining(", "))));
    ignored.forEach(line -> text.append(String.format("ignored:  %s%n", line)));
    report.pods().forEach(line -> text.append(OutcomeRendering.text(line)));
    text.append(SliceRendering.text(report.slices()));
    return text.toString();
  }
}
