package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import dev.ioqos.testkit.IoqosCrds;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.xml.sax.SAXException;

/**
 * The Helm chart {@code charts/ioqos}: strict lint and rendering with default and non-default
 * values (embedded Helm through helm-java), the values that reach the agent's flags and
 * securityContext, its CRDs equal to {@code crds/}, and every rendered object accepted by the real
 * API server in a server-side apply dry run.
 */
class DeployChartIT {
  static final String RELEASE = "ioqos";
  static final String NAMESPACE = "ioqos-system";
  static final String ALT_NAMESPACE = "ioqos-alt";
  static final String FIELD_MANAGER = "ioqos-e2e";

  /** A Prometheus rule file like deploy/monitoring's, for the PrometheusRule. */
  static final String SAMPLE_RULES =
      """
      groups:
        - name: ioqos
          rules:
            - alert: IoqosApplyFailing
              expr: sum by (node) (rate(ioqos_apply_total{result!="applied"}[5m])) > 0
              for: 15m
              labels: {severity: warning}
              annotations: {summary: "ioqos cannot apply tiers on {{ $labels.node }}"}
      """;

  static final String RULES_FILE = "ioqos-alerts.rules.yml";
  static final String DASHBOARD_FILE = "grafana-dashboard.json";
  static final String SAMPLE_DASHBOARD = "{\"title\": \"ioqos\", \"panels\": []}";

  /** Every value changed from its default, as an admin with an unusual cluster would. */
  static final String NON_DEFAULT_VALUES =
      """
      image: {repository: registry.example.com/platform/ioqos, tag: 1.2.3, pullPolicy: Always}
      imagePullSecrets: [{name: regcred}]
      namespace: {create: true}
      agent:
        cgroupDriver: systemd
        kubeletCgroupRoot: /kubelet
        kubeletRootDir: /data/kubelet
        stateDir: /data/ioqos
        dryRun: true
        enableIocost: true
        resync: PT30S
        metricsPort: 9464
        jvmFlags: -XX:+UseSerialGC -XX:MaxRAMPercentage=60
        resources:
          requests: {cpu: 100m, memory: 256Mi}
          limits: {cpu: "1", memory: 512Mi}
        tolerations: [{key: dedicated, operator: Equal, value: storage, effect: NoSchedule}]
        seLinuxOptions: {type: spc_t}
        podAnnotations: {example.com/owner: platform}
      aggregator:
        replicas: 2
        leaseName: ioqos-leader
        leaseDuration: PT30S
        priorityClassName: system-cluster-critical
      metrics:
        serviceMonitor: {enabled: true, labels: {release: prometheus}}
        prometheusRule: {enabled: true, labels: {release: prometheus}}
        dashboard: {enabled: true}
      """;

  static KubernetesClient client;

  @BeforeAll
  static void connect() {
    TestCluster cluster = TestCluster.get();
    System.out.println("e2e cluster: " + cluster.kind());
    client = cluster.newClient();
  }

  @AfterAll
  static void disconnect() {
    client.close();
  }

  // --- shared with DeployManifestsIT and RbacIT ---

  /** The repository root; failsafe runs in {@code e2e/}. */
  static Path repo() {
    String base =
        Optional.ofNullable(System.getProperty("basedir")).orElse(System.getProperty("user.dir"));
    return Path.of(base).resolve("..").toAbsolutePath().normalize();
  }

  static Path chart() {
    return repo().resolve("charts/ioqos");
  }

  /** {@code helm template} of the chart as release {@value #RELEASE} in {@code namespace}. */
  static String template(Path chart, String namespace, Path valuesFile) {
    var command = new Helm(chart).template().withName(RELEASE).withNamespace(namespace);
    if (valuesFile != null) {
      command = command.withValuesFile(valuesFile);
    }
    return command.call();
  }

