package dev.ioqos.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.cli.Main;
import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.PodUid;
import dev.ioqos.core.QosClass;
import dev.ioqos.metrics.AgentMetrics;
import dev.ioqos.metrics.TierState;
import dev.ioqos.probe.CapabilityProbe;
import dev.ioqos.probe.NodeCapabilities;
import dev.ioqos.testing.Fixtures;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Fails when the documentation under {@code src/site/markdown} falls behind the code: a field of
 * the CRDs missing from the API reference, a metric the agent exports missing from the metrics
 * reference, or a command or option of {@code ioqos} documented nowhere in the site.
 */
public class DocsCoverageTest {
  // Surefire runs in the module directory (operator/).
  private static final Path SITE = Path.of("..", "src", "site", "markdown");
  private static final Path CRDS = Path.of("..", "crds");
  private static final Pattern TYPE_LINE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");
  private static final String POD = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

  @TempDir Path temp;

  @Test
  void everyCrdFieldIsInTheApiReference() throws IOException {
    String reference = page("api-reference.md");
    Set<String> fields = new TreeSet<>();
    for (Path crd : crdFiles()) {
      fields.addAll(fieldPaths(crd));
    }
    // Both kinds, spec and status: the walk must have found the schema, not an empty tree.
    assertThat(fields)
        .as("field paths read from %s", CRDS)
        .contains(
            "IoPolicy spec.tiers[].limits.readBytesPerSecond",
            "IoPolicy status.nodes.selected",
            "IoNodeState status.devices[].weightMechanism",
            "IoNodeState status.policies[].conflictingPolicies");

    List<String> missing =
        fields.stream()
            .filter(
                field -> {
                  int space = field.indexOf(' ');
                  String kind = field.substring(0, space);
                  return !section(reference, kind).contains("`" + field.substring(space + 1) + "`");
                })
            .toList();
    assertThat(missing)
        .as(
            "CRD fields (kind path) not written as `path` in the '## KIND' section of"
                + " src/site/markdown/api-reference.md; document each one")
        .isEmpty();
  }

  @Test
  void everyAgentMetricIsInTheMetricsReference() {
    String reference = page("metrics.md");
    Map<String, String> families = scrapeFamilies();
    Set<String> ioqos =
        families.keySet().stream()
            .filter(name -> name.startsWith("ioqos_"))
            .collect(Collectors.toCollection(TreeSet::new));
    // Per pod, per disk, applied values, applies and node: the fixture must have produced them.
    assertThat(ioqos)
        .as("metric families the agent exported over the fixture node")
        .contains(
            "ioqos_pod_io_read_bytes_total",
            "ioqos_pod_io_pressure_stalled_seconds_total",
            "ioqos_pod_io_max_iops",
            "ioqos_pod_tier_applied",
            "ioqos_apply_total",
            "ioqos_node_capability",
            "ioqos_node_io_pressure_waiting_seconds_total");

    List<String> missing =
        ioqos.stream().filter(name -> !reference.contains("`" + name + "`")).toList();
    assertThat(missing)
        .as("metrics the agent exports that src/site/markdown/metrics.md does not list as `name`")
        .isEmpty();

    // Library meters (JVM, process, system) may be referenced as a group, e.g. `jvm_*`.
    Set<String> groups =
        families.keySet().stream()
            .filter(name -> !name.startsWith("ioqos_"))
            .map(name -> name.substring(0, name.indexOf('_') + 1) + "*")
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(groups).as("library meter groups").isNotEmpty();
    List<String> missingGroups =
        groups.stream().filter(group -> !reference.contains("`" + group + "`")).toList();
    assertThat(missingGroups)
        .as("groups of library meters that src/site/markdown/metrics.md does not name")
        .isEmpty();
    // JOSDK's meters exist only once the operator runs; the page must still name them.
    assertThat(reference).contains("`operator_sdk_*`");
  }

  @Test
  void everyCommandAndOptionIsInTheSite() {
    CommandLine main = new CommandLine(new Main());
    assertThat(main.getSubcommands())
        .as("subcommands of ioqos")
        .containsKeys("run", "aggregate", "probe");

    assertThat(undocumented(main))
        .as(
            "commands (as `ioqos NAME`) and options (as `--option`) documented nowhere in"
                + " src/site/markdown")
        .isEmpty();
  }

