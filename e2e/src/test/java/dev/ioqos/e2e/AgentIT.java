package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.core.QosClass;
import dev.ioqos.testkit.Policies;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The node agent end to end against a real API server and a node's cgroup tree. */
class AgentIT extends AgentTestSupport {
  @Test
  void policyBeforePodAppliesTheTierAndReadsItBack() {
    policy("pbp", "");
    startAgent();
    Pod backup = pod("backup", "low", nodeName);
    node.createPod(uid(backup), QosClass.BURSTABLE);

    awaitCap(backup, LOW_CAP);
    // vdb is on bfq and has no iocost: the weight goes to io.bfq.weight, io.weight stays alone.
    eventually(() -> file(backup, "io.bfq.weight"), "default 10\n"::equals, "bfq weight 10");
    assertThat(file(backup, "io.weight")).isEqualTo("default 100\n");
    assertThat(event(backup, "Applied").getMessage()).contains("policy pbp tier low");
    assertThat(events(backup)).noneMatch(e -> e.getReason().equals("NotEnforced"));
    assertThat(agent.ledger().get(uid(backup))).isPresent();
    assertThat(agent.stuck()).as("/healthz: informers running, loops beating").isEmpty();

    IoNodeState state =
        eventually(
            () -> client.resources(IoNodeState.class).withName(nodeName).get(),
            s -> s != null && s.getStatus() != null && s.getStatus().getPods().getApplied() == 1,
            "IoNodeState counts the pod");
    assertThat(state.getStatus().getPods().getManaged()).isEqualTo(1);
    assertThat(state.getStatus().getDevices()).extracting(d -> d.getName()).contains("vda", "vdb");
    // The sandbox tree is writable as a whole, as with the chart's cgroupDriver auto: the node
    // says so and names the values that narrow the mount.
    assertThat(state.getStatus().getConditions())
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo("CgroupWriteScope");
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("WholeTreeWritable");
              assertThat(c.getMessage()).contains("install with agent.cgroupDriver=");
            });
  }

  @Test
  void aPolicyOverManyPodsPostsTheNodesEventBudgetAndSummarizesTheRest() {
    policy("flood", "");
    startAgent();
    long started = System.nanoTime();
    List<Pod> pods =
        java.util.stream.IntStream.range(0, 40)
            .mapToObj(i -> pod("flood-" + i, "low", nodeName))
            .toList();
    pods.forEach(p -> node.createPod(uid(p), QosClass.BURSTABLE));
    pods.forEach(p -> awaitCap(p, LOW_CAP));
    long seconds = java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

    // Every pod is capped, but the node posts its burst (25) and one more per 5 s only.
    long applied =
        client.v1().events().inNamespace(namespace).list().getItems().stream()
            .filter(e -> e.getReason().equals("Applied"))
            .count();
    assertThat(applied).isBetween(1L, 25L + seconds / 5 + 1);
    Event summary =
        eventually(
                () ->
                    client.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> e.getInvolvedObject().getName().equals(nodeName))
                        .filter(e -> e.getReason().equals("EventsRateLimited"))
                        .findFirst(),
                java.util.Optional::isPresent,
                "a summary Event on the node")
            .get();
    assertThat(summary.getInvolvedObject().getKind()).isEqualTo("Node");
    assertThat(summary.getMessage()).contains("to keep within this node's Event budget (Applied ");
    assertThat(summary.getCount()).isPositive();
  }

  @Test
  void aTierItsNamespaceMayNotChooseIsRefusedUntilTheNamespaceIsAllowed() {
    String yaml =
        Policies.highAndLow("guarded", "ioqos-test", namespace, true, "  defaultTier: low\n")
            .replace(
                "    - {name: high, weight: 500}\n",
                "    - name: high\n"
                    + "      weight: 500\n"
                    + "      annotationNamespaceSelector: {matchLabels: {ioqos-high: allowed}}\n");
    client.resource(Policies.load(client, yaml)).create();
    startAgent(false, Duration.ofSeconds(2));
    Pod db = pod("db", "high", nodeName);
    node.createPod(uid(db), QosClass.BURSTABLE);

    // Asked for high from a namespace the tier does not allow: placed in the default tier.
    awaitCap(db, LOW_CAP);
    assertThat(event(db, "TierNotAllowed").getMessage())
        .contains("annotation ioqos.dev/tier=high names a tier of IoPolicy guarded")
        .contains("pods of namespace " + namespace + " may not choose");

    client
        .namespaces()
        .withName(namespace)
        .edit(
            n -> {
              n.getMetadata().getLabels().put("ioqos-high", "allowed");
              return n;
            });
    // The sandbox tree keeps the line the agent wrote; a kernel would drop an all-max line.
    eventually(() -> file(db, "io.max"), text -> !text.contains("wbps=20971520"), "the cap goes");
    eventually(() -> file(db, "io.bfq.weight"), "default 136\n"::equals, "tier high's weight");
  }

  @Test
  void aWeightNothingEnforcesIsReportedNotWritten() {
    // "/" is on vda: scheduler none, iocost off, so nothing enforces weights there.
    policy("unenforced", "  devices: [{path: /}]\n");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);

    awaitCap(app, "254:0 rbps=max wbps=20971520 riops=max wiops=200");
    Event notEnforced = event(app, "NotEnforced");
    assertThat(notEnforced.getType()).isEqualTo("Warning");
    assertThat(notEnforced.getMessage()).contains("vda");
    assertThat(file(app, "io.weight")).isEqualTo("default 100\n");
    assertThat(file(app, "io.bfq.weight")).isEqualTo("default 100\n");
  }

  @Test
  void driftBehindTheAgentsBackIsRepairedOnResync() throws Exception {
    policy("drift", "");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);
    awaitCap(app, LOW_CAP);

    // Someone lifts the cap by hand; the resync (2 s here) puts it back.
    Files.writeString(node.podDir(uid(app), QosClass.BURSTABLE).resolve("io.max"), NO_CAP + "\n");

    awaitCap(app, LOW_CAP);
  }

  @Test
  void podBeforePolicyIsAppliedWhenThePolicyArrives() {
    startAgent();
    Pod backup = pod("backup", "low", nodeName);
    node.createPod(uid(backup), QosClass.BURSTABLE);
    sleep(500);
    assertThat(file(backup, "io.max")).isEmpty();

    policy("pbp2", "");

    awaitCap(backup, LOW_CAP);
  }

  @Test
  void aTierChangeRewritesAndAnAnnotationRemovalRestoresDefaults() {
    policy("tiers", "");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);
    awaitCap(app, LOW_CAP);

    client
        .pods()
        .inNamespace(namespace)
        .withName("app")
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToAnnotations("ioqos.dev/tier", "high")
                    .endMetadata()
                    .build());
    // high has no caps: the cap written for low is lifted; weight 500 scales to bfq 136.
    awaitCap(app, NO_CAP);
    eventually(() -> file(app, "io.bfq.weight"), "default 136\n"::equals, "bfq weight 136");

    client
        .pods()
        .inNamespace(namespace)
        .withName("app")
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .removeFromAnnotations("ioqos.dev/tier")
                    .endMetadata()
                    .build());
    eventually(
        () -> file(app, "io.bfq.weight"), "default 100\n"::equals, "default weight restored");
    eventually(
        () -> agent.ledger().get(uid(app)).isEmpty(),
        Boolean::booleanValue,
        "ledger forgets the pod");
    assertThat(event(app, "Reverted").getMessage()).contains("io.bfq.weight default 100");
  }

  @Test
  void aDeletedPodIsForgottenAtOnceNotAtTheNextResync() {
    policy("deleted", "");
    startAgent(false, java.time.Duration.ofMinutes(10));
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);
    awaitCap(app, LOW_CAP);
    // The ledger is written before the cgroup; the metrics learn of the pod right after the kernel.
    assertThat(agent.ledger().get(uid(app))).isPresent();
    eventually(
        () -> agent.metrics().pods().tracked().contains(uid(app)),
        Boolean::booleanValue,
        "the metrics track the pod");

    // As kubelet does: the cgroup goes, then the pod object.
    node.removePod(uid(app), QosClass.BURSTABLE);
    client.pods().inNamespace(namespace).withName("app").withGracePeriod(0).delete();

    eventually(
        () ->
            agent.ledger().get(uid(app)).isEmpty()
                && !agent.metrics().pods().tracked().contains(uid(app)),
        Boolean::booleanValue,
        "the ledger and the metrics forget the deleted pod long before the 10 minute resync");
    assertThat(agent.metrics().scrape()).doesNotContain("pod=\"app\"");
  }

  @Test
  void deletingThePolicyRestoresDefaults() {
    policy("gone", "");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);
    awaitCap(app, LOW_CAP);

    client.resources(IoPolicy.class).withName("gone").delete();

    awaitCap(app, NO_CAP);
    eventually(
        () -> file(app, "io.bfq.weight"), "default 100\n"::equals, "default weight restored");
  }

  @Test
  void aPolicyDeletedWhileTheAgentWasDownIsRevertedOnStart() {
    policy("down", "");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);
    awaitCap(app, LOW_CAP);
    agent.close();

    client.resources(IoPolicy.class).withName("down").delete();
    sleep(300);
    assertThat(file(app, "io.max")).contains(LOW_CAP);

    startAgent();
    awaitCap(app, NO_CAP);
    eventually(
        () -> file(app, "io.bfq.weight"), "default 100\n"::equals, "default weight restored");
  }

  @Test
  void twoPoliciesWithTheSamePriorityConflictAndTheFirstNameWins() {
    policy("b-policy", "  defaultTier: high\n");
    policy("a-policy", "  defaultTier: low\n");
    startAgent();
    Pod app = pod("app", null, nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);

    awaitCap(app, LOW_CAP);
    assertThat(event(app, "PolicyConflict").getMessage()).contains("a-policy, b-policy");
  }

  @Test
  void anUnknownTierIsAWarningAndFallsBackToTheDefaultTier() {
    policy("unknown", "  defaultTier: low\n");
    startAgent();
    Pod app = pod("app", "platinum", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);

    awaitCap(app, LOW_CAP);
    Event warning = event(app, "UnknownTier");
    assertThat(warning.getType()).isEqualTo("Warning");
    assertThat(warning.getMessage()).contains("platinum");
  }

  @Test
  void dryRunWritesNothingAndSaysWhatItWouldDo() {
    policy("dry", "  mode: DryRun\n");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);

    Event dryRun = event(app, "DryRun");
    assertThat(dryRun.getMessage()).contains("would write").contains(LOW_CAP);
    assertThat(file(app, "io.max")).isEmpty();
    assertThat(file(app, "io.bfq.weight")).isEqualTo("default 100\n");
    assertThat(agent.ledger().entries()).isEmpty();
  }

  @Test
  void podsOfAnotherNodeAreNeverTouched() {
    policy("others", "");
    startAgent();
    Pod mine = pod("mine", "low", nodeName);
    Pod theirs = pod("theirs", "low", nodeName + "-other");
    node.createPod(uid(theirs), QosClass.BURSTABLE);
    node.createPod(uid(mine), QosClass.BURSTABLE);

    awaitCap(mine, LOW_CAP);
    sleep(500);
    assertThat(file(theirs, "io.max")).isEmpty();
    assertThat(events(theirs)).isEmpty();
  }

  @Test
  void aPodCgroupThatAppearsLateIsAppliedOnRetry() {
    policy("late", "");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    sleep(1500);

    node.createPod(uid(app), QosClass.BURSTABLE);

    awaitCap(app, LOW_CAP);
  }

  @Test
  void aRefusedWriteIsReportedWhileOtherPodsStillApply() throws Exception {
    policy("refused", "");
    startAgent();
    Pod broken = pod("broken", "low", nodeName);
    Pod fine = pod("fine", "low", nodeName);
    Path brokenDir = node.createPod(uid(broken), QosClass.BURSTABLE);
    // A cgroup whose io.max cannot be written (here: not a file) stands in for a kernel refusal.
    Files.delete(brokenDir.resolve("io.max"));
    Files.createDirectory(brokenDir.resolve("io.max"));
    node.createPod(uid(fine), QosClass.BURSTABLE);

    awaitCap(fine, LOW_CAP);
    Event failed = event(broken, "ApplyFailed");
    assertThat(failed.getType()).isEqualTo("Warning");
    assertThat(failed.getMessage())
        .contains("io.max")
        .contains("applied: io.bfq.weight default 10");
    IoNodeState state =
        eventually(
            () -> client.resources(IoNodeState.class).withName(nodeName).get(),
            s ->
                s != null
                    && s.getStatus() != null
                    && s.getStatus().getPods().getFailed() == 1
                    && s.getStatus().getPods().getApplied() == 1,
            "IoNodeState shows one failed and one applied pod");
    assertThat(state.getStatus().getPods().getFailures())
        .singleElement()
        .satisfies(f -> assertThat(f.getName()).isEqualTo("broken"));
    assertThat(state.getStatus().getConditions())
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo("PodsApplied");
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getMessage()).contains(namespace + "/broken");
            });
  }

  @Test
  void theBurstableSliceFollowsItsActivePodAndGetsItsWeightBackWithThePolicy() throws Exception {
    policy("slices", "");
    startAgent();
    Pod app = pod("app", "low", nodeName);
    node.createPod(uid(app), QosClass.BURSTABLE);
    awaitCap(app, LOW_CAP);
    java.nio.file.Path slice =
        node.cgroupfs.resolve("kubepods.slice/kubepods-burstable.slice/io.bfq.weight");
    // The pod reads from vdb (bfq) all along: its io.stat grows as a kernel's would.
    java.util.concurrent.atomic.AtomicBoolean reading =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread reader =
        new Thread(
            () -> {
              long ios = 0;
              while (reading.get()) {
                ios += 10;
                try {
                  java.nio.file.Files.writeString(
                      node.podDir(uid(app), QosClass.BURSTABLE).resolve("io.stat"),
                      "254:16 rbytes="
                          + ios * 65536
                          + " wbytes=0 rios="
                          + ios
                          + " wios=0 dbytes=0 dios=0\n");
                } catch (java.io.IOException e) {
                  return; // the cgroup went
                }
                sleep(200);
              }
            });
    reader.start();
    try {
      // The slice step (5 s after start, then every resync) sets the slice to its pod's weight.
      eventually(
          () -> readString(slice), "default 10\n"::equals, "burstable slice io.bfq.weight 10");
      assertThat(readString(temp.resolve("state/slices.json"))).contains("\"original\":100");

      client.resources(IoPolicy.class).withName("slices").delete();

      eventually(
          () -> readString(slice), "default 100\n"::equals, "burstable slice restored to 100");
      eventually(
          () -> readString(temp.resolve("state/slices.json")), "[]"::equals, "slice ledger empty");
    } finally {
      reading.set(false);
      reader.join();
    }
  }

  static String readString(java.nio.file.Path file) {
    try {
      return java.nio.file.Files.readString(file);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
