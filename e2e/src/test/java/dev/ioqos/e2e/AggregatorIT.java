package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.agent.Agent;
import dev.ioqos.agent.AgentConfig;
import dev.ioqos.aggregator.Aggregator;
import dev.ioqos.aggregator.AggregatorConfig;
import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoNodeStateStatus;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.IoPolicyStatus;
import dev.ioqos.api.v1alpha1.PodCounts;
import dev.ioqos.api.v1alpha1.PolicyPodCounts;
import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.Pods;
import dev.ioqos.testkit.Policies;
import dev.ioqos.testkit.SandboxNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ioqos aggregate} end to end against a real API server: IoNodeStates written as node agents
 * write them (or by a real agent in-process) are folded into IoPolicy status by the same {@link
 * Aggregator} the command runs, and replicas sharing a Lease elect one writer. Each test has its
 * own policies, node states and Lease; the aggregators see the whole cluster, so assertions only
 * look at this test's objects.
 */
class AggregatorIT {
  static final String LEASE_NAMESPACE = "ioqos-aggregator-it";
  static final Duration LEASE = Duration.ofSeconds(4);
  static final Duration RENEW = Duration.ofSeconds(3);
  static final Duration RETRY = Duration.ofSeconds(1);
  static KubernetesClient client;

  @TempDir Path temp;
  String id;
  final List<Aggregator> aggregators = new ArrayList<>();
  final List<KubernetesClient> clients = new ArrayList<>();
  Agent agent;

