package dev.ioqos.device;

import static dev.ioqos.device.DeviceResolutionException.reason;

import dev.ioqos.core.DeviceId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The block-device part of a sysfs tree: device directories, partitions and slaves. */
final class SysfsBlockTree {

  /** Deeper stacks than this are cycles in a broken tree, not real dm/md layering. */
  private static final int MAX_DEPTH = 40;

  private final Path sysfs;

  SysfsBlockTree(Path sysfs) {
    this.sysfs = sysfs;
  }

  Path root() {
    return sysfs;
  }

  /** The canonical {@code devices/...} directory of the block device with this number. */
  Optional<Path> dirOf(DeviceId id) throws DeviceTreeException {
    Path link = sysfs.resolve("dev").resolve("block").resolve(id.toString());
    // The kernel makes these symlinks; a plain directory here is a copy that followed them, whose
    // name is MAJ:MIN instead of the device's, so it is skipped like a missing link.
    if (Files.isSymbolicLink(link) && Files.exists(link)) {
      return Optional.of(real(link));
    }
    // /sys/dev appeared in 2.6.27 and some sandboxes hide it: scan the device directories.
    for (Path entry : scanned()) {
      if (readDev(entry.resolve("dev")).equals(id)) {
        return Optional.of(real(entry));
      }
    }
    return Optional.empty();
  }

  /**
   * The directory of a kernel name such as {@code sda1} or {@code cciss!c0d0} (sysfs spells a
   * {@code /} in a device name as {@code !}).
   */
  Optional<Path> dirOfName(String kernelName) throws DeviceTreeException {
    if (kernelName.isEmpty() || kernelName.equals(".") || kernelName.equals("..")) {
      return Optional.empty();
    }
    // class/block lists partitions too; kernels built with CONFIG_SYSFS_DEPRECATED have only
    // block/<disk>, with partitions nested in it.
    for (Path candidate :
        List.of(
            sysfs.resolve("class").resolve("block").resolve(kernelName),
            sysfs.resolve("block").resolve(kernelName))) {
      if (Files.isRegularFile(candidate.resolve("dev"))) {
        return Optional.of(real(candidate));
      }
    }
    for (Path entry : scanned()) {
      if (entry.getFileName().toString().equals(kernelName)) {
        return Optional.of(real(entry));
      }
    }
    return Optional.empty();
  }

  /**
   * Every device directory reachable without /sys/dev: class/block entries, whole disks under
   * block/ and the partitions nested in them; each has a {@code dev} file.
   */
  private List<Path> scanned() throws DeviceTreeException {
    List<Path> found = new ArrayList<>();
    for (Path entry : list(sysfs.resolve("class").resolve("block"))) {
      addIfDevice(entry, found);
    }
    for (Path disk : list(sysfs.resolve("block"))) {
      addIfDevice(disk, found);
      for (Path child : list(disk)) {
        if (Files.exists(child.resolve("partition"))) {
          addIfDevice(child, found);
        }
      }
    }
    return found;
  }

  private static void addIfDevice(Path dir, List<Path> found) {
    if (Files.isRegularFile(dir.resolve("dev"))) {
      found.add(dir);
    }
  }

  /** The dm device whose {@code dm/name} is {@code mapperName}, as /dev/mapper names it. */
  Optional<Path> dirOfMapperName(String mapperName) throws DeviceTreeException {
    for (Path entry : list(sysfs.resolve("block"))) {
      Path name = entry.resolve("dm").resolve("name");
      if (Files.isRegularFile(name) && read(name).strip().equals(mapperName)) {
        return Optional.of(real(entry));
      }
    }
    return Optional.empty();
  }

  /** The whole disks at the bottom of the device in {@code dir}, sorted and de-duplicated. */
  List<Disk> wholeDisks(Path dir) throws DeviceTreeException {
    Set<Disk> disks = new TreeSet<>();
    collect(dir, disks, new ArrayDeque<>());
    return List.copyOf(disks);
  }

  private void collect(Path dir, Set<Disk> disks, Deque<Path> stack) throws DeviceTreeException {
    if (stack.contains(dir) || stack.size() >= MAX_DEPTH) {
      throw new DeviceTreeException(
          dir, "the sysfs device stack at " + dir + " loops or is more than 40 devices deep");
    }
    stack.push(dir);
    if (Files.exists(dir.resolve("partition"))) {
      // A partition's directory sits inside its disk's; the disk may itself be md or dm.
      Path disk = dir.getParent();
      if (!Files.isRegularFile(disk.resolve("dev"))) {
        // Seen with sysfs copies that follow symlinks (e.g. Maven resource copying).
        throw new DeviceTreeException(
            dir,
            "the partition "
                + dir
                + " does not sit inside its disk's sysfs directory, so its disk is unknown");
      }
      collect(disk, disks, stack);
    } else {
      List<Path> slaves = list(dir.resolve("slaves"));
      if (slaves.isEmpty()) {
        disks.add(new Disk(readDev(dir.resolve("dev")), kernelName(dir)));
      }
      for (Path slave : slaves) {
        collect(real(slave), disks, stack);
      }
    }
    stack.pop();
  }

  /** The name as /dev and lsblk spell it: sysfs writes {@code cciss/c0d0} as cciss!c0d0. */
  private static String kernelName(Path dir) {
    return dir.getFileName().toString().replace('!', '/');
  }

  DeviceId readDev(Path devFile) throws DeviceTreeException {
    String text = read(devFile).strip();
    try {
      return DeviceId.parse(text);
    } catch (IllegalArgumentException e) {
      throw new DeviceTreeException(
          devFile, devFile + " holds '" + text + "', not a MAJ:MIN device number", e);
    }
  }

  private static String read(Path file) throws DeviceTreeException {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new DeviceTreeException(file, "cannot read " + file + ": " + reason(e), e);
    }
  }

  /** Entries of a directory sorted by name, or none when it does not exist. */
  private static List<Path> list(Path dir) throws DeviceTreeException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.sorted().toList();
    } catch (IOException e) {
      throw new DeviceTreeException(dir, "cannot list " + dir + ": " + reason(e), e);
    }
  }

  /** Sysfs links are relative and nest, so let the kernel's own path walk canonicalise them. */
  private static Path real(Path path) throws DeviceTreeException {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      throw new DeviceTreeException(path, "cannot resolve " + path + " in sysfs: " + reason(e), e);
    }
  }
}
