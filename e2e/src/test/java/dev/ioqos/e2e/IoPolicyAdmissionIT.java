package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoNodeStateStatus;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.PodCounts;
import dev.ioqos.api.v1alpha1.PodFailure;
import dev.ioqos.api.v1alpha1.PolicyMode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Installs the real ioqos CRDs from {@code crds/} and pins what the API server admits: OpenAPI
 * bounds and CEL rules refuse invalid IoPolicies on create and on update, each error naming the
 * offending field, defaults are filled in, and IoNodeState status is bounded through the status
 * subresource.
 */
class IoPolicyAdmissionIT {
  static final String POLICIES_CRD = "iopolicies.ioqos.dev";
  static final String NODE_STATES_CRD = "ionodestates.ioqos.dev";

  static final ResourceDefinitionContext POLICIES =
      new ResourceDefinitionContext.Builder()
          .withGroup(IoPolicy.GROUP)
          .withVersion(IoPolicy.VERSION)
          .withKind("IoPolicy")
          .withPlural("iopolicies")
          .withNamespaced(false)
          .build();

  static KubernetesClient client;

  @BeforeAll
  static void installCrds() {
    TestCluster cluster = TestCluster.get();
    System.out.println("e2e cluster: " + cluster.kind());
    client = cluster.newClient();
    install("iopolicies.ioqos.dev-v1.yml");
    install("ionodestates.ioqos.dev-v1.yml");
  }

  /** Every policy name this class built; removed at the end so no other suite's pods match them. */
  static final java.util.Set<String> NAMES = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @AfterAll
  static void disconnect() {
    // These policies select every pod (some with priority > 0): left behind, they would win over
    // the policies of suites that run later.
    NAMES.forEach(IoPolicyAdmissionIT::deletePolicy);
    client.close();
  }

  /** The repository's {@code crds/} folder; failsafe runs in {@code e2e/}. */
  static Path crdDir() {
    return Crds.directory();
  }

  static CustomResourceDefinition install(String file) {
    return Crds.install(client, crdDir().resolve(file));
  }

  /** An IoPolicy document named {@code name} whose spec is {@code specYaml}. */
  static GenericKubernetesResource policy(String name, String specYaml) {
    NAMES.add(name);
    String yaml =
        """
        apiVersion: ioqos.dev/v1alpha1
        kind: IoPolicy
        metadata:
          name: %s
        spec:
        %s"""
            .formatted(name, specYaml.indent(2));
    return client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
  }

  static void deletePolicy(String name) {
    client
        .genericKubernetesResources(POLICIES)
        .withName(name)
        .withTimeout(30, TimeUnit.SECONDS)
        .delete();
  }

  static final String VALID_SPEC =
      """
      mode: DryRun
      nodeSelector:
        matchLabels:
          ioqos.dev/enabled: "true"
      namespaceSelector:
        matchExpressions:
          - key: team
            operator: In
            values: [storage, batch]
      podSelector:
        matchLabels:
          app: db
      defaultTier: standard
      tierFrom:
        priorityClasses:
          system-cluster-critical: critical
          batch-low: low
        qosClasses:
          Guaranteed: high
          Burstable: standard
          BestEffort: low
      devices:
        - kubeletRoot: {}
        - path: /var/lib/containerd
        - name: /dev/nvme0n1
        - podVolumes: {}
        - podVolumes: {names: [data, scratch-1]}
      tiers:
        - name: critical
          weight: 10000
          latencyTarget: 500us
        - name: high
          weight: 800
          latencyTarget: 5ms
        - name: standard
          weight: 100
        - name: low
          weight: 10
          limits:
            readBytesPerSecond: 50Mi
            writeBytesPerSecond: 20971520
            readIOPS: 500
            writeIOPS: 200
      """;

