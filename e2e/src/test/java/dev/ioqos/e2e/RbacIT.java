package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.agent.Agent;
import dev.ioqos.agent.AgentConfig;
import dev.ioqos.aggregator.Aggregator;
import dev.ioqos.aggregator.AggregatorConfig;
import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoNodeStateStatus;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.PodCounts;
import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.Pods;
import dev.ioqos.testkit.Policies;
import dev.ioqos.testkit.SandboxNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRule;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart's RBAC and ValidatingAdmissionPolicy, applied for real to the real API server: a {@code
 * kubectl auth can-i} matrix for both ServiceAccounts through impersonation, the complete rule set
 * each one holds, the real agent and aggregator doing their jobs with nothing more, and the policy
 * confining an agent to its own node's IoNodeState (impersonating the node name that a pod-bound
 * token carries).
 */
class RbacIT {
  static final String NAMESPACE = DeployChartIT.NAMESPACE;
  static final String AGENT = "system:serviceaccount:" + NAMESPACE + ":ioqos-agent";
  static final String AGGREGATOR = "system:serviceaccount:" + NAMESPACE + ":ioqos-aggregator";
  static final String NODE_NAME = "authentication.kubernetes.io/node-name";
  static final String POLICY = "ioqos-agent-own-node-state";
  static final Set<String> INSTALLED_FOR_REAL =
      Set.of(
          "ServiceAccount",
          "ClusterRole",
          "ClusterRoleBinding",
          "Role",
          "RoleBinding",
          "ValidatingAdmissionPolicy",
          "ValidatingAdmissionPolicyBinding");

  static KubernetesClient admin;
  static KubernetesClient asAgent;
  static KubernetesClient asAggregator;

