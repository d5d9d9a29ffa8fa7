package dev.ioqos.e2e;

import dev.ioqos.agent.Agent;
import dev.ioqos.agent.AgentConfig;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.Pods;
import dev.ioqos.testkit.Policies;
import dev.ioqos.testkit.SandboxNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent end to end: a real API server, the real agent in-process, and a node's cgroup tree
 * in a temp directory. Each test has its own node name, namespace and policies, so the agent's
 * field-selected informer sees only that test's pods.
 */
abstract class AgentTestSupport {
  static final String LOW_CAP = "254:16 rbps=max wbps=20971520 riops=max wiops=200";
  static final String NO_CAP = "254:16 rbps=max wbps=max riops=max wiops=max";
  static KubernetesClient client;

  @TempDir Path temp;
  SandboxNode node;
  String nodeName;
  String namespace;
  Agent agent;

  @BeforeAll
  static void installCrds() throws Exception {
    client = TestCluster.get().newClient();
    Crds.installIoqos(client);
  }

  @BeforeEach
  void setUp(TestInfo test) {
    String id =
        test.getTestMethod().orElseThrow().getName().toLowerCase().replaceAll("[^a-z0-9]", "");
    id = id.length() > 40 ? id.substring(0, 40) : id;
    nodeName = "node-" + id;
    namespace = "ns-" + id;
    node = new SandboxNode(temp.resolve("node"));
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .withLabels(Map.of("ioqos-test", namespace))
                .endMetadata()
                .build())
        .createOr(e -> e.update());
  }

  @AfterEach
  void tearDown() {
    if (agent != null) {
      agent.close();
    }
    client.resources(IoPolicy.class).withLabel("ioqos-test", namespace).delete();
  }

  void startAgent() {
    startAgent(false);
  }

  void startAgent(boolean dryRun) {
    startAgent(dryRun, Duration.ofSeconds(2));
  }

  void startAgent(boolean dryRun, Duration resync) {
    agent =
        new Agent(
            new AgentConfig(nodeName, node.config(), temp.resolve("state"), dryRun, resync),
            TestCluster.get().newClient());
    agent.start();
  }

  IoPolicy policy(String name, String extraSpec) {
    String yaml = Policies.highAndLow(name, "ioqos-test", namespace, true, extraSpec);
    return client.resource(Policies.load(client, yaml)).create();
  }

  Pod pod(String name, String tier, String onNode) {
    return client.resource(Pods.onNode(namespace, name, onNode, tier)).create();
  }

  static String uid(Pod pod) {
    return pod.getMetadata().getUid();
  }

  String file(Pod pod, String name) {
    return node.read(uid(pod), QosClass.BURSTABLE, name);
  }

  static <T> T eventually(Supplier<T> value, java.util.function.Predicate<T> done, String what) {
    return Eventually.value(value, done, Duration.ofSeconds(20), what);
  }

  static void sleep(long millis) {
    Eventually.sleep(Duration.ofMillis(millis));
  }

  List<Event> events(Pod pod) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> e.getInvolvedObject().getName().equals(pod.getMetadata().getName()))
        .toList();
  }

  Event event(Pod pod, String reason) {
    return eventually(
            () -> events(pod).stream().filter(e -> e.getReason().equals(reason)).findFirst(),
            java.util.Optional::isPresent,
            "event " + reason + " on " + pod.getMetadata().getName())
        .get();
  }

  void awaitCap(Pod pod, String line) {
    eventually(() -> file(pod, "io.max"), text -> text.contains(line), "io.max holds " + line);
  }
}