  /**
   * The subcommands (as {@code ioqos NAME}) and options (as {@code `--option}) of {@code root} that
   * no page of the site mentions; public for the demo jar's command, which lives in another module
   * (run from a module directory beside operator/).
   */
  public static List<String> undocumented(CommandLine root) {
    String site = wholeSite();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, CommandLine> command : root.getSubcommands().entrySet()) {
      if (!mentions(site, "ioqos " + command.getKey())) {
        missing.add("ioqos " + command.getKey());
      }
      for (OptionSpec option : command.getValue().getCommandSpec().options()) {
        if (option.usageHelp() || option.versionHelp()) {
          continue;
        }
        String longest = option.longestName();
        if (!mentions(site, "`" + longest)) {
          missing.add("ioqos " + command.getKey() + " " + longest);
        }
      }
    }
    return missing;
  }

  /** Every property path under spec and status, e.g. {@code spec.tiers[].name}, with its kind. */
  private static Set<String> fieldPaths(Path crdFile) throws IOException {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(crdFile)) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    String kind = crd.getSpec().getNames().getKind();
    Set<String> paths = new TreeSet<>();
    for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
      Map<String, JSONSchemaProps> top = version.getSchema().getOpenAPIV3Schema().getProperties();
      for (String root : List.of("spec", "status")) {
        JSONSchemaProps schema = top.get(root);
        if (schema != null) {
          walk(kind, root, schema, paths);
        }
      }
    }
    return paths;
  }

  private static void walk(String kind, String path, JSONSchemaProps schema, Set<String> paths) {
    if (schema.getProperties() != null) {
      for (Map.Entry<String, JSONSchemaProps> property : schema.getProperties().entrySet()) {
        String child = path + "." + property.getKey();
        paths.add(kind + " " + child);
        walk(kind, child, property.getValue(), paths);
      }
    }
    if (schema.getItems() != null && schema.getItems().getSchema() != null) {
      walk(kind, path + "[]", schema.getItems().getSchema(), paths);
    }
  }

  /**
   * The families the agent's registry renders over the Debian 6.12 fixture node with one managed
   * pod whose ledger holds a weight and every io.max key: name to type.
   */
  private Map<String, String> scrapeFamilies() {
    Path node = Fixtures.copy("node/debian-6.12-systemd", temp);
    Path cgroupfs = node.resolve("cgroup");
    PodCgroupLayout layout = PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/");
    NodeCapabilities capabilities =
        new CapabilityProbe(cgroupfs, node.resolve("sys"), node.resolve("proc"))
            .probe(Optional.of(layout));
    IoSettings applied =
        new IoSettings(
            OptionalInt.of(500),
            OptionalInt.of(300),
            Map.of(
                DeviceId.parse("254:0"),
                IoLimits.NONE
                    .with(IoLimits.Key.RBPS, 52_428_800L)
                    .with(IoLimits.Key.WBPS, 20_971_520L)
                    .with(IoLimits.Key.RIOPS, 1000L)
                    .with(IoLimits.Key.WIOPS, 200L)),
            Map.of());
    try (AgentMetrics metrics =
        new AgentMetrics(
            () -> capabilities,
            () -> Optional.of(new CgroupTree(cgroupfs, layout.kubepodsPath())),
            uid -> uid.equals(POD) ? applied : IoSettings.NONE,
            node.resolve("sys"),
            node.resolve("proc"))) {
      metrics
          .pods()
          .managed(
              POD,
              "shop",
              "backup",
              "low",
              layout.podPath(QosClass.BURSTABLE, PodUid.of(POD)),
              TierState.APPLIED);
      String text = metrics.scrape();
      Map<String, String> families = new java.util.TreeMap<>();
      Matcher matcher = TYPE_LINE.matcher(text);
      while (matcher.find()) {
        families.put(matcher.group(1), matcher.group(2));
      }
      return families;
    }
  }

  /**
   * True when {@code text} holds {@code name} not followed by more of a name ({@code -x}, {@code
   * x}).
   */
  private static boolean mentions(String text, String name) {
    return Pattern.compile(Pattern.quote(name) + "(?![-A-Za-z0-9])").matcher(text).find();
  }

  /** The text of a page from the heading {@code ## title} to the next second-level heading. */
  private static String section(String page, String title) {
    Matcher start = Pattern.compile("(?m)^## " + Pattern.quote(title) + "\\s*$").matcher(page);
    if (!start.find()) {
      return "";
    }
    Matcher next = Pattern.compile("(?m)^## ").matcher(page);
    int end = next.find(start.end()) ? next.start() : page.length();
    return page.substring(start.end(), end);
  }

  private static List<Path> crdFiles() throws IOException {
    try (Stream<Path> files = Files.list(CRDS)) {
      List<Path> crds = files.filter(f -> f.toString().endsWith(".yml")).sorted().toList();
      assertThat(crds).as("CRD files in %s", CRDS).hasSizeGreaterThanOrEqualTo(2);
      return crds;
    }
  }

  private static String page(String name) {
    try {
      return Files.readString(SITE.resolve(name));
    } catch (IOException e) {
      throw new AssertionError("cannot read the site page " + SITE.resolve(name), e);
    }
  }

  private static String wholeSite() {
    try (Stream<Path> files = Files.list(SITE)) {
      List<Path> pages = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
      assertThat(pages).as("pages in %s", SITE).isNotEmpty();
      StringBuilder all = new StringBuilder();
      for (Path page : pages) {
        all.append(Files.readString(page)).append('\n');
      }
      return all.toString();
    } catch (IOException e) {
      throw new AssertionError("cannot read the site pages in " + SITE, e);
    }
  }
}
