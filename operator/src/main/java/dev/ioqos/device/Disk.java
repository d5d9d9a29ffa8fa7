package dev.ioqos.device;

import dev.ioqos.core.DeviceId;
import java.util.Comparator;
import java.util.Objects;

/** A whole disk at the bottom of an I/O path, e.g. {@code 259:0 nvme0n1}. */
public record Disk(DeviceId id, String name) implements Comparable<Disk> {

  private static final Comparator<Disk> ORDER =
      Comparator.comparing(Disk::id).thenComparing(Disk::name);

  public Disk {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("disk " + id + " needs a kernel name");
    }
  }

  @Override
  public int compareTo(Disk other) {
    return ORDER.compare(this, other);
  }

  /** The line the {@code device} command prints: {@code MAJ:MIN name}. */
  @Override
  public String toString() {
    return id + " " + name;
  }
}
