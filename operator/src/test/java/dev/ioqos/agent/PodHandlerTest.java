package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.api.ApiMapping;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.PodDisks;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.policy.NodeFacts;
import dev.ioqos.core.policy.PodFacts;
import dev.ioqos.core.policy.PodVolume;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.metrics.ApplyMetrics;
import dev.ioqos.metrics.TierState;
import dev.ioqos.node.Ledger;
import dev.ioqos.node.NodeConfig;
import dev.ioqos.node.NodeEngine;
import dev.ioqos.node.PodEvent;
import dev.ioqos.node.PodPass;
import dev.ioqos.node.PodTarget;
import dev.ioqos.testing.Fixtures;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's pod handling on a fixture node, with hand-written fakes of its reporters. */
class PodHandlerTest {
  static final String UID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  static final String DIR =
      "cgroup/kubepods.slice/kubepods-burstable.slice/"
          + "kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice";
  static final NodeFacts NODE = new NodeFacts("node-1", Map.of());
  static final String POLICY =
      """
      apiVersion: ioqos.dev/v1alpha1
      kind: IoPolicy
      metadata: {name: storage}
      spec:
        tiers:
          - name: low
            weight: 10
            limits: {writeBytesPerSecond: 10Mi, writeIOPS: 100}
      %s
      """;

  @TempDir Path temp;

  final List<String> events = new ArrayList<>();
  final Map<String, NodeStateReporter.PodResult> states = new HashMap<>();
  final Map<String, TierState> tiers = new HashMap<>();
  final Map<String, List<DeviceId>> targetDisks = new HashMap<>();
  final List<String> kernelCalls = new ArrayList<>();

  final PodEventSink eventSink =
      new PodEventSink() {
        @Override
        public void post(PodTarget pod, PodEvent event) {
          events.add(event.type() + " " + event.reason().text());
        }

        @Override
        public void forget(String uid) {}
      };
  final PodStateSink stateSink =
      new PodStateSink() {
        @Override
        public void record(String uid, NodeStateReporter.PodResult result) {
          states.put(uid, result);
        }

        @Override
        public void forget(String uid) {
          states.remove(uid);
        }
      };
  final PodMetricsSink metricsSink =
      new PodMetricsSink() {
        @Override
        public void tier(
            String uid,
            String ns,
            String name,
            String tier,
            String path,
            TierState state,
            List<DeviceId> disks) {
          tiers.put(uid, state);
          targetDisks.put(uid, disks);
        }

        @Override
        public void forget(String uid) {
          tiers.remove(uid);
        }

        @Override
        public void kernelCall(
            ApplyMetrics.Operation operation, ApplyMetrics.Result result, Duration took) {
          kernelCalls.add(operation + " " + result);
        }
      };

  Path node;
  PodHandler handler;

  PodHandler handler(boolean dryRun) {
    node = Fixtures.copy("node/debian-6.12-systemd", temp.resolve("node"));
    NodeEngine engine =
        new NodeEngine(
            new NodeConfig(
                node.resolve("cgroup"),
                node.resolve("sys"),
                node.resolve("proc"),
                node.resolve("dev"),
                Optional.empty(),
                "/",
                "/var/lib/kubelet"));
    Ledger ledger = Ledger.open(temp.resolve("state"));
    return new PodHandler(
        new PodPass(engine, ledger, dryRun),
        ledger,
        eventSink,
        stateSink,
        metricsSink,
        new Backoff(Duration.ofMillis(100), Duration.ofSeconds(30)));
  }

  static List<PolicyRules> policy(String extra) {
    return List.of(
        ApiMapping.rules(Serialization.unmarshal(POLICY.formatted(extra), IoPolicy.class)));
  }

  static PodFacts pod(String tier) {
    return new PodFacts(
        "db",
        "backup",
        UID,
        Map.of(),
        tier == null ? Map.of() : Map.of("ioqos.dev/tier", tier),
        Map.of(),
        Optional.empty(),
        QosClass.BURSTABLE);
  }

  @Test
  void appliedThenUnchanged() throws Exception {
    handler = handler(false);

    assertThat(handler.handle(pod("low"), NODE, policy(""))).isEmpty();
    assertThat(events).containsExactly("Normal Applied");
    assertThat(states.get(UID).applied()).isTrue();
    assertThat(tiers.get(UID)).isEqualTo(TierState.APPLIED);
    assertThat(kernelCalls).containsExactly("APPLY SUCCESS");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 10\n");

    events.clear();
    assertThat(handler.handle(pod("low"), NODE, policy(""))).isEmpty();
    // Nothing changed: no Event, but the pass still counts as a successful apply.
    assertThat(events).isEmpty();
    assertThat(kernelCalls).containsExactly("APPLY SUCCESS", "APPLY SUCCESS");
  }