  static String template(String namespace, String valuesYaml) {
    if (valuesYaml == null) {
      return template(chart(), namespace, null);
    }
    try {
      Path file = Files.createTempFile("ioqos-values", ".yaml");
      try {
        Files.writeString(file, valuesYaml);
        return template(chart(), namespace, file);
      } finally {
        Files.delete(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The non-default values with deploy/monitoring's rule file and dashboard as {@code --set-file}
   * would pass them (a sample of each while that folder does not have them).
   */
  static String nonDefaultValues() {
    Map<String, Object> values = yamlMap(NON_DEFAULT_VALUES);
    Map<String, Object> metrics = child(values, "metrics");
    child(metrics, "prometheusRule").put("rules", monitoringFile(RULES_FILE, SAMPLE_RULES));
    child(metrics, "dashboard").put("json", monitoringFile(DASHBOARD_FILE, SAMPLE_DASHBOARD));
    return new KubernetesSerialization().asYaml(values);
  }

  static String monitoringFile(String name, String sample) {
    Path file = repo().resolve("deploy/monitoring").resolve(name);
    try {
      return Files.isRegularFile(file) ? Files.readString(file) : sample;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The objects of a multi-document YAML text; kinds without a model class stay generic. */
  static List<HasMetadata> parse(String yaml) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<HasMetadata> objects = new ArrayList<>();
    for (String document : yaml.split("(?m)^---\\s*$")) {
      boolean empty =
          document.lines().allMatch(line -> line.isBlank() || line.stripLeading().startsWith("#"));
      if (!empty) {
        objects.add(serialization.unmarshal(document, HasMetadata.class));
      }
    }
    return objects;
  }

  static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type, String name) {
    List<T> found =
        objects.stream()
            .filter(type::isInstance)
            .map(type::cast)
            .filter(o -> o.getMetadata().getName().equals(name))
            .toList();
    assertThat(found).as(type.getSimpleName() + " " + name).hasSize(1);
    return found.get(0);
  }

  static List<String> kinds(List<HasMetadata> objects) {
    return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
  }

  /** Installs the chart's CRDs for real and waits until they serve. */
  static void installCrds(KubernetesClient client) {
    try (Stream<Path> files = Files.list(chart().resolve("crds"))) {
      for (Path file : files.sorted().toList()) {
        try (var in = Files.newInputStream(file)) {
          IoqosCrds.install(client, in, FIELD_MANAGER);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void awaitEstablished(KubernetesClient client, String name) {
    IoqosCrds.awaitEstablished(client, name);
  }

  /** Creates a namespace for real (a dry run of a namespaced object needs it to exist). */
  static void ensureNamespace(KubernetesClient client, String name) {
    if (client.namespaces().withName(name).get() == null) {
      client
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .addToLabels("pod-security.kubernetes.io/enforce", "privileged")
                  .endMetadata()
                  .build())
          .create();
    }
  }

  /**
   * Server-side applies every object as a dry run and returns the failures, one line each; the
   * server runs defaulting, validation and admission (Pod Security, priority classes) on them.
   */
  static List<String> dryRunApply(KubernetesClient client, List<HasMetadata> objects) {
    List<String> failures = new ArrayList<>();
    for (HasMetadata object : objects) {
      try {
        HasMetadata answered =
            client.resource(object).dryRun().fieldManager(FIELD_MANAGER).serverSideApply();
        assertThat(answered.getMetadata().getManagedFields())
            .anyMatch(f -> FIELD_MANAGER.equals(f.getManager()));
      } catch (KubernetesClientException e) {
        failures.add(
            object.getKind() + "/" + object.getMetadata().getName() + ": " + e.getMessage());
      }
    }
    return failures;
  }

  /**
   * Stand-ins for prometheus-operator's ServiceMonitor and PrometheusRule CRDs (any content), so
   * that their objects' kind, group, version and namespace can be checked on a cluster without it.
   */
  static void installMonitoringStandIns(KubernetesClient client) {
    for (String[] kind :
        List.of(
            new String[] {"ServiceMonitor", "servicemonitors"},
            new String[] {"PrometheusRule", "prometheusrules"})) {
      String name = kind[1] + ".monitoring.coreos.com";
      if (client.apiextensions().v1().customResourceDefinitions().withName(name).get() != null) {
        continue;
      }
      String yaml =
          """
          apiVersion: apiextensions.k8s.io/v1
          kind: CustomResourceDefinition
          metadata: {name: %s}
          spec:
            group: monitoring.coreos.com
            scope: Namespaced
            names: {kind: %s, plural: %s, listKind: %sList}
            versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
          """
              .formatted(name, kind[0], kind[1], kind[0]);
      client
          .resource(
              client
                  .apiextensions()
                  .v1()
                  .customResourceDefinitions()
                  .load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
                  .item())
          .create();
      awaitEstablished(client, name);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> yamlMap(String yaml) {
    Map<String, Object> map = new KubernetesSerialization().unmarshal(yaml, Map.class);
    return map == null ? new LinkedHashMap<>() : new LinkedHashMap<>(map);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> child(Map<String, Object> map, String key) {
    Object value = map.get(key);
    Map<String, Object> copy =
        value instanceof Map<?, ?> m
            ? new LinkedHashMap<>((Map<String, Object>) m)
            : new LinkedHashMap<>();
    map.put(key, copy);
    return copy;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> override) {
    Map<String, Object> merged = new LinkedHashMap<>(base);
    override.forEach(
        (key, value) -> {
          Object existing = merged.get(key);
          if (existing instanceof Map<?, ?> a && value instanceof Map<?, ?> b) {
            merged.put(key, merge((Map<String, Object>) a, (Map<String, Object>) b));
          } else {
            merged.put(key, value);
          }
        });
    return merged;
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : paths.toList()) {
        Path target = to.resolve(from.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target);
        }
      }
    }
  }

  static String lintReport(LintResult result) {
    return String.join("\n", result.getMessages());
  }

  static void assertCleanLint(LintResult result) {
    assertThat(result.isFailed()).as(lintReport(result)).isFalse();
    assertThat(result.getMessages())
        .as("strict lint findings")
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }

  // --- lint and template ---

  @Test
  void lintIsCleanUnderStrictWithDefaultValues() {
    assertCleanLint(new Helm(chart()).lint().strict().call());
  }

  @Test
  void lintIsCleanUnderStrictWithNonDefaultValues(@TempDir Path temp) throws IOException {
    // helm-java's lint takes no values: lint a copy whose values.yaml holds the non-default ones.
    Path copy = temp.resolve("ioqos");
    copyTree(chart(), copy);
    Map<String, Object> values =
        merge(
            yamlMap(Files.readString(chart().resolve("values.yaml"))), yamlMap(nonDefaultValues()));
    Files.writeString(copy.resolve("values.yaml"), new KubernetesSerialization().asYaml(values));

    assertCleanLint(new Helm(copy).lint().strict().call());
    assertThat(parse(template(copy, NAMESPACE, null))).isNotEmpty();
  }

  @Test
  void chartCrdsAreTheGeneratedOnes() throws IOException {
    Map<String, String> generated = files(repo().resolve("crds"), ".yml");
    Map<String, String> inChart = files(chart().resolve("crds"), "");
    assertThat(inChart)
        .as(
            "charts/ioqos/crds/ differs from crds/ (the CRDs generated from the model); run"
                + " deploy/render to copy them")
        .isEqualTo(generated);
  }

  static Map<String, String> files(Path dir, String suffix) throws IOException {
    try (Stream<Path> list = Files.list(dir)) {
      Map<String, String> byName = new TreeMap<>();
      for (Path file : list.filter(f -> f.toString().endsWith(suffix)).toList()) {
        byName.put(file.getFileName().toString(), Files.readString(file));
      }
      return byName;
    }
  }

  @Test
  void defaultValuesRenderALeastPrivilegeAgentOnEveryNode() {
    List<HasMetadata> objects = parse(template(NAMESPACE, null));

    assertThat(kinds(objects))
        .containsExactlyInAnyOrder(
            "ServiceAccount/ioqos-agent",
            "ServiceAccount/ioqos-aggregator",
            "ClusterRole/ioqos-agent",
            "ClusterRole/ioqos-aggregator",
            "ClusterRole/ioqos-metrics-reader",
            "ClusterRoleBinding/ioqos-agent",
            "ClusterRoleBinding/ioqos-aggregator",
            "Role/ioqos-aggregator-leader-election",
            "RoleBinding/ioqos-aggregator-leader-election",
            "Service/ioqos-agent-metrics",
            "DaemonSet/ioqos-agent",
            "Deployment/ioqos-aggregator",
            "ValidatingAdmissionPolicy/ioqos-agent-own-node-state",
            "ValidatingAdmissionPolicyBinding/ioqos-agent-own-node-state");
    assertThat(objects)
        .filteredOn(
            o -> !o.getKind().startsWith("Cluster") && !o.getKind().startsWith("Validating"))
        .allMatch(o -> NAMESPACE.equals(o.getMetadata().getNamespace()));

    PodSpec pod = only(objects, DaemonSet.class, "ioqos-agent").getSpec().getTemplate().getSpec();
    Container agent = pod.getContainers().get(0);
    assertThat(agent.getArgs())
        .containsExactly(
            "run",
            "--cgroupfs=/host/sys/fs/cgroup",
            "--sysfs=/sys",
            "--procfs=/host/proc",
            "--devfs=/host/dev",
            "--cgroup-driver=auto",
            "--kubelet-cgroup-root=/",
            "--kubelet-root-dir=/var/lib/kubelet",
            "--state-dir=/var/lib/ioqos",
            "--resync=PT60S",
            "--metrics-port=8080",
            "--health-port=8081",
            "--metrics-secure");
    assertThat(agent.getEnv())
        .anyMatch(
            e ->
                e.getName().equals("NODE_NAME")
                    && e.getValueFrom().getFieldRef().getFieldPath().equals("spec.nodeName"));
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(pod.getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getOperator()).isEqualTo("Exists"));
    assertThat(pod.getHostPID()).isFalse();
    assertThat(pod.getHostNetwork()).isFalse();

    SecurityContext security = agent.getSecurityContext();
    assertThat(security.getPrivileged()).isFalse();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getReadOnlyRootFilesystem()).isTrue();
    assertThat(security.getRunAsUser()).isZero();
    assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();

    Map<String, VolumeMount> mounts =
        agent.getVolumeMounts().stream()
            .collect(Collectors.toMap(VolumeMount::getMountPath, m -> m));
    assertThat(mounts.keySet())
        .containsExactlyInAnyOrder(
            "/host/sys/fs/cgroup", "/host/proc", "/host/dev", "/var/lib/ioqos", "/tmp");
    assertThat(mounts.get("/host/sys/fs/cgroup").getReadOnly()).isNotEqualTo(Boolean.TRUE);
    assertThat(mounts.get("/host/proc").getReadOnly()).isTrue();
    assertThat(mounts.get("/host/dev").getReadOnly()).isTrue();
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getHostPath() != null)
        .extracting(v -> v.getHostPath().getPath())
        .containsExactlyInAnyOrder("/sys/fs/cgroup", "/proc", "/dev", "/var/lib/ioqos");

    assertThat(agent.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(agent.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    // The probes on a port of their own: scrapers cannot delay them.
    assertThat(agent.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
    assertThat(agent.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
    assertThat(agent.getStartupProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
    assertThat(agent.getPorts())
        .extracting(p -> p.getName() + "=" + p.getContainerPort())
        .containsExactly("metrics=8080", "health=8081");
    assertThat(agent.getResources().getLimits()).containsKeys("cpu", "memory");
    assertThat(agent.getResources().getRequests()).containsKeys("cpu", "memory");

    Deployment aggregator = only(objects, Deployment.class, "ioqos-aggregator");
    assertThat(aggregator.getSpec().getReplicas()).isEqualTo(1);
    Container aggregate = aggregator.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(aggregate.getArgs()).startsWith("aggregate", "--lease-name=ioqos-aggregator");
    assertThat(aggregator.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot())
        .isTrue();
    assertThat(aggregate.getEnv())
        .extracting(e -> e.getName())
        .contains("POD_NAMESPACE", "POD_NAME");
  }

  /**
   * With the driver known, the host's cgroup tree is mounted read-only and kubelet's kubepods
   * cgroup read-write on top of it (as kubelet names it for that driver and cgroupRoot); with the
   * driver auto or iocost on, the whole tree stays writable; asking for kubepods where it cannot be
   * known is refused at install, naming the value.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "auto, /, auto, false, /",
    "systemd, /, auto, false, /kubepods.slice",
    "cgroupfs, /, auto, false, /kubepods",
    "cgroupfs, /custom, auto, false, /custom/kubepods",
    "systemd, /kubelet.slice, auto, false, /kubelet.slice/kubelet-kubepods.slice",
    "systemd, /kubelet, auto, false, /",
    "systemd, /, all, false, /",
    "systemd, /, auto, true, /",
    "systemd, /, kubepods, false, /kubepods.slice",
  })
  void cgroupWriteScopeMountsOnlyKubepodsWritable(
      String driver, String root, String scope, boolean iocost, String writable) {
    String values =
        String.format(
            "agent: {cgroupDriver: %s, kubeletCgroupRoot: '%s', cgroupWriteScope: %s,"
                + " enableIocost: %s}%n",
            driver, root, scope, iocost);
    PodSpec pod =
        only(parse(template(NAMESPACE, values)), DaemonSet.class, "ioqos-agent")
            .getSpec()
            .getTemplate()
            .getSpec();
    Map<String, VolumeMount> mounts =
        pod.getContainers().get(0).getVolumeMounts().stream()
            .collect(Collectors.toMap(VolumeMount::getMountPath, m -> m));
    Map<String, String> hostPaths =
        pod.getVolumes().stream()
            .filter(v -> v.getHostPath() != null)
            .collect(Collectors.toMap(v -> v.getName(), v -> v.getHostPath().getPath()));
    VolumeMount tree = mounts.get("/host/sys/fs/cgroup");
    assertThat(hostPaths.get(tree.getName())).isEqualTo("/sys/fs/cgroup");
    if (writable.equals("/")) {
      assertThat(tree.getReadOnly()).isNotEqualTo(Boolean.TRUE);
      assertThat(mounts.keySet()).noneMatch(m -> m.startsWith("/host/sys/fs/cgroup/"));
    } else {
      assertThat(tree.getReadOnly()).isTrue();
      VolumeMount kubepods = mounts.get("/host/sys/fs/cgroup" + writable);
      assertThat(kubepods).as("a mount of %s in %s", writable, mounts.keySet()).isNotNull();
      assertThat(kubepods.getReadOnly()).isNotEqualTo(Boolean.TRUE);
      assertThat(hostPaths.get(kubepods.getName())).isEqualTo("/sys/fs/cgroup" + writable);
    }
  }

  @Test
  void cgroupWriteScopeKubepodsIsRefusedWhereItCannotBeKept() {
    assertThatThrownBy(
            () -> template(NAMESPACE, "agent: {cgroupDriver: auto, cgroupWriteScope: kubepods}\n"))
        .hasMessageContaining("agent.cgroupWriteScope kubepods needs agent.cgroupDriver");
    assertThatThrownBy(
            () ->
                template(
                    NAMESPACE,
                    "agent: {cgroupDriver: systemd, cgroupWriteScope: kubepods,"
                        + " enableIocost: true}\n"))
        .hasMessageContaining("cannot go with agent.enableIocost");
    assertThatThrownBy(() -> template(NAMESPACE, "agent: {cgroupWriteScope: pods}\n"))
        .hasMessageContaining("cgroupWriteScope");
  }

  @Test
  void defaultJvmFlagsAreTheImagesOwn() throws IOException {
    List<HasMetadata> objects = parse(template(NAMESPACE, null));
    String image = imageSetting("container/environment/JDK_JAVA_OPTIONS");
    assertThat(image).startsWith("-XX:").doesNotContain("\n", "${");

    List<io.fabric8.kubernetes.api.model.Container> containers =
        List.of(
            only(objects, DaemonSet.class, "ioqos-agent")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0),
            only(objects, Deployment.class, "ioqos-aggregator")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0));
    for (io.fabric8.kubernetes.api.model.Container container : containers) {
      assertThat(container.getEnv())
          .filteredOn(e -> e.getName().equals("JDK_JAVA_OPTIONS"))
          .extracting(e -> e.getValue())
          .containsExactly(image);
    }
  }

  @Test
  void defaultImageIsTheOneJibBuilds() {
    List<HasMetadata> objects = parse(template(NAMESPACE, null));
    String image = imageSetting("to/image");
    assertThat(
            only(objects, DaemonSet.class, "ioqos-agent")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isEqualTo(image);
    assertThat(
            only(objects, Deployment.class, "ioqos-aggregator")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getImage())
        .isEqualTo(image);
  }

  /**
   * A setting of the image, read from the Jib configuration in {@code operator/pom.xml} (the one
   * source of the image's settings), e.g. {@code container/environment/JDK_JAVA_OPTIONS}, with the
   * {@code ${property}} references of the pom's own properties resolved as Maven does.
   */
  static String imageSetting(String path) {
    Path pom = repo().resolve("operator/pom.xml");
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Document doc = factory.newDocumentBuilder().parse(pom.toFile());
      XPath xpath = XPathFactory.newInstance().newXPath();
      String value =
          xpath
              .evaluate(
                  "/project/build/plugins/plugin[artifactId='jib-maven-plugin']/configuration/"
                      + path,
                  doc)
              .trim();
      if (value.isEmpty()) {
        throw new AssertionError(pom + ": the Jib configuration sets no " + path);
      }
      Matcher ref = Pattern.compile("\\$\\{([^}]+)}").matcher(value);
      StringBuilder resolved = new StringBuilder();
      while (ref.find()) {
        String property = xpath.evaluate("/project/properties/" + ref.group(1), doc).trim();
        if (property.isEmpty()) {
          throw new AssertionError(pom + " has no property " + ref.group(1) + " for " + path);
        }
        ref.appendReplacement(resolved, Matcher.quoteReplacement(property));
      }
      return ref.appendTail(resolved).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ParserConfigurationException | SAXException | XPathExpressionException e) {
      throw new IllegalStateException("cannot read " + pom, e);
    }
  }

  @Test
  void nonDefaultValuesReachTheFlagsAndObjects() {
    List<HasMetadata> objects = parse(template(ALT_NAMESPACE, nonDefaultValues()));

    assertThat(kinds(objects))
        .contains(
            "Namespace/" + ALT_NAMESPACE,
            "ServiceMonitor/ioqos-agent",
            "PrometheusRule/ioqos",
            "ConfigMap/ioqos-grafana-dashboard");
    PodSpec pod = only(objects, DaemonSet.class, "ioqos-agent").getSpec().getTemplate().getSpec();
    Container agent = pod.getContainers().get(0);
    assertThat(agent.getImage()).isEqualTo("registry.example.com/platform/ioqos:1.2.3");
    assertThat(agent.getArgs())
        .contains(
            "--cgroup-driver=systemd",
            "--kubelet-cgroup-root=/kubelet",
            "--kubelet-root-dir=/data/kubelet",
            "--state-dir=/data/ioqos",
            "--resync=PT30S",
            "--metrics-port=9464",
            "--dry-run",
            "--enable-iocost");
    assertThat(agent.getEnv())
        .anyMatch(
            e ->
                e.getName().equals("JDK_JAVA_OPTIONS")
                    && e.getValue().equals("-XX:+UseSerialGC -XX:MaxRAMPercentage=60"));
    assertThat(pod.getVolumes())
        .anyMatch(v -> v.getHostPath() != null && v.getHostPath().getPath().equals("/data/ioqos"));
    assertThat(pod.getSecurityContext().getSeLinuxOptions().getType()).isEqualTo("spc_t");
    assertThat(pod.getImagePullSecrets()).extracting(s -> s.getName()).containsExactly("regcred");

    Deployment aggregator = only(objects, Deployment.class, "ioqos-aggregator");
    assertThat(aggregator.getSpec().getReplicas()).isEqualTo(2);
    assertThat(aggregator.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("--lease-name=ioqos-leader", "--lease-duration=PT30S");
    assertThat(only(objects, Role.class, "ioqos-aggregator-leader-election").getRules())
        .anyMatch(r -> List.of("ioqos-leader").equals(r.getResourceNames()));

    ValidatingAdmissionPolicy policy =
        only(objects, ValidatingAdmissionPolicy.class, "ioqos-agent-own-node-state");
    assertThat(policy.getSpec().getMatchConditions().get(0).getExpression())
        .contains("system:serviceaccount:" + ALT_NAMESPACE + ":ioqos-agent");

    GenericKubernetesResource rule =
        objects.stream()
            .filter(o -> o.getKind().equals("PrometheusRule"))
            .map(GenericKubernetesResource.class::cast)
            .findFirst()
            .orElseThrow();
    Map<String, Object> expectedGroups = yamlMap(monitoringFile(RULES_FILE, SAMPLE_RULES));
    assertThat(((Map<?, ?>) rule.getAdditionalProperties().get("spec")).get("groups"))
        .isEqualTo(expectedGroups.get("groups"));
  }

  @Test
  void disabledPartsAreLeftOut() {
    List<HasMetadata> objects =
        parse(
            template(
                NAMESPACE,
                "aggregator: {enabled: false}\nadmissionPolicy: {enabled: false}\n"
                    + "metrics: {service: {enabled: false}, secure: false}\n"));
    assertThat(kinds(objects))
        .containsExactlyInAnyOrder(
            "ServiceAccount/ioqos-agent",
            "ClusterRole/ioqos-agent",
            "ClusterRoleBinding/ioqos-agent",
            "DaemonSet/ioqos-agent");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "agent: {cgroupDriver: cgroupfs2}|agent.cgroupDriver",
        "agent: {stateDir: var/lib/ioqos}|agent.stateDir",
        "agent: {resync: 60s}|agent.resync",
        "agnet: {dryRun: true}|agnet",
        "metrics: {prometheusRule: {enabled: true}}|metrics.prometheusRule.rules",
        "metrics: {serviceMonitor: {enabled: true}, service: {enabled: false}}|"
            + "metrics.service.enabled"
      })
  void invalidValuesAreRefusedNamingTheValue(String caseText) {
    String[] parts = caseText.split("\\|");
    assertThatThrownBy(() -> template(NAMESPACE, parts[0])).hasMessageContaining(parts[1]);
  }

  // --- the real API server ---

  @Test
  void everyObjectRenderedWithDefaultValuesPassesAServerSideDryRun() {
    installCrds(client);
    ensureNamespace(client, NAMESPACE);

    List<HasMetadata> objects = parse(template(NAMESPACE, null));

    assertThat(dryRunApply(client, objects)).isEmpty();
  }

  @Test
  void everyObjectRenderedWithNonDefaultValuesPassesAServerSideDryRun() {
    installCrds(client);
    installMonitoringStandIns(client);
    ensureNamespace(client, ALT_NAMESPACE);

    List<HasMetadata> objects = parse(template(ALT_NAMESPACE, nonDefaultValues()));

    assertThat(objects).hasSizeGreaterThan(15);
    assertThat(dryRunApply(client, objects)).isEmpty();
  }
}