  @Test
  void aValidPolicyIsStoredWithDefaultsFilledIn() {
    String name = "valid-full";
    deletePolicy(name);
    client.genericKubernetesResources(POLICIES).resource(policy(name, VALID_SPEC)).create();

    // The raw object proves the server filled the defaults, not the Java model's initializers.
    Map<String, Object> spec =
        client.genericKubernetesResources(POLICIES).withName(name).get().get("spec");
    assertThat(spec)
        .containsEntry("mode", "DryRun")
        .containsEntry("priority", 0)
        .containsEntry("tierAnnotation", "ioqos.dev/tier");

    IoPolicy read = client.resources(IoPolicy.class).withName(name).get();
    assertThat(read.getSpec().getMode()).isEqualTo(PolicyMode.DRY_RUN);
    assertThat(read.getSpec().getPriority()).isZero();
    assertThat(read.getSpec().getTierAnnotation()).isEqualTo("ioqos.dev/tier");
    assertThat(read.getSpec().getDefaultTier()).isEqualTo("standard");
    assertThat(read.getSpec().getTiers())
        .extracting(t -> t.getName())
        .containsExactly("critical", "high", "standard", "low");
    assertThat(read.getSpec().getTiers().get(3).getLimits().readBytesPerSecondValue())
        .hasValue(50L * 1024 * 1024);
    assertThat(read.getSpec().getTiers().get(3).getLimits().writeBytesPerSecondValue())
        .hasValue(20971520L);
    assertThat(read.getSpec().getTiers().get(0).latencyTargetMicros()).hasValue(500L);
    assertThat(read.getSpec().getDevices()).hasSize(5);
    assertThat(read.getSpec().getDevices().get(0).getKubeletRoot()).isNotNull();
    assertThat(read.getSpec().getDevices().get(1).getPath()).isEqualTo("/var/lib/containerd");
    assertThat(read.getSpec().getDevices().get(2).getName()).isEqualTo("/dev/nvme0n1");
    assertThat(read.getSpec().getDevices().get(3).getPodVolumes().getNames()).isNull();
    assertThat(read.getSpec().getDevices().get(4).getPodVolumes().getNames())
        .containsExactly("data", "scratch-1");
    assertThat(read.getSpec().getTierFrom().getQosClasses())
        .containsEntry("Guaranteed", "high")
        .containsEntry("BestEffort", "low");
  }

  @Test
  void modeDefaultsToEnforce() {
    String name = "valid-minimal";
    deletePolicy(name);
    client
        .genericKubernetesResources(POLICIES)
        .resource(policy(name, "tiers: [{name: gold, weight: 500}]"))
        .create();

    Map<String, Object> spec =
        client.genericKubernetesResources(POLICIES).withName(name).get().get("spec");
    assertThat(spec)
        .containsEntry("mode", "Enforce")
        .containsEntry("priority", 0)
        .containsEntry("tierAnnotation", "ioqos.dev/tier");
    assertThat(client.resources(IoPolicy.class).withName(name).get().getSpec().getMode())
        .isEqualTo(PolicyMode.ENFORCE);
  }

