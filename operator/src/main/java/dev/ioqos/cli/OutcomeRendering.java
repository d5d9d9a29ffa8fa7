package dev.ioqos.cli;

import dev.ioqos.agent.ObjectsPass.Line;
import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.core.policy.DiskFacts;
import dev.ioqos.core.policy.PodDecision;
import dev.ioqos.core.policy.PolicyRules;
import dev.ioqos.core.policy.Skipped;
import dev.ioqos.node.DiskProblem;
import dev.ioqos.node.LedgerEntry;
import dev.ioqos.node.LedgerRecord;
import dev.ioqos.node.PodOutcome;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How {@code ioqos reconcile} shows a pod pass's outcome: one JSON object per pod (field names are
 * a contract of {@code --output json}; the kernel tests read them) or aligned text lines.
 */
final class OutcomeRendering {
  private OutcomeRendering() {}

  private static Map<String, Object> volume(dev.ioqos.node.VolumeDecision volume) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("volume", volume.volume());
    json.put("kind", volume.kind());
    json.put("location", volume.location());
    json.put("disks", volume.disks().stream().map(OutcomeRendering::disk).toList());
    if (!volume.note().isEmpty()) {
      json.put("note", volume.note());
    }
    json.put("problem", volume.problem());
    return json;
  }

  /** One pod as JSON-ready maps and lists; absent fields are left out. */
  static Map<String, Object> json(Line line, Optional<LedgerEntry> ledger, boolean dryRun) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("namespace", line.namespace());
    json.put("name", line.name());
    json.put("uid", line.uid());
    put(json, "qosClass", line.qosClass());
    json.put("result", line.result());
    put(json, "note", line.note());
    line.outcome().ifPresent(outcome -> outcome(json, outcome, dryRun));
    ledger
        .filter(entry -> !entry.isEmpty())
        .ifPresent(entry -> json.put("ledger", LedgerRecord.of(entry)));
    if (!json.containsKey("events")) {
      json.put("events", List.of());
    }
    return json;
  }

  private static void outcome(Map<String, Object> json, PodOutcome outcome, boolean dryRun) {
    Optional<PodDecision> decision = outcome.decision();
    Optional<PolicyRules> policy =
        decision.filter(PodDecision::managed).flatMap(PodDecision::policy);
    Optional<LedgerEntry> reverted = outcome.reverted();
    put(
        json,
        "policy",
        reverted.map(LedgerEntry::policy).orElse(policy.map(PolicyRules::name).orElse(null)));
    put(json, "priority", policy.map(PolicyRules::priority).orElse(null));
    decision
        .map(PodDecision::conflictingPolicies)
        .filter(tied -> !tied.isEmpty())
        .ifPresent(tied -> json.put("tiedPolicies", tied));
    put(
        json,
        "tier",
        reverted
            .map(LedgerEntry::tier)
            .orElse(decision.flatMap(PodDecision::tier).map(t -> t.name()).orElse(null)));
    if (decision.map(PodDecision::managed).orElse(false)) {
      json.put("tierSource", decision.get().source().name());
      json.put("mode", decision.get().dryRun() || dryRun ? "DryRun" : "Enforce");
    }
    put(
        json,
        "cgroupPath",
        reverted.map(LedgerEntry::cgroupPath).orElse(outcome.cgroupPath().orElse(null)));
    outcome
        .disks()
        .ifPresent(
            disks -> {
              json.put("disks", disks.disks().stream().map(OutcomeRendering::disk).toList());
              if (!disks.volumes().isEmpty()) {
                json.put(
                    "volumes", disks.volumes().stream().map(OutcomeRendering::volume).toList());
              }
              if (!disks.problems().isEmpty()) {
                json.put(
                    "diskProblems", disks.problems().stream().map(DiskProblem::message).toList());
              }
            });
    outcome.desired().ifPresent(desired -> json.put("desired", desired.settings().kernelLines()));
    if (!outcome.written().isEmpty() || outcome.kernelTime().isPresent()) {
      json.put("written", outcome.written());
    }
    if (!outcome.skipped().isEmpty()) {
      json.put("skipped", outcome.skipped().stream().map(OutcomeRendering::skipped).toList());
    }
    if (!outcome.failures().isEmpty()) {
      json.put("failures", outcome.failures().stream().map(OutcomeRendering::failure).toList());
    }
    json.put(
        "events",
        outcome.events().stream()
            .map(
                e -> {
                  Map<String, Object> event = new LinkedHashMap<>();
                  event.put("type", e.type().name());
                  event.put("reason", e.reason().text());
                  event.put("message", e.message());
                  return event;
                })
            .toList());
  }

  static Map<String, Object> disk(DiskFacts disk) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("majMin", disk.id().toString());
    json.put("name", disk.name());
    json.put("scheduler", disk.scheduler());
    json.put("weights", disk.weightMechanism().toString());
    return json;
  }

  private static Map<String, Object> skipped(Skipped skipped) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("feature", skipped.feature().fileName());
    skipped.disk().ifPresent(d -> json.put("disk", d.id().toString()));
    json.put("reason", skipped.reason());
    return json;
  }

  private static Map<String, Object> failure(CgroupIoException e) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("type", e.failure().name());
    put(json, "file", e.file() == null ? null : e.file().toString());
    put(json, "data", e.data());
    json.put("message", e.getMessage());
    return json;
  }

  /** One pod as text lines, in the order of the pass. */
  static String text(Line line) {
    StringBuilder text = new StringBuilder();
    text.append(String.format("%npod:      %s/%s%n", line.namespace(), line.name()));
    text.append(String.format("result:   %s%n", line.result()));
    if (line.note() != null) {
      text.append(String.format("note:     %s%n", line.note()));
    }
    if (line.outcome().isEmpty()) {
      return text.toString();
    }
    PodOutcome outcome = line.outcome().get();
    Optional<PodDecision> managed = outcome.decision().filter(PodDecision::managed);
    if (outcome.reverted().isPresent()) {
      LedgerEntry entry = outcome.reverted().get();
      text.append(String.format("policy:   %s, tier %s (was)%n", entry.policy(), entry.tier()));
    } else if (managed.isPresent()) {
      text.append(
          String.format(
              "policy:   %s, tier %s (from %s)%n",
              managed.get().policy().get().name(),
              managed.get().tier().get().name(),
              managed.get().source()));
    }
    outcome.cgroupPath().ifPresent(path -> text.append(String.format("cgroup:   %s%n", path)));
    outcome
        .disks()
        .ifPresent(
            disks -> {
              disks
                  .volumes()
                  .forEach(v -> text.append(String.format("volume:   %s%n", v.describe())));
              disks.disks().forEach(d -> text.append(diskLine(d)));
            });
    outcome.written().forEach(w -> text.append(String.format("written:  %s%n", w)));
    outcome.skipped().forEach(s -> text.append(String.format("skipped:  %s%n", s.reason())));
    for (CgroupIoException failure : outcome.failures()) {
      text.append(String.format("failure:  %s: %s%n", failure.failure(), failure.getMessage()));
    }
    outcome
        .events()
        .forEach(
            e ->
                text.append(
                    String.format(
                        "event:    %s %s: %s%n", e.type(), e.reason().text(), e.message())));
    return text.toString();
  }

  static String diskLine(DiskFacts d) {
    return String.format(
        "disk:     %s %s (scheduler %s, weights via %s)%n",
        d.id(), d.name(), d.scheduler(), d.weightMechanism());
  }

  private static void put(Map<String, Object> json, String key, Object value) {
    if (value != null) {
      json.put(key, value);
    }
  }
}