  @Test
  void aPodTargetedByVolumeReportsItsOwnDisksAndEachVolume() {
    handler = handler(false);
    PodFacts pod =
        new PodFacts(
            "db",
            "backup",
            UID,
            Map.of(),
            Map.of("ioqos.dev/tier", "low"),
            Map.of(),
            Optional.empty(),
            QosClass.BURSTABLE,
            List.of(
                new PodVolume("scratch", new PodVolume.EmptyDir(false)),
                new PodVolume("cache", new PodVolume.EmptyDir(true))));

    assertThat(handler.handle(pod, NODE, policy("  devices: [{podVolumes: {}}]"))).isEmpty();

    // The fixture's kubelet root dir is on vdb1: the disk emptyDir is on vdb, the memory one on
    // no disk.
    assertThat(targetDisks.get(UID)).containsExactly(DeviceId.parse("254:16"));
    PodDisks disks = states.get(UID).disks();
    assertThat(disks.getNamespace()).isEqualTo("db");
    assertThat(disks.getName()).isEqualTo("backup");
    assertThat(disks.getDisks()).containsExactly("254:16 (vdb)");
    assertThat(disks.getVolumes())
        .extracting(PodDisks.Volume::getName)
        .containsExactly("scratch", "cache");
    assertThat(disks.getVolumes().get(0).getDisks()).containsExactly("254:16 (vdb)");
    assertThat(disks.getVolumes().get(1).getDisks()).isNull();
    assertThat(disks.getVolumes().get(1).getNote()).isNotBlank();

    // The same pod under a node-wide policy: its disks are the policy's, not listed per pod.
    handler.handle(pod("low"), NODE, policy(""));
    assertThat(states.get(UID).disks()).isNull();
    assertThat(targetDisks.get(UID)).isEmpty();
  }

  @Test
  void notManaged() {
    handler = handler(false);

    assertThat(handler.handle(pod(null), NODE, policy(""))).isEmpty();

    assertThat(events).isEmpty();
    assertThat(states).isEmpty();
    assertThat(kernelCalls).isEmpty();
  }

  @Test
  void cgroupGoneIsRetriedWithBackoffThenApplied() throws Exception {
    handler = handler(false);
    Path dir = node.resolve(DIR);
    Path aside = temp.resolve("aside");
    Files.move(dir, aside);

    assertThat(handler.handle(pod("low"), NODE, policy(""))).contains(Duration.ofMillis(100));
    assertThat(handler.handle(pod("low"), NODE, policy(""))).contains(Duration.ofMillis(200));
    assertThat(events).isEmpty();
    assertThat(states.get(UID).reason()).isEqualTo("CgroupMissing");
    assertThat(kernelCalls).containsExactly("APPLY CGROUP_MISSING", "APPLY CGROUP_MISSING");

    Files.move(aside, dir);
    assertThat(handler.handle(pod("low"), NODE, policy(""))).isEmpty();
    assertThat(events).containsExactly("Normal Applied");
    assertThat(states.get(UID).applied()).isTrue();
  }

  @Test
  void kernelRefusal() throws Exception {
    handler = handler(false);
    Files.delete(node.resolve(DIR).resolve("io.max"));

    assertThat(handler.handle(pod("low"), NODE, policy(""))).isEmpty();

    assertThat(events).containsExactly("Warning ApplyFailed");
    assertThat(states.get(UID).applied()).isFalse();
    assertThat(states.get(UID).reason()).isEqualTo("FileMissing");
    assertThat(tiers.get(UID)).isEqualTo(TierState.FAILED);
    assertThat(kernelCalls).containsExactly("APPLY FAILURE");
  }

  @Test
  void revert() throws Exception {
    handler = handler(false);
    handler.handle(pod("low"), NODE, policy(""));
    events.clear();

    assertThat(handler.handle(pod(null), NODE, policy(""))).isEmpty();

    assertThat(events).containsExactly("Normal Reverted");
    assertThat(states).isEmpty();
    assertThat(tiers).isEmpty();
    assertThat(kernelCalls).containsExactly("APPLY SUCCESS", "REVERT SUCCESS");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 100\n");
  }

