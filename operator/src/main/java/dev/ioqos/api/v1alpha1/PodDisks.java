package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/**
 * The disks one pod's tier is written to when its policy targets the pod's own volumes ({@code
 * devices: [{podVolumes: ...}]}), and how each volume was resolved.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodDisks {
  /** At most this many disks and this many volumes are listed per pod. */
  public static final int MAX_ITEMS = 32;

  /** Longer notes are cut. */
  public static final int MAX_NOTE_LENGTH = 256;

  @Required
  @Size(max = 63)
  private String namespace;

  @Required
  @Size(max = 253)
  private String name;

  @JsonPropertyDescription(
      "The whole disks the pod's tier values are written to, as MAJ:MIN (kernel name), e.g."
          + " 254:0 (vda); at most 32.")
  @Size(max = MAX_ITEMS)
  private List<String> disks;

  @JsonPropertyDescription(
      "Each volume the policy targets and the disks beneath it, or why it has none; at most 32.")
  @Size(max = MAX_ITEMS)
  private List<Volume> volumes;

  /** A pod's entry with its lists cut to {@link #MAX_ITEMS} and notes to their maximum length. */
  public static PodDisks of(
      String namespace, String name, List<String> disks, List<Volume> volumes) {
    PodDisks pod = new PodDisks();
    pod.setNamespace(namespace);
    pod.setName(name);
    pod.setDisks(
        disks.isEmpty() ? null : List.copyOf(disks.subList(0, Math.min(MAX_ITEMS, disks.size()))));
    pod.setVolumes(
        volumes.isEmpty()
            ? null
            : List.copyOf(volumes.subList(0, Math.min(MAX_ITEMS, volumes.size()))));
    return pod;
  }

  /** One pod volume and where its data lives. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Volume {
    @Required
    @Size(max = 63)
    private String name;

    @JsonPropertyDescription(
        "How the pod declares it, e.g. emptyDir, persistentVolumeClaim data, hostPath.")
    @Size(max = 320)
    private String kind;

    @JsonPropertyDescription("The whole disks beneath the volume, as MAJ:MIN (kernel name).")
    @Size(max = MAX_ITEMS)
    private List<String> disks;

    @JsonPropertyDescription(
        "Why the volume has no disk (e.g. memory-backed, not mounted yet), or how it was found.")
    @Size(max = MAX_NOTE_LENGTH)
    private String note;

    /** A volume entry; {@code note} is cut to its maximum length, an empty one left out. */
    public static Volume of(String name, String kind, List<String> disks, String note) {
      Volume volume = new Volume();
      volume.setName(name);
      volume.setKind(PodFailure.cut(kind, 320));
      volume.setDisks(
          disks.isEmpty()
              ? null
              : List.copyOf(disks.subList(0, Math.min(MAX_ITEMS, disks.size()))));
      volume.setNote(note == null || note.isEmpty() ? null : PodFailure.cut(note, MAX_NOTE_LENGTH));
      return volume;
    }

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public String getKind() {
      return kind;
    }

    public void setKind(String kind) {
      this.kind = kind;
    }

    public List<String> getDisks() {
      return disks;
    }

    public void setDisks(List<String> disks) {
      this.disks = disks;
    }

    public String getNote() {
      return note;
    }

    public void setNote(String note) {
      this.note = note;
    }
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public List<String> getDisks() {
    return disks;
  }

  public void setDisks(List<String> disks) {
    this.disks = disks;
  }

  public List<Volume> getVolumes() {
    return volumes;
  }

  public void setVolumes(List<Volume> volumes) {
    this.volumes = volumes;
  }
}