  @BeforeAll
  static void installRbacAndPolicy() {
    TestCluster cluster = TestCluster.get();
    System.out.println("e2e cluster: " + cluster.kind());
    admin = cluster.newClient();
    DeployChartIT.installCrds(admin);
    DeployChartIT.ensureNamespace(admin, NAMESPACE);
    for (HasMetadata object : DeployChartIT.parse(DeployChartIT.template(NAMESPACE, null))) {
      if (INSTALLED_FOR_REAL.contains(object.getKind())) {
        admin
            .resource(object)
            .fieldManager(DeployChartIT.FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply();
      }
    }
    asAgent = as(AGENT, null);
    asAggregator = as(AGGREGATOR, null);
    awaitPolicyInForce();
  }

  @AfterAll
  static void disconnect() {
    Stream.of(asAgent, asAggregator, admin).forEach(KubernetesClient::close);
  }

  /**
   * A client acting as {@code user} of the ServiceAccount groups, with the node name a pod-bound
   * token would carry (none when {@code node} is null).
   */
  static KubernetesClient as(String user, String node) {
    Config config = TestCluster.get().config();
    config.setImpersonateUsername(user);
    config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + NAMESPACE);
    if (node != null) {
      // Header names cannot hold '/': the API server percent-decodes extra keys.
      config.setImpersonateExtras(
          Map.of(URLEncoder.encode(NODE_NAME, StandardCharsets.UTF_8), List.of(node)));
    }
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Policies take effect once the API server's admission informer has them. */
  static void awaitPolicyInForce() {
    try (KubernetesClient onNodeA = as(AGENT, "probe-node-a")) {
      eventually(
          () -> {
            try {
              onNodeA.resource(nodeState("probe-node-b")).dryRun().create();
              return "admitted";
            } catch (KubernetesClientException e) {
              return e.getCode() + " " + e.getMessage();
            }
          },
          answer -> answer.startsWith("403") && answer.contains(POLICY),
          "the admission policy denies a foreign node's IoNodeState");
    }
  }

  // --- kubectl auth can-i, as each ServiceAccount ---

  static Stream<Arguments> matrix() {
    return Stream.of(
        // The agent reads pods, namespaces and policies cluster-wide...
        can("agent", "list", "", "pods", "", "default", ""),
        can("agent", "watch", "", "pods", "", "default", ""),
        can("agent", "get", "", "pods", "", "kube-system", ""),
        can("agent", "list", "", "namespaces", "", "", ""),
        can("agent", "watch", "", "namespaces", "", "", ""),
        can("agent", "list", "ioqos.dev", "iopolicies", "", "", ""),
        can("agent", "watch", "ioqos.dev", "iopolicies", "", "", ""),
        can("agent", "create", "", "events", "", "default", ""),
        can("agent", "patch", "", "events", "", "default", ""),
        cannot("agent", "update", "", "events", "", "default", ""),
        cannot("agent", "delete", "", "events", "", "default", ""),
        can("agent", "get", "", "nodes", "", "", "node-a"),
        can("agent", "get", "", "persistentvolumeclaims", "", "default", "data-db"),
        cannot("agent", "list", "", "persistentvolumeclaims", "", "default", ""),
        cannot("agent", "get", "", "persistentvolumes", "", "", ""),
        can("agent", "create", "ioqos.dev", "ionodestates", "", "", ""),
        can("agent", "get", "ioqos.dev", "ionodestates", "", "", "node-a"),
        can("agent", "update", "ioqos.dev", "ionodestates", "status", "", "node-a"),
        // metrics.secure: a scraper's token is reviewed, then its right to /metrics asked.
        can("agent", "create", "authentication.k8s.io", "tokenreviews", "", "", ""),
        can("agent", "create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""),
        // ...and changes nothing else.
        cannot("agent", "delete", "", "pods", "", "default", ""),
        cannot("agent", "create", "", "pods", "", "default", ""),
        cannot("agent", "update", "", "pods", "", "default", ""),
        cannot("agent", "patch", "", "pods", "status", "default", ""),
        cannot("agent", "create", "", "pods", "eviction", "default", ""),
        cannot("agent", "create", "", "pods", "exec", "default", ""),
        cannot("agent", "get", "", "secrets", "", NAMESPACE, ""),
        cannot("agent", "list", "", "secrets", "", "", ""),
        cannot("agent", "list", "", "configmaps", "", "default", ""),
        cannot("agent", "list", "", "nodes", "", "", ""),
        cannot("agent", "watch", "", "nodes", "", "", ""),
        cannot("agent", "update", "", "nodes", "", "", "node-a"),
        cannot("agent", "patch", "", "nodes", "status", "", "node-a"),
        cannot("agent", "update", "", "namespaces", "", "", "default"),
        cannot("agent", "create", "ioqos.dev", "iopolicies", "", "", ""),
        cannot("agent", "update", "ioqos.dev", "iopolicies", "", "", "p"),
        cannot("agent", "update", "ioqos.dev", "iopolicies", "status", "", "p"),
        cannot("agent", "delete", "ioqos.dev", "iopolicies", "", "", "p"),
        cannot("agent", "list", "ioqos.dev", "ionodestates", "", "", ""),
        cannot("agent", "patch", "ioqos.dev", "ionodestates", "", "", "node-a"),
        cannot("agent", "update", "ioqos.dev", "ionodestates", "", "", "node-a"),
        cannot("agent", "delete", "ioqos.dev", "ionodestates", "", "", "node-a"),
        cannot("agent", "get", "coordination.k8s.io", "leases", "", NAMESPACE, "ioqos-aggregator"),
        cannot("agent", "create", "", "serviceaccounts", "token", NAMESPACE, "ioqos-agent"),
        cannot("agent", "impersonate", "", "users", "", "", ""),
        cannot("agent", "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "", ""),
        cannot(
            "agent",
            "delete",
            "admissionregistration.k8s.io",
            "validatingadmissionpolicies",
            "",
            "",
            POLICY),
        // The aggregator reads node states and policies, writes policy status and its Lease...
        can("aggregator", "list", "ioqos.dev", "ionodestates", "", "", ""),
        can("aggregator", "watch", "ioqos.dev", "ionodestates", "", "", ""),
        can("aggregator", "list", "ioqos.dev", "iopolicies", "", "", ""),
        can("aggregator", "watch", "ioqos.dev", "iopolicies", "", "", ""),
        can("aggregator", "update", "ioqos.dev", "iopolicies", "status", "", "p"),
        can("aggregator", "patch", "ioqos.dev", "iopolicies", "status", "", "p"),
        can("aggregator", "create", "coordination.k8s.io", "leases", "", NAMESPACE, ""),
        can(
            "aggregator",
            "get",
            "coordination.k8s.io",
            "leases",
            "",
            NAMESPACE,
            "ioqos-aggregator"),
        can(
            "aggregator",
            "patch",
            "coordination.k8s.io",
            "leases",
            "",
            NAMESPACE,
            "ioqos-aggregator"),
        can(
            "aggregator",
            "update",
            "coordination.k8s.io",
            "leases",
            "",
            NAMESPACE,
            "ioqos-aggregator"),
        // ...and nothing else.
        cannot("aggregator", "list", "", "pods", "", "default", ""),
        cannot("aggregator", "get", "", "nodes", "", "", "node-a"),
        cannot("aggregator", "get", "", "secrets", "", NAMESPACE, ""),
        cannot("aggregator", "create", "", "events", "", "default", ""),
        cannot("aggregator", "update", "ioqos.dev", "iopolicies", "", "", "p"),
        cannot("aggregator", "delete", "ioqos.dev", "iopolicies", "", "", "p"),
        cannot("aggregator", "update", "ioqos.dev", "ionodestates", "", "", "node-a"),
        cannot("aggregator", "update", "ioqos.dev", "ionodestates", "status", "", "node-a"),
        cannot("aggregator", "get", "coordination.k8s.io", "leases", "", NAMESPACE, "other"),
        cannot("aggregator", "patch", "coordination.k8s.io", "leases", "", NAMESPACE, "other"),
        cannot("aggregator", "delete", "coordination.k8s.io", "leases", "", NAMESPACE, ""),
        cannot("aggregator", "create", "coordination.k8s.io", "leases", "", "kube-system", ""),
        cannot("aggregator", "list", "coordination.k8s.io", "leases", "", NAMESPACE, ""));
  }

  static Arguments can(
      String who, String verb, String group, String resource, String sub, String ns, String name) {
    return Arguments.of(who, verb, group, resource, sub, ns, name, true);
  }

  static Arguments cannot(
      String who, String verb, String group, String resource, String sub, String ns, String name) {
    return Arguments.of(who, verb, group, resource, sub, ns, name, false);
  }

  @ParameterizedTest(name = "{0} {1} {3}/{4} in ''{5}'' named ''{6}'': {7}")
  @MethodSource("matrix")
  void canI(
      String who,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name,
      boolean expected) {
    KubernetesClient client = who.equals("agent") ? asAgent : asAggregator;
    boolean allowed =
        client
            .authorization()
            .v1()
            .selfSubjectAccessReview()
            .create(
                new SelfSubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withNewResourceAttributes()
                    .withVerb(verb)
                    .withGroup(group)
                    .withResource(resource)
                    .withSubresource(subresource)
                    .withNamespace(namespace)
                    .withName(name)
                    .endResourceAttributes()
                    .endSpec()
                    .build())
            .getStatus()
            .getAllowed();
    assertThat(allowed).isEqualTo(expected);
  }

  // --- nothing else: the complete rule sets ---

  /** Every {@code verb group/resource[/name]} {@code client} holds in {@code namespace}. */
  static Set<String> rules(KubernetesClient client, String namespace) {
    List<ResourceRule> rules =
        client
            .authorization()
            .v1()
            .selfSubjectRulesReview()
            .create(
                new SelfSubjectRulesReviewBuilder()
                    .withNewSpec()
                    .withNamespace(namespace)
                    .endSpec()
                    .build())
            .getStatus()
            .getResourceRules();
    Set<String> flat = new TreeSet<>();
    for (ResourceRule rule : rules) {
      for (String group : rule.getApiGroups()) {
        // Every authenticated user may ask what it may do (system:basic-user).
        if (group.equals("authorization.k8s.io") || group.equals("authentication.k8s.io")) {
          continue;
        }
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            List<String> names = rule.getResourceNames();
            if (names == null || names.isEmpty()) {
              flat.add(verb + " " + group + "/" + resource);
            } else {
              names.forEach(n -> flat.add(verb + " " + group + "/" + resource + "/" + n));
            }
          }
        }
      }
    }
    return flat;
  }

  @Test
  void theAgentHoldsExactlyItsRules() {
    assertThat(rules(asAgent, "default"))
        .containsExactlyInAnyOrder(
            "get /pods",
            "list /pods",
            "watch /pods",
            "get /namespaces",
            "list /namespaces",
            "watch /namespaces",
            "get /nodes",
            "get /persistentvolumeclaims",
            "create /events",
            "patch /events",
            "get ioqos.dev/iopolicies",
            "list ioqos.dev/iopolicies",
            "watch ioqos.dev/iopolicies",
            "get ioqos.dev/ionodestates",
            "create ioqos.dev/ionodestates",
            "update ioqos.dev/ionodestates/status");
  }

  @Test
  void theAggregatorHoldsExactlyItsRules() {
    assertThat(rules(asAggregator, NAMESPACE))
        .containsExactlyInAnyOrder(
            "get ioqos.dev/ionodestates",
            "list ioqos.dev/ionodestates",
            "watch ioqos.dev/ionodestates",
            "get ioqos.dev/iopolicies",
            "list ioqos.dev/iopolicies",
            "watch ioqos.dev/iopolicies",
            "update ioqos.dev/iopolicies/status",
            "patch ioqos.dev/iopolicies/status",
            "create coordination.k8s.io/leases",
            "get coordination.k8s.io/leases/ioqos-aggregator",
            "update coordination.k8s.io/leases/ioqos-aggregator",
            "patch coordination.k8s.io/leases/ioqos-aggregator");
    assertThat(rules(asAggregator, "default"))
        .noneMatch(rule -> rule.contains("coordination.k8s.io"));
  }

  // --- the real processes with nothing more than these rules ---

  @Test
  void theRealAgentDoesItsJobWithOnlyItsRules(@TempDir Path temp) {
    String node = "rbac-agent-node";
    String namespace = "rbac-agent";
    admin
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .addToLabels("ioqos-test", namespace)
                .endMetadata()
                .build())
        .createOr(e -> e.update());
    IoPolicy policy = policy("rbac-agent", namespace);
    SandboxNode host = new SandboxNode(temp.resolve("node"));
    try (KubernetesClient onNode = as(AGENT, node);
        Agent agent =
            new Agent(
                new AgentConfig(
                    node, host.config(), temp.resolve("state"), false, Duration.ofSeconds(2)),
                onNode)) {
      agent.start();
      Pod pod = pod("capped", namespace, node);
      host.createPod(pod.getMetadata().getUid(), QosClass.BURSTABLE);

      eventually(
          () -> host.read(pod.getMetadata().getUid(), QosClass.BURSTABLE, "io.max"),
          text -> text.contains("wbps=20971520"),
          "the agent wrote the tier's cap");
      eventually(
          () -> admin.resources(IoNodeState.class).withName(node).get(),
          state -> state != null && state.getStatus() != null,
          "the agent wrote its own IoNodeState and its status");
      eventually(
          () ->
              admin.v1().events().inNamespace(namespace).list().getItems().stream()
                  .map(e -> e.getReason())
                  .toList(),
          reasons -> reasons.contains("Applied"),
          "the agent posted an Applied event");
    } finally {
      admin.resource(policy).delete();
      admin.resources(IoNodeState.class).withName(node).delete();
    }
  }

