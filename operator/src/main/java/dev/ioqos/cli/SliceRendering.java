package dev.ioqos.cli;

import dev.ioqos.cgroup.CgroupIoException;
import dev.ioqos.core.QosClass;
import dev.ioqos.core.WeightRange;
import dev.ioqos.core.policy.QosSliceScheme;
import dev.ioqos.node.QosSliceStep;
import dev.ioqos.node.QosSliceStep.MechanismPass;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * How {@code ioqos reconcile} and {@code explain} show the QoS slice step: JSON (field names are a
 * contract of {@code --output json}; the kernel tests read them) or text lines.
 */
final class SliceRendering {
  private SliceRendering() {}

  static Map<String, Object> json(QosSliceStep.Report report) {
    Map<String, Object> json = new LinkedHashMap<>();
    report.problem().ifPresent(problem -> json.put("problem", problem));
    json.put("managing", report.managing());
    json.put("ok", report.ok());
    json.put("weights", report.sliceWeights());
    json.put("written", report.written());
    json.put("restored", report.restored());
    json.put("drift", report.drift());
    json.put("notEnforced", report.notEnforced());
    json.put(
        "failures",
        report.failures().stream()
            .map(
                e -> {
                  Map<String, Object> failure = new LinkedHashMap<>();
                  failure.put("type", e.failure().name());
                  failure.put("message", e.getMessage());
                  return failure;
                })
            .toList());
    json.put("mechanisms", report.mechanisms().stream().map(SliceRendering::mechanism).toList());
    return json;
  }

  private static Map<String, Object> mechanism(MechanismPass pass) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("mechanism", pass.mechanism().toString());
    json.put("file", pass.plan().range().map(WeightRange::fileName).orElse(null));
    json.put("disks", pass.disks());
    json.put("scale", pass.plan().scale());
    json.put("exact", pass.plan().exact());
    Map<String, Object> slices = new LinkedHashMap<>();
    for (QosSliceScheme.SliceTarget target : pass.plan().slices()) {
      Map<String, Object> slice = new LinkedHashMap<>();
      slice.put("path", pass.slicePaths().get(target.slice()));
      slice.put("original", pass.originals().get(target.slice()));
      slice.put("found", pass.found().get(target.slice()));
      slice.put("target", target.weight());
      slice.put("basis", target.basis().name());
      slice.put("activePodWeights", target.sum());
      slice.put("holds", pass.applied().get(target.slice()));
      slices.put(target.slice().kubernetesName(), slice);
    }
    json.put("slices", slices);
    json.put(
        "pods",
        pass.pods().stream()
            .map(
                pod -> {
                  Map<String, Object> p = new LinkedHashMap<>();
                  p.put("uid", pod.uid());
                  p.put("qosClass", pod.qos().kubernetesName());
                  p.put("cgroupPath", pass.podPaths().get(pod.uid()));
                  p.put("weight", pod.weight());
                  p.put("active", pod.active());
                  p.put("share", round(pass.share(pod.uid())));
                  p.put("shareWithoutSlices", round(pass.shareWithout(pod.uid())));
                  p.put("intendedShare", round(pass.intendedShare(pod.uid())));
                  return p;
                })
            .toList());
    return json;
  }

  static String text(QosSliceStep.Report report) {
    StringBuilder text = new StringBuilder();
    if (report.problem().isPresent()) {
      return String.format("slices:   not run: %s%n", report.problem().get());
    }
    text.append(
        String.format(
            "slices:   %s%n",
            report.managing()
                ? "QoS slice weights follow their active pods"
                : "no pod holds values of ioqos: QoS slices left at (or restored to) their"
                    + " original weights"));
    for (MechanismPass pass : report.mechanisms()) {
      String file = pass.plan().range().map(WeightRange::fileName).orElse("");
      for (QosSliceScheme.SliceTarget target : pass.plan().slices()) {
        text.append(
            String.format(
                "  %-14s %s default %s (original %s, %s, active pods' weights %d)%n",
                file,
                pass.slicePaths().get(target.slice()),
                pass.applied().get(target.slice()),
                pass.originals().get(target.slice()),
                target.basis().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                target.sum()));
      }
    }
    report.written().forEach(line -> text.append(String.format("  written:  %s%n", line)));
    report.restored().forEach(line -> text.append(String.format("  restored: %s%n", line)));
    report.drift().forEach(line -> text.append(String.format("  drift:    %s (repaired)%n", line)));
    report.notEnforced().forEach(line -> text.append(String.format("  not enforced: %s%n", line)));
    for (CgroupIoException failure : report.failures()) {
      text.append(String.format("  failure:  %s: %s%n", failure.failure(), failure.getMessage()));
    }
    return text.toString();
  }

  /** One pod's share lines for explain. */
  static String podShares(QosSliceStep.Report report, String uid) {
    StringBuilder text = new StringBuilder();
    for (MechanismPass pass : report.mechanisms()) {
      var pod = pass.pod(uid);
      if (pod.isEmpty()) {
        continue;
      }
      String file = pass.plan().range().map(WeightRange::fileName).orElse("");
      Map<QosClass, Integer> slices = pass.applied();
      text.append(
          String.format(
              "share:    %s (%s on %s): weight %d, %s; %s of the disk with the QoS slices at %s"
                  + " (burstable %s, besteffort %s), %s at their original weights; its weight asks"
                  + " for %s%n",
              pass.mechanism(),
              file,
              String.join(", ", pass.disks()),
              pod.get().weight(),
              pod.get().active() ? "active" : "idle (share if it became active)",
              percent(pass.share(uid)),
              report.managing() ? "ioqos's weights" : "their current weights",
              slices.get(QosClass.BURSTABLE),
              slices.get(QosClass.BEST_EFFORT),
              percent(pass.shareWithout(uid)),
              percent(pass.intendedShare(uid))));
    }
    return text.toString();
  }

  private static String percent(OptionalDouble share) {
    return share.isPresent()
        ? String.format(Locale.ROOT, "%.1f%%", 100 * share.getAsDouble())
        : "-";
  }

  private static Double round(OptionalDouble share) {
    return share.isPresent() ? Math.round(share.getAsDouble() * 10000) / 10000.0 : null;
  }
}
