package dev.ioqos.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ioqos.node.StateDirLock;
import dev.ioqos.testing.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ioqos reconcile}: the agent's node logic driven by object files, on a fixture node. */
class ReconcileCommandTest {
  static final String BURSTABLE = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  static final String GUARANTEED = "11111111-2222-4333-8444-555555555555";
  static final String BURSTABLE_DIR =
      "cgroup/kubepods.slice/kubepods-burstable.slice/"
          + "kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice";
  static final String GUARANTEED_DIR =
      "cgroup/kubepods.slice/kubepods-pod11111111_2222_4333_8444_555555555555.slice";

  static final String POLICY =
      """
      apiVersion: ioqos.dev/v1alpha1
      kind: IoPolicy
      metadata: {name: storage}
      spec:
        priority: 10
        defaultTier: standard
        tiers:
          - {name: standard, weight: 100}
          - name: low
            weight: 10
            limits: {writeBytesPerSecond: 10Mi, writeIOPS: 100}
      """;

  @TempDir Path temp;
  Path node;
  Path objects;
  Path state;

  @BeforeEach
  void setUp() throws Exception {
    node = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("node"));
    objects = Files.createDirectories(temp.resolve("objects"));
    state = temp.resolve("state");
  }

  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return new ObjectMapper().readTree(out);
    }

    JsonNode pod(String name) throws Exception {
      for (JsonNode pod : json().get("pods")) {
        if (pod.get("name").asText().equals(name)) {
          return pod;
        }
      }
      throw new AssertionError("no pod " + name + " in " + out);
    }
  }

  Run apply(String... extra) {
    return run("reconcile", extra);
  }

  Run run(String command, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                command,
                "--objects",
                objects.toString(),
                "--state-dir",
                state.toString(),
                "--node-name",
                "node-1",
                "--cgroupfs",
                node.resolve("cgroup").toString(),
                "--sysfs",
                node.resolve("sys").toString(),
                "--procfs",
                node.resolve("proc").toString(),
                "--devfs",
                node.resolve("dev").toString()));
    args.addAll(List.of(extra));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        Main.execute(
            new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  static String pod(String name, String uid, String qos, String tier, String nodeName) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: db
          uid: %s
          annotations: {%s}
        spec:
          nodeName: %s
          containers: [{name: main, image: busybox}]
        status: {qosClass: %s, phase: Running}
        """
        .formatted(name, uid, tier == null ? "" : "ioqos.dev/tier: " + tier, nodeName, qos);
  }

  void write(String file, String text) throws Exception {
    Files.writeString(objects.resolve(file), text);
  }

  String read(String dir, String file) throws Exception {
    return Files.readString(node.resolve(dir).resolve(file));
  }

  @Test
  void appliesTheTierToThePodsCgroupAndPrintsTheOutcome() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));

    Run run = apply("--output", "json");

    assertThat(run.err()).isEmpty();
    assertThat(run.exit()).isZero();
    assertThat(run.json().get("node").asText()).isEqualTo("node-1");
    assertThat(run.json().get("kubepodsPath").asText()).isEqualTo("/kubepods.slice");
    assertThat(run.json().get("ok").asBoolean()).isTrue();
    JsonNode backup = run.pod("backup");
    assertThat(backup.get("result").asText()).isEqualTo("APPLIED");
    assertThat(backup.get("policy").asText()).isEqualTo("storage");
    assertThat(backup.get("tier").asText()).isEqualTo("low");
    assertThat(backup.get("tierSource").asText()).isEqualTo("ANNOTATION");
    assertThat(backup.get("mode").asText()).isEqualTo("Enforce");
    assertThat(backup.get("qosClass").asText()).isEqualTo("Burstable");
    assertThat(backup.get("cgroupPath").asText()).isEqualTo("/" + BURSTABLE_DIR.substring(7));
    // kubeletRoot (the default) is /var/lib/kubelet on vdb1: the whole disk vdb, on bfq.
    assertThat(backup.get("disks").get(0).get("majMin").asText()).isEqualTo("254:16");
    assertThat(backup.get("disks").get(0).get("weights").asText()).isEqualTo("bfq");
    assertThat(backup.get("written"))
        .extracting(JsonNode::asText)
        .containsExactly(
            "io.bfq.weight default 10", "io.max 254:16 rbps=max wbps=10485760 riops=max wiops=100");
    assertThat(backup.has("failures")).isFalse();
    assertThat(backup.get("events").get(0).get("reason").asText()).isEqualTo("Applied");
    assertThat(backup.get("ledger").get("limits").get("254:16").get("wbps").asLong())
        .isEqualTo(10_485_760L);
    assertThat(backup.get("ledger").has("empty")).isFalse();
    assertThat(read(BURSTABLE_DIR, "io.max"))
        .isEqualTo("254:16 rbps=max wbps=10485760 riops=max wiops=100\n");
    assertThat(read(BURSTABLE_DIR, "io.bfq.weight")).isEqualTo("default 10\n");
    assertThat(Files.exists(state.resolve("ledger.json"))).isTrue();
  }

  @Test
  void aSecondPassOverTheSameObjectsChangesNothingAndPostsNoEvent() throws Exception {
    // The agent's behaviour (the one pod pass): an apply the kernel and the ledger already hold
    // reads, writes nothing, and has nothing new to tell the pod's owner.
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));
    assertThat(apply().exit()).isZero();

    Run run = apply("--output", "json");

    assertThat(run.exit()).isZero();
    JsonNode backup = run.pod("backup");
    assertThat(backup.get("result").asText()).isEqualTo("UNCHANGED");
    assertThat(backup.get("written")).isEmpty();
    assertThat(backup.get("events")).isEmpty();
    assertThat(backup.get("ledger").get("limits").get("254:16").get("wiops").asLong())
        .isEqualTo(100L);

    // Drift behind ioqos's back is repaired by the next pass, as at the agent's resync.
    Files.writeString(node.resolve(BURSTABLE_DIR).resolve("io.bfq.weight"), "default 100\n");
    JsonNode repaired = apply("--output", "json").pod("backup");
    assertThat(repaired.get("result").asText()).isEqualTo("APPLIED");
    assertThat(repaired.get("written"))
        .extracting(JsonNode::asText)
        .contains("io.bfq.weight default 10");
  }

  @Test
  void aStateDirectoryAnotherProcessHoldsIsRefusedUnlessTold() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));

    try (StateDirLock agent = StateDirLock.acquire(state)) {
      assertThat(agent).isNotNull();
      Run refused = apply();

      assertThat(refused.exit()).isEqualTo(1);
      assertThat(refused.err())
          .contains("is held by another ioqos process")
          .contains("--ignore-lock");
      assertThat(state.resolve("ledger.json")).doesNotExist();

      Run told = apply("--ignore-lock");
      assertThat(told.exit()).isZero();
      assertThat(told.out()).contains("result:   APPLIED");
    }
  }

  @Test
  void theFormerNameApplyStillWorks() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));

    Run run = run("apply");

    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("result:   APPLIED");
  }

  @Test
  void aPodRemovedFromTheObjectsIsRevertedThroughTheLedger() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));
    assertThat(apply().exit()).isZero();

    Files.delete(objects.resolve("backup.yaml"));
    Run run = apply("--output", "json");

    assertThat(run.exit()).isZero();
    JsonNode backup = run.pod("backup");
    assertThat(backup.get("result").asText()).isEqualTo("REVERTED");
    assertThat(backup.get("tier").asText()).isEqualTo("low");
    assertThat(backup.get("written"))
        .extracting(JsonNode::asText)
        .containsExactly(
            "io.bfq.weight default 100", "io.max 254:16 rbps=max wbps=max riops=max wiops=max");
    assertThat(backup.has("ledger")).isFalse();
    assertThat(read(BURSTABLE_DIR, "io.bfq.weight")).isEqualTo("default 100\n");

    // Nothing is left to revert: a third pass has no pods at all.
    assertThat(apply("--output", "json").json().get("pods")).isEmpty();
  }

  @Test
  void aPodNoTierPlacesAnyMoreIsRevertedToo() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));
    apply();

    Files.delete(objects.resolve("policy.yaml"));
    JsonNode backup = apply("--output", "json").pod("backup");

    assertThat(backup.get("result").asText()).isEqualTo("REVERTED");
    assertThat(backup.get("events").get(0).get("reason").asText()).isEqualTo("Reverted");
    assertThat(read(BURSTABLE_DIR, "io.bfq.weight")).isEqualTo("default 100\n");
  }

  @Test
  void aWeightNoDiskEnforcesIsSkippedAndNotWritten() throws Exception {
    // "/" is vda, scheduler none and no iocost: the weight does nothing there.
    write(
        "policy.yaml",
        POLICY.replace(
            "  defaultTier: standard\n", "  defaultTier: standard\n  devices: [{path: /}]\n"));
    write("db.yaml", pod("pg", GUARANTEED, "Guaranteed", "low", "node-1"));

    JsonNode pg = apply("--output", "json").pod("pg");

    assertThat(pg.get("result").asText()).isEqualTo("APPLIED");
    assertThat(pg.get("disks").get(0).get("majMin").asText()).isEqualTo("254:0");
    assertThat(pg.get("written"))
        .extracting(JsonNode::asText)
        .containsExactly("io.max 254:0 rbps=max wbps=10485760 riops=max wiops=100");
    assertThat(pg.get("skipped").get(0).get("feature").asText()).isEqualTo("io.weight");
    assertThat(pg.get("events"))
        .extracting(e -> e.get("reason").asText())
        .containsExactly("Applied", "NotEnforced");
    assertThat(read(GUARANTEED_DIR, "io.weight")).isEqualTo("default 100\n");
  }

  @Test
  void aKernelRefusalIsTypedAndFailsTheCommand() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));
    Files.delete(node.resolve(BURSTABLE_DIR).resolve("io.max"));

    Run run = apply("--output", "json");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("ioqos reconcile: 1 of 1 pods do not hold their values: db/backup FAILED");
    JsonNode backup = run.pod("backup");
    assertThat(backup.get("result").asText()).isEqualTo("FAILED");
    assertThat(backup.get("written"))
        .extracting(JsonNode::asText)
        .containsExactly("io.bfq.weight default 10");
    JsonNode failure = backup.get("failures").get(0);
    assertThat(failure.get("type").asText()).isEqualTo("FILE_MISSING");
    assertThat(failure.get("file").asText()).endsWith("/io.max");
    assertThat(failure.get("data").asText())
        .isEqualTo("254:16 rbps=max wbps=10485760 riops=max wiops=100");
    assertThat(backup.get("events").get(0).get("reason").asText()).isEqualTo("ApplyFailed");
  }

  @Test
  void podsOfOtherNodesFinishedPodsAndMissingCgroupsAreToldApart() throws Exception {
    write("policy.yaml", POLICY);
    write(
        "pods.yaml",
        pod("elsewhere", BURSTABLE, "Burstable", "low", "node-2")
            + "---\n"
            + pod("new", "99999999-2222-4333-8444-555555555555", "Burstable", "low", "node-1")
            + "---\n"
            + pod("done", GUARANTEED, "Guaranteed", "low", "node-1")
                .replace("phase: Running", "phase: Succeeded"));

    Run run = apply("--output", "json");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.pod("elsewhere").get("result").asText()).isEqualTo("OTHER_NODE");
    assertThat(run.pod("done").get("result").asText()).isEqualTo("FORGOTTEN");
    JsonNode created = run.pod("new");
    assertThat(created.get("result").asText()).isEqualTo("CGROUP_MISSING");
    assertThat(created.get("failures").get(0).get("type").asText()).isEqualTo("CGROUP_GONE");
    assertThat(read(BURSTABLE_DIR, "io.max")).isEmpty();
  }

  @Test
  void dryRunWritesNothing() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));

    Run run = apply("--output", "json", "--dry-run");

    JsonNode backup = run.pod("backup");
    assertThat(backup.get("result").asText()).isEqualTo("DRY_RUN");
    assertThat(backup.get("desired"))
        .extracting(JsonNode::asText)
        .contains("io.max 254:16 rbps=max wbps=10485760 riops=max wiops=100");
    assertThat(read(BURSTABLE_DIR, "io.max")).isEmpty();
    assertThat(Files.exists(state.resolve("ledger.json"))).isFalse();
  }

  @Test
  void listsNamespacesAndNodesFeedTheSelectors() throws Exception {
    write(
        "policy.yaml",
        POLICY.replace(
            "  priority: 10\n",
            "  priority: 10\n  namespaceSelector: {matchLabels: {team: data}}\n"
                + "  nodeSelector: {matchLabels: {disk: fast}}\n"));
    write(
        "cluster.json",
        """
        {"apiVersion": "v1", "kind": "List", "items": [
          {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "db", "labels": {"team": "data"}}},
          {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"disk": "fast"}}},
          {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "namespace": "db"}}
        ]}
        """);
    write("backup.yml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));

    Run selected = apply("--output", "json");
    assertThat(selected.pod("backup").get("result").asText()).isEqualTo("APPLIED");
    assertThat(selected.json().get("ignored").get(0).asText()).contains("ConfigMap other");

    write("cluster.json", "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": []}");
    Run unselected = apply("--output", "json");
    assertThat(unselected.pod("backup").get("result").asText()).isEqualTo("REVERTED");
  }

  @Test
  void textOutputIsForPeople() throws Exception {
    write("policy.yaml", POLICY);
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "low", "node-1"));

    Run run = apply();

    assertThat(run.out())
        .contains("node:     node-1 (kubepods /kubepods.slice)")
        .contains("policies: storage")
        .contains("pod:      db/backup")
        .contains("result:   APPLIED")
        .contains("policy:   storage, tier low (from ANNOTATION)")
        .contains("disk:     254:16 vdb (scheduler bfq, weights via bfq)")
        .contains("written:  io.max 254:16 rbps=max wbps=10485760 riops=max wiops=100");
  }

  @Test
  void unusableInputIsOneSentence() throws Exception {
    Run missing = apply();
    assertThat(missing.exit()).isZero();

    Path real = objects;
    objects = temp.resolve("nope");
    Run notADir = apply();
    objects = real;
    assertThat(notADir.exit()).isNotZero();
    assertThat(notADir.err().strip())
        .isEqualTo("ioqos reconcile: --objects " + temp.resolve("nope") + " is not a directory");

    write("broken.yaml", "kind: Pod\n  metadata: [\n");
    Run broken = apply();
    assertThat(broken.exit()).isNotZero();
    assertThat(broken.err())
        .startsWith("ioqos reconcile: cannot read " + objects.resolve("broken.yaml"));
  }

  @Test
  void aPodWithoutQosClassIsTakenAsBestEffortAndSaysSo() throws Exception {
    write("policy.yaml", POLICY);
    write(
        "backup.yaml",
        pod("backup", BURSTABLE, "Burstable", "low", "node-1")
            .replace("status: {qosClass: Burstable, phase: Running}", ""));

    Run run = apply("--output", "json");

    JsonNode backup = run.pod("backup");
    assertThat(backup.get("qosClass").asText()).isEqualTo("BestEffort");
    assertThat(backup.get("note").asText()).startsWith("status.qosClass is missing");
    // No BestEffort cgroup for this UID in the fixture: kubelet has not made it (yet).
    assertThat(backup.get("result").asText()).isEqualTo("CGROUP_MISSING");
    assertThat(backup.get("cgroupPath").asText()).contains("kubepods-besteffort.slice");
  }

  @Test
  void aPodWithoutUidCannotBePlaced() throws Exception {
    write("policy.yaml", POLICY);
    write(
        "backup.yaml",
        pod("backup", BURSTABLE, "Burstable", "low", "node-1").replace("uid: " + BURSTABLE, ""));

    Run run = apply("--output", "json");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.pod("backup").get("result").asText()).isEqualTo("INVALID_POD");
    assertThat(run.pod("backup").get("note").asText()).startsWith("metadata.uid is missing");
  }

  @Test
  void aPolicyThatCannotBeUsedIsIgnoredWithTheReason() throws Exception {
    write("policy.yaml", POLICY.replace("defaultTier: standard", "defaultTier: gold"));
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", null, "node-1"));

    Run run = apply("--output", "json");

    assertThat(run.json().get("ignored").get(0).asText()).startsWith("IoPolicy storage: ");
    assertThat(run.pod("backup").get("result").asText()).isEqualTo("NOT_MANAGED");
  }

  @Test
  void afterThePodsTheQosSlicesFollowTheirActivePodsAndAreRestoredWithThePolicy() throws Exception {
    // vdb (bfq) holds /var/lib/kubelet; the Burstable pod reads from it, the Guaranteed one not.
    Files.writeString(
        node.resolve(BURSTABLE_DIR).resolve("io.stat"),
        "254:16 rbytes=65536 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
    write("policy.yaml", POLICY);
    write("burstable.yaml", pod("batch", BURSTABLE, "Burstable", "low", "node-1"));
    write("guaranteed.yaml", pod("db", GUARANTEED, "Guaranteed", null, "node-1"));

    Run applied = apply("--output", "json");

    assertThat(applied.exit()).as(applied.err()).isZero();
    String slice = "cgroup/kubepods.slice/kubepods-burstable.slice";
    assertThat(read(slice, "io.bfq.weight").strip()).isEqualTo("default 10");
    JsonNode slices = applied.json().get("qosSlices");
    assertThat(slices.get("managing").asBoolean()).isTrue();
    assertThat(slices.get("written").get(0).asText())
        .isEqualTo("/kubepods.slice/kubepods-burstable.slice io.bfq.weight default 10");
    JsonNode bfq = slices.get("mechanisms").get(0);
    assertThat(bfq.get("mechanism").asText()).isEqualTo("bfq");
    assertThat(bfq.get("slices").get("Burstable").get("original").asInt()).isEqualTo(100);
    assertThat(Files.readString(state.resolve("slices.json"))).contains("\"original\":100");

    Files.delete(objects.resolve("policy.yaml"));
    Run reverted = apply();

    assertThat(reverted.exit()).as(reverted.err()).isZero();
    assertThat(read(slice, "io.bfq.weight").strip()).isEqualTo("default 100");
    assertThat(reverted.out())
        .contains("restored: /kubepods.slice/kubepods-burstable.slice io.bfq.weight default 100");
  }

  @Test
  void loopForRunsTheAgentsLatencyLoopOverThePassesPodsAndReportsItsCpu() throws Exception {
    write(
        "policy.yaml",
        """
        apiVersion: ioqos.dev/v1alpha1
        kind: IoPolicy
        metadata: {name: latency}
        spec:
          tiers:
            - {name: protected, weight: 500, latencyTarget: 2ms}
            - {name: batch, weight: 100}
        """);
    write("db.yaml", pod("db", GUARANTEED, "Guaranteed", "protected", "node-1"));
    write("backup.yaml", pod("backup", BURSTABLE, "Burstable", "batch", "node-1"));
    Path stat = node.resolve("sys/block/vdb/stat");
    Files.writeString(stat, "  100 0 800 50 200 0 409600 400 0 300 450 0 0 0 0 0 0\n");
    // The fixture's kernel has no io.latency: the loop is needed; both pods are idle, so the
    // loop only reads the protected pod's io.stat and writes nothing. A longer run measures the
    // loop's CPU when nothing is contended: -Dioqos.loopSeconds=20.
    String seconds = System.getProperty("ioqos.loopSeconds", "1.5");
    Run run = apply("--loop-for", seconds);
    System.out.println(run.out().lines().filter(l -> l.startsWith("loop ")).toList());
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("loop start needed=true disks=[vdb] members=2");
    assertThat(run.out()).containsPattern("loop end periods=[1-9][0-9]* ");
    assertThat(read(BURSTABLE_DIR, "io.max")).doesNotContainPattern("wbps=[0-9]");
  }
}