  @BeforeAll
  static void installCrds() throws Exception {
    client = TestCluster.get().newClient();
    Crds.installIoqos(client);
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(LEASE_NAMESPACE)
                .endMetadata()
                .build())
        .createOr(e -> e.update());
  }

  @BeforeEach
  void setUp(TestInfo test) {
    String name =
        test.getTestMethod().orElseThrow().getName().toLowerCase().replaceAll("[^a-z0-9]", "");
    id = "agg-" + (name.length() > 40 ? name.substring(0, 40) : name);
  }

  @AfterEach
  void tearDown() {
    aggregators.forEach(Aggregator::close);
    if (agent != null) {
      agent.close();
    }
    clients.forEach(KubernetesClient::close);
    client.resources(IoPolicy.class).withLabel("ioqos-test", id).delete();
    client.resources(IoNodeState.class).withLabel("ioqos-test", id).delete();
    // The agent's own IoNodeState has no label (and no Node to be owned by here).
    client.resources(IoNodeState.class).withName(id + "-node").delete();
  }

  // --- helpers ---

  Aggregator aggregator(String identity) {
    KubernetesClient own = TestCluster.get().newClient();
    clients.add(own);
    Aggregator aggregator =
        new Aggregator(
            new AggregatorConfig(LEASE_NAMESPACE, id, identity, LEASE, RENEW, RETRY), own);
    aggregators.add(aggregator);
    aggregator.start();
    return aggregator;
  }

  IoPolicy policy(String name, String extraSpec) {
    String yaml = Policies.highAndLow(name, "ioqos-test", id, true, extraSpec);
    return client.resource(Policies.load(client, yaml)).create();
  }

  static PolicyPodCounts counts(String policy, int applied, int failed) {
    return new PolicyPodCounts(policy, applied + failed, applied, failed);
  }

  /** Writes a node's IoNodeState as its agent does: create, then the status subresource. */
  void nodeState(String node, PolicyPodCounts... policies) {
    IoNodeState state = client.resources(IoNodeState.class).withName(node).get();
    if (state == null) {
      state = new IoNodeState();
      state.getMetadata().setName(node);
      state.getMetadata().setLabels(Map.of("ioqos-test", id));
      state = client.resource(state).create();
    }
    IoNodeStateStatus status = new IoNodeStateStatus();
    PodCounts pods = new PodCounts();
    pods.setManaged(Stream.of(policies).mapToInt(PolicyPodCounts::getManaged).sum());
    pods.setApplied(Stream.of(policies).mapToInt(PolicyPodCounts::getApplied).sum());
    pods.setFailed(Stream.of(policies).mapToInt(PolicyPodCounts::getFailed).sum());
    status.setPods(pods);
    status.setPolicies(List.of(policies));
    state.setStatus(status);
    client.resource(state).updateStatus();
  }

  IoPolicy get(String policy) {
    return client.resources(IoPolicy.class).withName(policy).get();
  }

  static Optional<Condition> condition(IoPolicy policy, String type) {
    if (policy == null
        || policy.getStatus() == null
        || policy.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return policy.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst();
  }

  static boolean nodes(IoPolicy policy, int selected, int applied, int failed) {
    return policy != null
        && policy.getStatus() != null
        && policy.getStatus().getNodes() != null
        && policy.getStatus().getNodes().getSelected() == selected
        && policy.getStatus().getNodes().getApplied() == applied
        && policy.getStatus().getNodes().getFailed() == failed;
  }

  static boolean is(IoPolicy policy, String type, String status, String reason) {
    return condition(policy, type)
        .filter(c -> c.getStatus().equals(status) && c.getReason().equals(reason))
        .isPresent();
  }

  static String describe(IoPolicy policy) {
    return policy == null
        ? "no policy"
        : client.getKubernetesSerialization().asJson(policy.getStatus());
  }

  IoPolicy awaitStatus(String policy, Predicate<IoPolicy> done, String what) {
    return eventually(() -> get(policy), done, what, Duration.ofSeconds(20));
  }

  Lease lease() {
    return client.resources(Lease.class).inNamespace(LEASE_NAMESPACE).withName(id).get();
  }

  static String holder(Lease lease) {
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  static <T> T eventually(Supplier<T> value, Predicate<T> done, String what, Duration within) {
    return Eventually.value(value, done, within, what, AggregatorIT::render);
  }

  private static String render(Object value) {
    return value instanceof IoPolicy policy ? describe(policy) : String.valueOf(value);
  }

  static void sleep(long millis) {
    Eventually.sleep(Duration.ofMillis(millis));
  }

  // --- folding ---

  @Test
  void nodeStatesAreFoldedIntoPolicyStatusAndReadyFollowsTheFailures() {
    String name = id + "-p";
    IoPolicy created = policy(name, "");
    nodeState(id + "-a", counts(name, 3, 0));
    nodeState(id + "-b", counts(name, 1, 1));
    // A node that runs only another policy's pods does not count.
    nodeState(id + "-c", counts(id + "-other", 2, 0));
    Aggregator aggregator = aggregator("only");

    IoPolicy failing =
        awaitStatus(
            name,
            p -> nodes(p, 2, 1, 1) && is(p, IoPolicyStatus.READY, "False", "SomeFailed"),
            "2 nodes selected, 1 applied, 1 failed, Ready False SomeFailed");
    assertThat(failing.getStatus().getObservedGeneration())
        .isEqualTo(created.getMetadata().getGeneration());
    assertThat(condition(failing, IoPolicyStatus.READY).orElseThrow().getMessage())
        .contains(id + "-b (1 of 2 pods)")
        .doesNotContain(id + "-a");
    assertThat(is(failing, IoPolicyStatus.CONFLICT, "False", "NoConflict")).isTrue();
    assertThat(is(failing, IoPolicyStatus.INVALID, "False", "Valid")).isTrue();
    String conflictSince =
        condition(failing, IoPolicyStatus.CONFLICT).orElseThrow().getLastTransitionTime();

    // Steady state: nothing changed, nothing written.
    long writes = aggregator.statusWrites();
    sleep(1500);
    assertThat(aggregator.statusWrites()).isEqualTo(writes);
    assertThat(get(name).getMetadata().getResourceVersion())
        .isEqualTo(failing.getMetadata().getResourceVersion());

    nodeState(id + "-b", counts(name, 2, 0));

    IoPolicy fixed =
        awaitStatus(
            name,
            p -> nodes(p, 2, 2, 0) && is(p, IoPolicyStatus.READY, "True", "AllApplied"),
            "both nodes applied, Ready True AllApplied");
    assertThat(condition(fixed, IoPolicyStatus.READY).orElseThrow().getMessage())
        .contains("all 2 nodes")
        .contains("5 pods");
    // Conflict did not change status: it keeps its transition time.
    assertThat(condition(fixed, IoPolicyStatus.CONFLICT).orElseThrow().getLastTransitionTime())
        .isEqualTo(conflictSince);

    // A spec change is observed.
    client
        .resources(IoPolicy.class)
        .withName(name)
        .edit(
            p -> {
              p.getSpec().setPriority(7);
              return p;
            });
    long generation = get(name).getMetadata().getGeneration();
    assertThat(generation).isGreaterThan(created.getMetadata().getGeneration());
    awaitStatus(
        name,
        p -> p.getStatus().getObservedGeneration() == generation,
        "observedGeneration follows the spec");
  }

  @Test
  void aPolicyNoNodeRunsIsReadyWithNoNodesAndConflictsAreReported() {
    String idle = id + "-idle";
    String tied = id + "-b";
    policy(idle, "");
    policy(tied, "");
    PolicyPodCounts loser = new PolicyPodCounts(tied, 0, 0, 0);
    loser.setConflicts(2);
    loser.setConflictingPolicies(List.of(id + "-a"));
    nodeState(id + "-n", loser);
    aggregator("only");

    awaitStatus(
        idle,
        p -> nodes(p, 0, 0, 0) && is(p, IoPolicyStatus.READY, "True", "NoNodes"),
        "a policy without pods is Ready with NoNodes");
    IoPolicy conflicting =
        awaitStatus(
            tied,
            p -> is(p, IoPolicyStatus.CONFLICT, "True", "PriorityTie"),
            "a tie it lost is a Conflict");
    assertThat(condition(conflicting, IoPolicyStatus.CONFLICT).orElseThrow().getMessage())
        .contains("2 pods on 1 node")
        .contains(id + "-a wins by name");
    // It governs no pod there: the node is not counted as selected.
    assertThat(nodes(conflicting, 0, 0, 0)).isTrue();
  }

  // --- with a real agent ---

  void namespace() {
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(id)
                .withLabels(Map.of("ioqos-test", id))
                .endMetadata()
                .build())
        .createOr(e -> e.update());
  }

  Pod pod(String name, String tier, String onNode) {
    return client.resource(Pods.onNode(id, name, onNode, tier)).create();
  }

  SandboxNode startAgent(String nodeName) {
    SandboxNode node = new SandboxNode(temp.resolve("node"));
    KubernetesClient own = TestCluster.get().newClient();
    clients.add(own);
    agent =
        new Agent(
            new AgentConfig(
                nodeName, node.config(), temp.resolve("state"), false, Duration.ofSeconds(2)),
            own);
    agent.start();
    return node;
  }

  @Test
  void aRealAgentsNodeStateShowsInThePolicyStatus() {
    namespace();
    String name = id + "-p";
    String nodeName = id + "-node";
    policy(name, "");
    SandboxNode node = startAgent(nodeName);
    aggregator("only");
    Pod app = pod("app", "low", nodeName);
    node.createPod(app.getMetadata().getUid(), QosClass.BURSTABLE);

    IoPolicy applied =
        awaitStatus(
            name,
            p -> nodes(p, 1, 1, 0) && is(p, IoPolicyStatus.READY, "True", "AllApplied"),
            "the agent's node counts as applied");
    assertThat(condition(applied, IoPolicyStatus.READY).orElseThrow().getMessage())
        .contains("the 1 node")
        .contains("1 pod");
    IoNodeState state = client.resources(IoNodeState.class).withName(nodeName).get();
    assertThat(state.getStatus().getPolicies())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo(name);
              assertThat(p.getManaged()).isEqualTo(1);
              assertThat(p.getApplied()).isEqualTo(1);
              assertThat(p.getFailed()).isZero();
              assertThat(p.getConflicts()).isNull();
            });
  }

  @Test
  void aTieSeenByARealAgentIsAConflictOnBothPolicies() {
    namespace();
    String winner = id + "-a";
    String loser = id + "-b";
    String nodeName = id + "-node";
    policy(loser, "  defaultTier: high\n");
    policy(winner, "  defaultTier: low\n");
    SandboxNode node = startAgent(nodeName);
    aggregator("only");
    Pod app = pod("app", null, nodeName);
    node.createPod(app.getMetadata().getUid(), QosClass.BURSTABLE);

    IoPolicy won =
        awaitStatus(
            winner,
            p -> nodes(p, 1, 1, 0) && is(p, IoPolicyStatus.CONFLICT, "True", "PriorityTie"),
            "the winner governs the pod and reports the tie");
    assertThat(condition(won, IoPolicyStatus.CONFLICT).orElseThrow().getMessage())
        .contains(loser)
        .contains("this policy wins by name");
    IoPolicy lost =
        awaitStatus(
            loser,
            p -> nodes(p, 0, 0, 0) && is(p, IoPolicyStatus.CONFLICT, "True", "PriorityTie"),
            "the loser governs nothing and reports the tie");
    assertThat(condition(lost, IoPolicyStatus.CONFLICT).orElseThrow().getMessage())
        .contains(winner + " wins by name");
  }

  // --- leader election ---

  @Test
  void onlyTheLeaderWritesAndAnotherTakesOverWhenItStops() {
    String name = id + "-p";
    policy(name, "");
    nodeState(id + "-a", counts(name, 1, 0));
    Aggregator first = aggregator("replica-1");
    Aggregator second = aggregator("replica-2");

    Aggregator leader =
        eventually(
            () -> first.aggregating() ? first : second.aggregating() ? second : null,
            a -> a != null,
            "one replica leads",
            Duration.ofSeconds(20));
    Aggregator follower = leader == first ? second : first;
    assertThat(holder(lease())).isEqualTo(leader.config().identity());
    awaitStatus(name, p -> nodes(p, 1, 1, 0), "the leader wrote the status");
    nodeState(id + "-a", counts(name, 0, 1));
    awaitStatus(name, p -> nodes(p, 1, 0, 1), "the leader follows the node state");
    // The count goes up when the write returns, which may be just after the GET sees it.
    eventually(leader::statusWrites, n -> n >= 2, "the leader counted both writes", RETRY);
    assertThat(follower.leading()).isFalse();
    assertThat(follower.aggregating()).isFalse();
    assertThat(follower.statusWrites()).isZero();
    // The follower learns who leads at its next attempt (it may have lost the race to create
    // the Lease, which it only logs).
    eventually(
        follower::leader,
        leader.config().identity()::equals,
        "the follower sees the leader",
        LEASE);
    assertThat(follower.statusWrites()).isZero();

    long stoppedAt = System.nanoTime();
    leader.close();
    long leaderWrites = leader.statusWrites();

    eventually(follower::aggregating, Boolean::booleanValue, "the follower takes over", LEASE);
    Duration takeover = Duration.ofNanos(System.nanoTime() - stoppedAt);
    assertThat(takeover).isLessThanOrEqualTo(LEASE);
    assertThat(holder(lease())).isEqualTo(follower.config().identity());
    long before = follower.statusWrites();
    nodeState(id + "-a", counts(name, 1, 0));
    awaitStatus(name, p -> nodes(p, 1, 1, 0), "the new leader writes the status");
    eventually(follower::statusWrites, n -> n > before, "the new leader counted it", RETRY);
    assertThat(leader.statusWrites()).isEqualTo(leaderWrites);
    assertThat(leader.leading()).isFalse();
  }

  @Test
  void aLeaderThatLosesTheLeaseStopsWritingAndCompetesAgain() {
    String name = id + "-p";
    policy(name, "");
    nodeState(id + "-a", counts(name, 1, 0));
    Aggregator aggregator = aggregator("replica-1");
    eventually(aggregator::aggregating, Boolean::booleanValue, "it leads", Duration.ofSeconds(20));
    awaitStatus(name, p -> nodes(p, 1, 1, 0), "the leader wrote the status");

    // Someone else holds the lease now (as after a partition in which it expired).
    client
        .resources(Lease.class)
        .inNamespace(LEASE_NAMESPACE)
        .withName(id)
        .edit(
            lease -> {
              lease.getSpec().setHolderIdentity("intruder");
              lease.getSpec().setRenewTime(ZonedDateTime.now(ZoneOffset.UTC));
              lease.getSpec().setLeaseDurationSeconds((int) LEASE.toSeconds());
              return lease;
            });
    long lostAt = System.nanoTime();
    eventually(
        () -> !aggregator.leading() && !aggregator.aggregating(),
        Boolean::booleanValue,
        "it stops leading at its next renewal",
        RENEW);
    long writes = aggregator.statusWrites();
    nodeState(id + "-a", counts(name, 0, 1));
    sleep(500);
    assertThat(aggregator.statusWrites()).isEqualTo(writes);
    assertThat(nodes(get(name), 1, 1, 0)).as("nobody wrote while the intruder held it").isTrue();

    // The intruder never renews: once its lease expires the replica leads again.
    eventually(
        aggregator::aggregating,
        Boolean::booleanValue,
        "it leads again after the intruder's lease expired",
        LEASE.plus(RENEW));
    assertThat(Duration.ofNanos(System.nanoTime() - lostAt))
        .isGreaterThanOrEqualTo(LEASE.minusMillis(500));
    assertThat(holder(lease())).isEqualTo("replica-1");
    awaitStatus(name, p -> nodes(p, 1, 0, 1), "the status catches up");
  }
}
