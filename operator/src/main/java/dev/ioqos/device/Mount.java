package dev.ioqos.device;

import dev.ioqos.core.DeviceId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One line of {@code mountinfo}, with the kernel's octal escapes decoded.
 *
 * @param device field 3; major 0 means an anonymous device (btrfs, overlay, tmpfs, nfs...)
 * @param superOptions the last field split at commas, each still {@code key=value}
 * @param lineNumber 1-based line in the mount table, for error messages
 */
public record Mount(
    int id,
    int parentId,
    DeviceId device,
    String root,
    String mountPoint,
    String fsType,
    String source,
    List<String> superOptions,
    int lineNumber) {

  public Mount {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(mountPoint, "mountPoint");
    Objects.requireNonNull(fsType, "fsType");
    Objects.requireNonNull(source, "source");
    superOptions = List.copyOf(superOptions);
  }

  /** The value of a {@code key=value} super option, such as overlay's {@code upperdir}. */
  public Optional<String> superOption(String key) {
    String prefix = key + "=";
    return superOptions.stream()
        .filter(option -> option.startsWith(prefix))
        .map(option -> option.substring(prefix.length()))
        .findFirst();
  }
}
