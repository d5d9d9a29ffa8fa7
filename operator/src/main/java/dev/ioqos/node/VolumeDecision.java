package dev.ioqos.node;

import dev.ioqos.core.policy.DiskFacts;
import java.util.List;
import java.util.Objects;

/**
 * Where one pod volume's data lives on this node: the disks it targets, or why it targets none.
 *
 * @param volume the volume's name in the pod spec
 * @param kind how the pod spec declares it, e.g. {@code emptyDir}, {@code persistentVolumeClaim
 *     data}
 * @param location the host path (or device) resolved, e.g. kubelet's directory of the volume
 * @param disks the whole disks beneath it; empty when it has none
 * @param note why there is no disk, or how the disks were found; one sentence naming the volume
 * @param problem true when the volume should have resolved and did not (a Warning Event)
 */
public record VolumeDecision(
    String volume,
    String kind,
    String location,
    List<DiskFacts> disks,
    String note,
    boolean problem) {
  public VolumeDecision {
    Objects.requireNonNull(volume, "volume");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(location, "location");
    disks = List.copyOf(disks);
    Objects.requireNonNull(note, "note");
  }

  /** One line for explain and logs: {@code data (persistentVolumeClaim data) -> vda 254:0}. */
  public String describe() {
    String target =
        disks.isEmpty()
            ? "no disk"
            : String.join(", ", disks.stream().map(d -> d.name() + " " + d.id()).toList());
    return volume
        + " ("
        + kind
        + ", "
        + location
        + ") -> "
        + target
        + (note.isEmpty() ? "" : ": " + note);
  }
}