  @Test
  void theCrdsDeclareKubectlPrinterColumns(@TempDir Path temp) throws Exception {
    assertThat(printerColumns(POLICIES_CRD))
        .containsExactlyInAnyOrder(
            "Age", "Mode", "Priority", "Ready", "Nodes", "Applied", "Failed");
    assertThat(printerColumns(NODE_STATES_CRD))
        .containsExactlyInAnyOrder(
            "Age", "Cgroup", "IO", "IOCost", "IOLatency", "PSI", "Managed", "Failed");

    // And kubectl really prints them, when this cluster comes with a kubectl.
    Optional<Path> kubectl = TestCluster.get().kubectl();
    if (kubectl.isPresent()) {
      String name = "printed";
      deletePolicy(name);
      client
          .genericKubernetesResources(POLICIES)
          .resource(policy(name, "priority: 7\ntiers: [{name: gold, weight: 500}]"))
          .create();
      Path kubeconfig = TestCluster.get().writeKubeconfig(temp);
      Process process =
          new ProcessBuilder(
                  kubectl.get().toString(),
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "get",
                  "iop",
                  name)
              .redirectErrorStream(true)
              .start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).as(out).isZero();
      List<String> lines = out.lines().toList();
      assertThat(lines.get(0).split("\\s+"))
          .containsExactly(
              "NAME", "AGE", "MODE", "PRIORITY", "READY", "APPLIED", "FAILED", "NODES");
      assertThat(lines.get(1)).startsWith(name).contains("Enforce").contains("7");
    }
  }

  static List<String> printerColumns(String crd) {
    return client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(crd)
        .get()
        .getSpec()
        .getVersions()
        .get(0)
        .getAdditionalPrinterColumns()
        .stream()
        .map(CustomResourceColumnDefinition::getName)
        .toList();
  }

  /** A single tier named {@code a} with the given extra fields. */
  static String oneTier(String fields) {
    return "tiers:\n  - name: a\n" + fields.indent(4);
  }

  static String tiers(int count) {
    return "tiers:\n"
        + IntStream.rangeClosed(1, count)
            .mapToObj(i -> "  - name: t" + i + "\n    weight: " + (i * 100) + "\n")
            .collect(Collectors.joining());
  }

  static String withDevice(String device) {
    return "tiers: [{name: a, weight: 100}]\ndevices:\n  - " + device + "\n";
  }

  static Stream<Arguments> invalidPolicies() {
    return Stream.of(
        Arguments.of("no tiers", "mode: DryRun", "spec.tiers", "Required value"),
        Arguments.of("empty tiers", "tiers: []", "spec.tiers", "should have at least 1 items"),
        Arguments.of(
            "nine tiers", tiers(9), "spec.tiers", "Too many: 9: must have at most 8 items"),
        Arguments.of(
            "weight zero",
            oneTier("weight: 0"),
            "spec.tiers[0].weight",
            "greater than or equal to 1"),
        Arguments.of(
            "weight too high",
            oneTier("weight: 10001"),
            "spec.tiers[0].weight",
            "less than or equal to 10000"),
        Arguments.of(
            "duplicate tier names",
            "tiers: [{name: a, weight: 1}, {name: b, weight: 2}, {name: a, weight: 3}]",
            "spec.tiers",
            "tier names must be unique; a is used more than once"),
        Arguments.of(
            "tier name not a dns label",
            "tiers: [{name: High_Tier, weight: 100}]",
            "spec.tiers[0].name",
            "should match"),
        Arguments.of(
            "tier with only a name",
            "tiers: [{name: a}]",
            "spec.tiers[0]",
            "a tier must set at least one of weight, latencyTarget or limits"),
        Arguments.of(
            "defaultTier not a tier",
            "defaultTier: gold\ntiers: [{name: a, weight: 100}]",
            "spec.defaultTier",
            "defaultTier must name a tier in spec.tiers; there is no tier gold"),
        Arguments.of(
            "priorityClasses to unknown tier",
            "tierFrom:\n  priorityClasses: {batch: a, critical-pc: gold}\n"
                + "tiers: [{name: a, weight: 100}]",
            "spec.tierFrom.priorityClasses",
            "must map to tiers in spec.tiers; there is no tier gold"),
        Arguments.of(
            "qosClasses to unknown tier",
            "tierFrom:\n  qosClasses: {Guaranteed: a, Burstable: silver}\n"
                + "tiers: [{name: a, weight: 100}]",
            "spec.tierFrom.qosClasses",
            "there is no tier silver"),
        Arguments.of(
            "qosClasses key not a qos class",
            "tierFrom:\n  qosClasses: {besteffort: a}\ntiers: [{name: a, weight: 100}]",
            "spec.tierFrom.qosClasses",
            "qosClasses keys must be Guaranteed, Burstable or BestEffort"),
        Arguments.of(
            "empty devices entry",
            withDevice("{}"),
            "spec.devices[0]",
            "each devices entry must set exactly one of kubeletRoot, path, name or podVolumes"),
        Arguments.of(
            "devices entry with two selectors",
            withDevice("{kubeletRoot: {}, path: /var/lib/kubelet}"),
            "spec.devices[0]",
            "each devices entry must set exactly one of kubeletRoot, path, name or podVolumes"),
        Arguments.of(
            "podVolumes beside a path",
            withDevice("{podVolumes: {}, path: /var/lib/kubelet}"),
            "spec.devices[0]",
            "each devices entry must set exactly one of kubeletRoot, path, name or podVolumes"),
        Arguments.of(
            "podVolumes name not a volume name",
            withDevice("podVolumes: {names: [Data_1]}"),
            "spec.devices[0].podVolumes.names",
            "podVolumes.names entries must be pod volume names"),
        Arguments.of(
            "podVolumes name repeated",
            withDevice("podVolumes: {names: [data, data]}"),
            "spec.devices[0].podVolumes.names",
            "podVolumes.names must not repeat a name"),
        Arguments.of(
            "relative device path",
            withDevice("path: var/lib/containerd"),
            "spec.devices[0].path",
            "path must be an absolute host path starting with /"),
        Arguments.of(
            "device path with dot-dot",
            withDevice("path: /var/lib/../../etc"),
            "spec.devices[0].path",
            "path must not contain . or .. segments"),
        Arguments.of(
            "device name outside dev",
            withDevice("name: /sys/block/sda"),
            "spec.devices[0].name",
            "name must be a device node path under /dev/"),
        Arguments.of(
            "latencyTarget zero",
            oneTier("latencyTarget: 0ms"),
            "spec.tiers[0].latencyTarget",
            "latencyTarget must be greater than 0"),
        Arguments.of(
            "latencyTarget with a space",
            oneTier("latencyTarget: 5 ms"),
            "spec.tiers[0].latencyTarget",
            "latencyTarget must be a whole number followed by us, ms or s"),
        Arguments.of(
            "readBytesPerSecond zero",
            oneTier("limits: {readBytesPerSecond: 0}"),
            "spec.tiers[0].limits.readBytesPerSecond",
            "readBytesPerSecond must be greater than 0"),
        Arguments.of(
            "readBytesPerSecond not a quantity",
            oneTier("limits: {readBytesPerSecond: fast}"),
            "spec.tiers[0].limits.readBytesPerSecond",
            "must be an integer or a quantity such as 50Mi"),
        Arguments.of(
            "readIOPS zero",
            oneTier("limits: {readIOPS: 0}"),
            "spec.tiers[0].limits.readIOPS",
            "greater than or equal to 1"),
        Arguments.of(
            "unknown mode",
            "mode: Audit\ntiers: [{name: a, weight: 100}]",
            "spec.mode",
            "Unsupported value: \"Audit\""),
        Arguments.of(
            "selector operator unknown",
            "nodeSelector: {matchExpressions: [{key: zone, operator: Equals, values: [a]}]}\n"
                + "tiers: [{name: a, weight: 100}]",
            "spec.nodeSelector.matchExpressions[0].operator",
            "Unsupported value: \"Equals\""),
        Arguments.of(
            "selector In without values",
            "podSelector: {matchExpressions: [{key: app, operator: In}]}\n"
                + "tiers: [{name: a, weight: 100}]",
            "spec.podSelector.matchExpressions[0]",
            "values must be non-empty for In and NotIn"),
        Arguments.of(
            "selector Exists with values",
            "namespaceSelector: {matchExpressions: [{key: team, operator: Exists, values: [x]}]}\n"
                + "tiers: [{name: a, weight: 100}]",
            "spec.namespaceSelector.matchExpressions[0]",
            "empty for Exists and DoesNotExist"),
        Arguments.of(
            "selector without key",
            "podSelector: {matchExpressions: [{operator: Exists}]}\n"
                + "tiers: [{name: a, weight: 100}]",
            "spec.podSelector.matchExpressions[0].key",
            "Required value"),
        Arguments.of(
            "tier namespace selector operator unknown",
            oneTier(
                "annotationNamespaceSelector: {matchExpressions: [{key: team, operator: in,"
                    + " values: [db]}]}"),
            "spec.tiers[0].annotationNamespaceSelector.matchExpressions[0].operator",
            "Unsupported value: \"in\""),
        Arguments.of(
            "read IOPS above the kernel's bound",
            oneTier("limits: {readIOPS: 4294967295}"),
            "spec.tiers[0].limits.readIOPS",
            "less than or equal to 4294967294"),
        Arguments.of(
            "write IOPS above the kernel's bound",
            oneTier("limits: {writeIOPS: 9999999999}"),
            "spec.tiers[0].limits.writeIOPS",
            "less than or equal to"),
        Arguments.of(
            "priority too high",
            "priority: 2000000000\ntiers: [{name: a, weight: 100}]",
            "spec.priority",
            "less than or equal to 1000000000"));
  }

  static String slug(String description) {
    return "invalid-" + description.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPolicies")
  void invalidPoliciesAreRefusedNamingTheField(
      String description, String specYaml, String fieldPath, String fragment) {
    String name = slug(description);
    GenericKubernetesResource invalid = policy(name, specYaml);

    assertThatThrownBy(() -> client.genericKubernetesResources(POLICIES).resource(invalid).create())
        .as(description)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              System.out.println(description + " -> " + e.getStatus().getMessage());
              assertThat(e.getCode()).as(e.getMessage()).isEqualTo(422);
              assertThat(e.getMessage()).contains(fieldPath).contains(fragment);
            });
    assertThat(client.genericKubernetesResources(POLICIES).withName(name).get()).isNull();
  }

  @Test
  void anUpdateThatBreaksARuleIsRefusedAndTheOldObjectStays() {
    String name = "valid-then-broken";
    deletePolicy(name);
    client.genericKubernetesResources(POLICIES).resource(policy(name, VALID_SPEC)).create();

    assertThatThrownBy(
            () ->
                client
                    .resources(IoPolicy.class)
                    .withName(name)
                    .edit(
                        p -> {
                          p.getSpec().getTiers().get(0).setWeight(0);
                          return p;
                        }))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).as(e.getMessage()).isEqualTo(422);
              assertThat(e.getMessage())
                  .contains("spec.tiers[0].weight")
                  .contains("greater than or equal to 1");
            });

    IoPolicy stored = client.resources(IoPolicy.class).withName(name).get();
    assertThat(stored.getSpec().getTiers().get(0).getWeight()).isEqualTo(10000);
    assertThat(stored.getMetadata().getGeneration()).isEqualTo(1L);
  }

  static IoNodeStateStatus statusWithFailures(int count) {
    PodCounts pods = new PodCounts();
    pods.setManaged(count + 3);
    pods.setApplied(3);
    pods.setFailed(count);
    pods.setFailures(
        IntStream.range(0, count)
            .mapToObj(
                i ->
                    PodFailure.of(
                        "ns-" + i,
                        "pod-" + i,
                        "NoSuchDevice",
                        "io.max: write \"259:0 rbps=52428800\": No such device"))
            .toList());
    IoNodeStateStatus status = new IoNodeStateStatus();
    status.setPods(pods);
    return status;
  }

  @Test
  void nodeStateFailuresAreBoundedThroughTheStatusSubresource() {
    String name = "node-x";
    client.resources(IoNodeState.class).withName(name).withTimeout(30, TimeUnit.SECONDS).delete();
    IoNodeState state = new IoNodeState();
    state.setMetadata(new ObjectMetaBuilder().withName(name).build());
    IoNodeState created = client.resource(state).create();

    created.setStatus(statusWithFailures(PodCounts.MAX_FAILURES + 1));
    assertThatThrownBy(() -> client.resource(created).updateStatus())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).as(e.getMessage()).isEqualTo(422);
              assertThat(e.getMessage())
                  .contains("status.pods.failures")
                  .contains("must have at most 50 items");
            });
    assertThat(client.resources(IoNodeState.class).withName(name).get().getStatus()).isNull();

    created.setStatus(statusWithFailures(2));
    client.resource(created).updateStatus();

    IoNodeState read = client.resources(IoNodeState.class).withName(name).get();
    assertThat(read.getStatus().getPods().getFailed()).isEqualTo(2);
    assertThat(read.getStatus().getPods().getFailures())
        .extracting(PodFailure::getNamespace, PodFailure::getName)
        .containsExactly(tuple("ns-0", "pod-0"), tuple("ns-1", "pod-1"));
  }
}
