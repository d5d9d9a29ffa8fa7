package dev.ioqos.core.policy;

import dev.ioqos.core.QosClass;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** What the decision needs to know about a pod, including its namespace's labels. */
public record PodFacts(
    String namespace,
    String name,
    String uid,
    Map<String, String> labels,
    Map<String, String> annotations,
    Map<String, String> namespaceLabels,
    Optional<String> priorityClassName,
    QosClass qosClass,
    List<PodVolume> volumes) {

  /** A pod whose volumes are not known (or that has none). */
  public PodFacts(
      String namespace,
      String name,
      String uid,
      Map<String, String> labels,
      Map<String, String> annotations,
      Map<String, String> namespaceLabels,
      Optional<String> priorityClassName,
      QosClass qosClass) {
    this(
        namespace,
        name,
        uid,
        labels,
        annotations,
        namespaceLabels,
        priorityClassName,
        qosClass,
        List.of());
  }

  public PodFacts {
    Immutables.text(namespace, "pod namespace");
    Immutables.text(name, "pod name");
    Objects.requireNonNull(uid, "uid");
    labels = Immutables.map(labels, "pod labels");
    annotations = Immutables.map(annotations, "pod annotations");
    namespaceLabels = Immutables.map(namespaceLabels, "namespace labels");
    // The API server stores "" for a pod without a priority class on some paths; same meaning.
    priorityClassName =
        Objects.requireNonNullElse(priorityClassName, Optional.<String>empty())
            .filter(value -> !value.isBlank());
    Objects.requireNonNull(qosClass, "qosClass");
    volumes = Immutables.list(volumes, "pod volumes");
  }

  /** The annotation kubelet sets on a static pod's mirror pod: the static pod's config hash. */
  public static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

  /**
   * The UID kubelet named the pod's cgroup after: the API's UID, except for a static pod, whose
   * mirror pod in the API has a UID of its own while kubelet runs the pod under its config hash
   * (the mirror annotation's value). A mirror annotation that is not such a hash is ignored.
   */
  public String cgroupUid() {
    String hash = annotations.get(MIRROR_ANNOTATION);
    return dev.ioqos.core.PodUid.isConfigHash(hash) ? hash : uid;
  }

  /** {@code namespace/name}, as kubectl and Events name a pod. */
  public String qualifiedName() {
    return namespace + "/" + name;
  }
}