  @Test
  void dryRun() throws Exception {
    handler = handler(true);

    assertThat(handler.handle(pod("low"), NODE, policy(""))).isEmpty();

    assertThat(events).containsExactly("Normal DryRun");
    assertThat(states.get(UID).applied()).isTrue();
    assertThat(tiers.get(UID)).isEqualTo(TierState.DRY_RUN);
    assertThat(kernelCalls).isEmpty();
    assertThat(Files.readString(node.resolve(DIR).resolve("io.max"))).isEmpty();
  }

  @Test
  void aStaticPodIsFoundUnderItsConfigHashNotItsMirrorPodsUid() throws Exception {
    handler = handler(false);
    // kubelet runs a static pod under its config hash; the API's mirror pod has a UID of its own.
    String hash = "6c5b9e1e0c7e4bd0a1f3c2d9e8b7a6f5";
    Path uidDir = node.resolve(DIR);
    Path hashDir = uidDir.resolveSibling("kubepods-burstable-pod" + hash + ".slice");
    Files.move(uidDir, hashDir);
    PodFacts mirror =
        new PodFacts(
            "kube-system",
            "etcd-node-1",
            UID,
            Map.of(),
            Map.of("ioqos.dev/tier", "low", PodFacts.MIRROR_ANNOTATION, hash),
            Map.of(),
            Optional.empty(),
            QosClass.BURSTABLE);

    assertThat(handler.handle(mirror, NODE, policy(""))).isEmpty();

    assertThat(events).containsExactly("Normal Applied");
    assertThat(states.get(UID).applied()).isTrue();
    assertThat(Files.readString(hashDir.resolve("io.bfq.weight"))).isEqualTo("default 10\n");
  }

  @Test
  void unknownNodeLabelsKeepWhatIsAppliedInsteadOfReverting() throws Exception {
    handler = handler(false);
    String selector = "  nodeSelector: {matchLabels: {disk: ssd}}";
    NodeFacts ssd = new NodeFacts("node-1", Map.of("disk", "ssd"));
    assertThat(handler.handle(pod("low"), ssd, policy(selector))).isEmpty();
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 10\n");
    events.clear();

    // The agent restarted and its first GET of the node failed: labels unknown, read as empty.
    Optional<Duration> retry =
        handler.handle(
            pod("low"),
            NODE,
            policy(selector),
            java.util.Set.of(dev.ioqos.node.UnknownFact.NODE_LABELS));

    assertThat(retry).isPresent();
    assertThat(events).containsExactly("Warning FactsUnknown");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 10\n");
    assertThat(states.get(UID).applied()).isTrue();

    // Known and really not selected: now it is reverted.
    events.clear();
    handler.handle(pod("low"), NODE, policy(selector));
    assertThat(events).containsExactly("Normal Reverted");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 100\n");
  }

  @Test
  void unknownFactsNoPolicyReadsChangeNothing() {
    handler = handler(false);

    assertThat(
            handler.handle(
                pod("low"),
                NODE,
                policy(""),
                java.util.Set.of(dev.ioqos.node.UnknownFact.NODE_LABELS)))
        .isEmpty();
    assertThat(events).containsExactly("Normal Applied");
  }

  @Test
  void aLedgerThatCannotBeWrittenStopsTheWriteAndIsRetried() throws Exception {
    handler = handler(false);
    Path journal = temp.resolve("state/ledger.journal");
    Path snapshot = temp.resolve("state/ledger.json");
    Files.createDirectory(snapshot); // the snapshot cannot be replaced, also for root
    Files.createDirectory(journal); // nor the journal appended to

    Optional<Duration> retry = handler.handle(pod("low"), NODE, policy(""));

    assertThat(retry).isPresent();
    assertThat(events).containsExactly("Warning LedgerNotWritten");
    assertThat(states.get(UID).applied()).isFalse();
    assertThat(states.get(UID).reason()).isEqualTo("LedgerNotWritten");
    assertThat(kernelCalls).containsExactly("APPLY FAILURE");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 100\n");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.max"))).isEmpty();

    Files.delete(journal);
    Files.delete(snapshot);
    events.clear();
    assertThat(handler.handle(pod("low"), NODE, policy(""))).isEmpty();
    assertThat(events).containsExactly("Normal Applied");
    assertThat(Files.readString(node.resolve(DIR).resolve("io.bfq.weight")))
        .isEqualTo("default 10\n");
  }
}
