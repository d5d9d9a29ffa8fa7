package dev.ioqos.core;

import java.util.Locale;

/** A pod's Kubernetes QoS class; it decides which kubepods child holds the pod's cgroup. */
public enum QosClass {
  GUARANTEED("Guaranteed", null),
  BURSTABLE("Burstable", "burstable"),
  BEST_EFFORT("BestEffort", "besteffort");

  private final String kubernetesName;
  private final String cgroupPart;

  QosClass(String kubernetesName, String cgroupPart) {
    this.kubernetesName = kubernetesName;
    this.cgroupPart = cgroupPart;
  }

  /** The name as in {@code pod.status.qosClass}. */
  public String kubernetesName() {
    return kubernetesName;
  }

  /** The name part kubelet adds under kubepods, or null: Guaranteed pods sit directly below. */
  String cgroupPart() {
    return cgroupPart;
  }

  /** Parses {@code Guaranteed|Burstable|BestEffort}, case-insensitively. */
  public static QosClass parse(String text) {
    if (text != null) {
      String wanted = text.trim().toLowerCase(Locale.ROOT);
      for (QosClass qos : values()) {
        if (qos.kubernetesName.toLowerCase(Locale.ROOT).equals(wanted)) {
          return qos;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown QoS class '" + text + "': expected Guaranteed, Burstable or BestEffort");
  }

  @Override
  public String toString() {
    return kubernetesName;
  }
}
