package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.agent.NodeScope;
import dev.ioqos.testkit.Eventually;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the harness is a real API server and pins the behaviours the agent relies on: CRD schema
 * and CEL admission, pod status via the status subresource, a field-selected JOSDK informer,
 * server-side apply dry-run and authorization through impersonation.
 */
class ControlPlaneContractIT {
  static final String NAMESPACE = "contract";
  static KubernetesClient client;

  @BeforeAll
  static void connect() {
    TestCluster cluster = TestCluster.get();
    System.out.println("e2e cluster: " + cluster.kind());
    client = cluster.newClient();
    if (client.namespaces().withName(NAMESPACE).get() == null) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .create();
    }
  }

  @AfterAll
  static void disconnect() {
    client.close();
  }

  static CustomResourceDefinition installGauges() {
    return Crds.install(
        client, ControlPlaneContractIT.class.getResourceAsStream("/contract/gauges-crd.yaml"));
  }

  static final ResourceDefinitionContext GAUGES =
      new ResourceDefinitionContext.Builder()
          .withGroup("e2e.ioqos.dev")
          .withVersion("v1alpha1")
          .withKind("Gauge")
          .withPlural("gauges")
          .withNamespaced(false)
          .build();

  static GenericKubernetesResource gauge(String name, Map<String, Object> spec) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("e2e.ioqos.dev/v1alpha1")
        .withKind("Gauge")
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", spec))
        .build();
  }

  @Test
  void crdReachesEstablishedAndValidObjectsAreStored() {
    CustomResourceDefinition crd = installGauges();
    assertThat(crd.getStatus().getAcceptedNames().getKind()).isEqualTo("Gauge");

    client
        .genericKubernetesResources(GAUGES)
        .resource(gauge("ok", Map.of("low", 1, "high", 2, "weight", 500)))
        .createOr(existing -> existing.update());

    assertThat(client.genericKubernetesResources(GAUGES).withName("ok").get()).isNotNull();
  }

  @Test
  void schemaAndCelRejectInvalidObjectsNamingTheField() {
    installGauges();

    assertThatThrownBy(
            () ->
                client
                    .genericKubernetesResources(GAUGES)
                    .resource(gauge("too-heavy", Map.of("low", 1, "high", 2, "weight", 10001)))
                    .create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getMessage()).contains("spec.weight");
            });
    assertThatThrownBy(
            () ->
                client
                    .genericKubernetesResources(GAUGES)
                    .resource(gauge("upside-down", Map.of("low", 5, "high", 2)))
                    .create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getMessage()).contains("spec.low").contains("low must not exceed high");
            });
    assertThat(client.genericKubernetesResources(GAUGES).withName("upside-down").get()).isNull();
  }

  static Pod pod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("main")
        .withImage("registry.invalid/none:1")
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  void theServerSetsQosClassAndPhaseGoesThroughTheStatusSubresource() {
    Pod burstable = pod("status-pod", "node-s");
    burstable
        .getSpec()
        .getContainers()
        .get(0)
        .setResources(
            new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m"))
                .build());
    Pod created = client.resource(burstable).createOr(e -> e.update());
    // The API server computes status.qosClass at creation; the agent can trust it.
    assertThat(created.getStatus().getQosClass()).isEqualTo("Burstable");
    assertThat(client.resource(pod("best-effort-pod", "node-s")).createOr(e -> e.update()))
        .extracting(p -> p.getStatus().getQosClass())
        .isEqualTo("BestEffort");

    created.setStatus(new PodStatusBuilder(created.getStatus()).withPhase("Running").build());
    client.pods().inNamespace(NAMESPACE).resource(created).updateStatus();

    Pod read = client.pods().inNamespace(NAMESPACE).withName("status-pod").get();
    assertThat(read.getSpec().getNodeName()).isEqualTo("node-s");
    assertThat(read.getStatus().getPhase()).isEqualTo("Running");
    assertThat(read.getMetadata().getUid())
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    read.setStatus(new PodStatusBuilder(read.getStatus()).withQosClass("Guaranteed").build());
    assertThatThrownBy(() -> client.pods().inNamespace(NAMESPACE).resource(read).updateStatus())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getMessage()).contains("status.qosClass").contains("immutable");
            });
  }

  /** Records every pod its informer delivers. */
  @ControllerConfiguration(name = "contract-pods")
  static final class SeenPods implements Reconciler<Pod> {
    final Set<String> seen = ConcurrentHashMap.newKeySet();

    @Override
    public UpdateControl<Pod> reconcile(Pod pod, Context<Pod> context) {
      seen.add(pod.getSpec().getNodeName() + "/" + pod.getMetadata().getName());
      return UpdateControl.noUpdate();
    }
  }

  @Test
  void aFieldSelectedInformerSeesOnlyItsNodesPods() throws Exception {
    client.resource(pod("other-1", "node-b")).createOr(e -> e.update());
    SeenPods reconciler = new SeenPods();
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(TestCluster.get().newClient())
                    .withStopOnInformerErrorDuringStartup(true));
    operator.register(
        reconciler,
        NodeScope.onlyNode(
            operator.getConfigurationService().getConfigurationFor(reconciler), "node-a"));
    operator.start();
    try {
      client.resource(pod("mine-1", "node-a")).createOr(e -> e.update());
      client.resource(pod("other-2", "node-b")).createOr(e -> e.update());
      client.resource(pod("mine-2", "node-a")).createOr(e -> e.update());

      Eventually.until(
          "the reconciler to see node-a's pods",
          () -> reconciler.seen.containsAll(List.of("node-a/mine-1", "node-a/mine-2")));
      assertThat(reconciler.seen).contains("node-a/mine-1", "node-a/mine-2");
      assertThat(reconciler.seen).allMatch(name -> name.startsWith("node-a/"));
    } finally {
      operator.stop();
    }
  }

  @Test
  void serverSideApplyDryRunStoresNothing() {
    ConfigMap map =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("dry")
            .withNamespace(NAMESPACE)
            .endMetadata()
            .withData(Map.of("k", "v"))
            .build();

    ConfigMap answered = client.resource(map).dryRun().fieldManager("ioqos-e2e").serverSideApply();

    assertThat(answered.getMetadata().getManagedFields())
        .anyMatch(f -> "ioqos-e2e".equals(f.getManager()));
    assertThat(client.configMaps().inNamespace(NAMESPACE).withName("dry").get()).isNull();
  }

  @Test
  void authorizationThroughImpersonation(@TempDir Path temp) throws Exception {
    client
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("reader")
                .withNamespace(NAMESPACE)
                .endMetadata()
                .build())
        .createOr(e -> e.update());
    client
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("pod-reader")
                .withNamespace(NAMESPACE)
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("pods")
                .withVerbs("get", "list", "watch")
                .endRule()
                .build())
        .createOr(e -> e.update());
    client
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("reader-reads-pods")
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", "pod-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("reader")
                .withNamespace(NAMESPACE)
                .endSubject()
                .build())
        .createOr(e -> e.update());
    String user = "system:serviceaccount:" + NAMESPACE + ":reader";

    try (KubernetesClient asReader =
        TestCluster.get()
            .impersonating(user, "system:serviceaccounts", "system:serviceaccounts:" + NAMESPACE)) {
      assertThat(allowed(asReader, "list", "pods")).isTrue();
      assertThat(allowed(asReader, "delete", "pods")).isFalse();
      assertThat(asReader.pods().inNamespace(NAMESPACE).list().getItems()).isNotNull();
      assertThatThrownBy(() -> asReader.configMaps().inNamespace(NAMESPACE).list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }

    Path kubectl =
        TestCluster.get()
            .kubectl()
            .orElseThrow(() -> new AssertionError("no kubectl for " + TestCluster.get().kind()));
    Path kubeconfig = TestCluster.get().writeKubeconfig(temp);
    assertThat(canI(kubectl, kubeconfig, user, "list", "pods")).isEqualTo("yes");
    assertThat(canI(kubectl, kubeconfig, user, "delete", "pods")).isEqualTo("no");
  }

  static boolean allowed(KubernetesClient asUser, String verb, String resource) {
    SelfSubjectAccessReview review =
        new SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withNewResourceAttributes()
            .withNamespace(NAMESPACE)
            .withVerb(verb)
            .withResource(resource)
            .endResourceAttributes()
            .endSpec()
            .build();
    return asUser
        .authorization()
        .v1()
        .selfSubjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  static String canI(Path kubectl, Path kubeconfig, String user, String verb, String resource)
      throws Exception {
    Process process =
        new ProcessBuilder(
                kubectl.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "auth",
                "can-i",
                verb,
                resource,
                "-n",
                NAMESPACE,
                "--as",
                user)
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out.strip();
  }
}