  @Test
  void theRealAggregatorDoesItsJobWithOnlyItsRules() {
    IoPolicy policy = policy("rbac-aggregator", "rbac-aggregator");
    try (KubernetesClient client = as(AGGREGATOR, null);
        Aggregator aggregator =
            new Aggregator(
                new AggregatorConfig(
                    NAMESPACE,
                    AggregatorConfig.DEFAULT_LEASE_NAME,
                    "rbac-it",
                    Duration.ofSeconds(4),
                    Duration.ofSeconds(3),
                    Duration.ofSeconds(1)),
                client)) {
      aggregator.start();

      eventually(
          () -> admin.resources(IoPolicy.class).withName("rbac-aggregator").get(),
          p -> p.getStatus() != null && p.getStatus().getNodes() != null,
          "the aggregator wrote the policy's status");
      Lease lease =
          admin
              .resources(Lease.class)
              .inNamespace(NAMESPACE)
              .withName(AggregatorConfig.DEFAULT_LEASE_NAME)
              .get();
      assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("rbac-it");
    } finally {
      admin.resource(policy).delete();
    }
  }

  // --- the admission policy: an agent writes only its own node's IoNodeState ---

  @Test
  void anAgentWritesItsOwnNodesStateAndNoOtherOne() {
    admin.resource(nodeState("vap-b")).createOr(e -> e.update());
    try (KubernetesClient onA = as(AGENT, "vap-a")) {
      IoNodeState own = onA.resource(nodeState("vap-a")).create();
      own.setStatus(status(3));
      assertThat(onA.resource(own).updateStatus().getStatus().getPods().getManaged()).isEqualTo(3);

      assertDenied(
          () -> onA.resource(nodeState("vap-c")).create(), "bound to node vap-a, not vap-c");
      IoNodeState foreign = admin.resources(IoNodeState.class).withName("vap-b").get();
      foreign.setStatus(status(7));
      assertDenied(() -> onA.resource(foreign).updateStatus(), "bound to node vap-a, not vap-b");
      foreign.getMetadata().setLabels(Map.of("touched", "yes"));
      // Updating the object itself is not granted at all (the agent writes only status).
      assertThatThrownBy(() -> onA.resource(foreign).update())
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(403);
                assertThat(e.getMessage()).contains("cannot update resource \"ionodestates\"");
              });
      assertThat(admin.resources(IoNodeState.class).withName("vap-b").get().getStatus()).isNull();
    } finally {
      admin.resources(IoNodeState.class).withName("vap-a").delete();
      admin.resources(IoNodeState.class).withName("vap-b").delete();
    }
  }

  @Test
  void aTokenWithoutANodeMayWriteNoNodeState() {
    assertDenied(
        () -> asAgent.resource(nodeState("vap-nobody")).create(), "its token names no node");
  }

  @Test
  void otherUsersAreNotJudgedByThePolicy() {
    try {
      IoNodeState created = admin.resource(nodeState("vap-admin")).create();
      created.setStatus(status(1));
      assertThat(admin.resource(created).updateStatus().getStatus()).isNotNull();
    } finally {
      admin.resources(IoNodeState.class).withName("vap-admin").delete();
    }
  }

  @Test
  void aDeleteIsJudgedOnTheOldObject() {
    // The agent may not delete at all (RBAC); grant it for this test to reach the policy.
    admin
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("rbac-it-delete-ionodestates")
                .endMetadata()
                .addNewRule()
                .withApiGroups("ioqos.dev")
                .withResources("ionodestates")
                .withVerbs("delete")
                .endRule()
                .build())
        .createOr(e -> e.update());
    admin
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("rbac-it-delete-ionodestates")
                .endMetadata()
                .withNewRoleRef(
                    "rbac.authorization.k8s.io", "ClusterRole", "rbac-it-delete-ionodestates")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("ioqos-agent")
                .withNamespace(NAMESPACE)
                .endSubject()
                .build())
        .createOr(e -> e.update());
    admin.resource(nodeState("del-a")).createOr(e -> e.update());
    admin.resource(nodeState("del-b")).createOr(e -> e.update());
    try (KubernetesClient onA = as(AGENT, "del-a")) {
      assertDenied(
          () -> onA.resources(IoNodeState.class).withName("del-b").delete(),
          "bound to node del-a, not del-b");
      onA.resources(IoNodeState.class).withName("del-a").delete();
      eventually(
          () -> admin.resources(IoNodeState.class).withName("del-a").get(),
          state -> state == null,
          "the agent deleted its own node's state");
      assertThat(admin.resources(IoNodeState.class).withName("del-b").get()).isNotNull();
    } finally {
      admin.rbac().clusterRoleBindings().withName("rbac-it-delete-ionodestates").delete();
      admin.rbac().clusterRoles().withName("rbac-it-delete-ionodestates").delete();
      admin.resources(IoNodeState.class).withName("del-a").delete();
      admin.resources(IoNodeState.class).withName("del-b").delete();
    }
  }

  // --- helpers ---

  static void assertDenied(Runnable write, String message) {
    assertThatThrownBy(write::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getMessage()).contains(POLICY).contains(message);
            });
  }

  static IoNodeState nodeState(String name) {
    IoNodeState state = new IoNodeState();
    state.getMetadata().setName(name);
    return state;
  }

  static IoNodeStateStatus status(int managed) {
    IoNodeStateStatus status = new IoNodeStateStatus();
    PodCounts pods = new PodCounts();
    pods.setManaged(managed);
    pods.setApplied(managed);
    pods.setFailed(0);
    status.setPods(pods);
    return status;
  }

  static IoPolicy policy(String name, String namespaceLabel) {
    String yaml = Policies.highAndLow(name, "ioqos-test", namespaceLabel, false, "");
    return admin.resource(Policies.load(admin, yaml)).createOr(e -> e.update());
  }

  static Pod pod(String name, String namespace, String node) {
    return admin.resource(Pods.onNode(namespace, name, node, "low")).createOr(e -> e.update());
  }

  static <T> T eventually(Supplier<T> value, Predicate<T> done, String what) {
    return Eventually.value(value, done, Duration.ofSeconds(30), what);
  }
}
