package dev.ioqos.device;

import static dev.ioqos.device.DeviceResolutionException.reason;

import dev.ioqos.core.DeviceId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolves a host path, a device node name or a device number to the whole disks on its I/O path,
 * reading only the host's mount table, sysfs and symlinks under devfs (see the package docs).
 */
public final class DiskResolver {

  /**
   * Filesystems that never sit on a block device even when their source looks like one (a tmpfs can
   * be mounted with any source string, e.g. {@code /dev/shm}).
   */
  private static final Set<String> NO_BLOCK_DEVICE =
      Set.of(
          "tmpfs",
          "ramfs",
          "devtmpfs",
          "proc",
          "sysfs",
          "cgroup",
          "cgroup2",
          "devpts",
          "mqueue",
          "hugetlbfs",
          "debugfs",
          "tracefs",
          "securityfs",
          "configfs",
          "bpf",
          "autofs",
          "nfs",
          "nfs4",
          "cifs",
          "smb3",
          "9p",
          "virtiofs",
          "fuse",
          "nsfs");

  private final Path mountinfo;
  private final SysfsBlockTree sysfs;
  private final DevfsNames devfs;

  /**
   * Roots of the host's procfs, sysfs and devfs, e.g. {@code /proc}, {@code /sys}, {@code /dev}.
   */
  public DiskResolver(Path procfs, Path sysfs, Path devfs) {
    this.mountinfo = Objects.requireNonNull(procfs, "procfs").resolve("1").resolve("mountinfo");
    this.sysfs = new SysfsBlockTree(Objects.requireNonNull(sysfs, "sysfs"));
    this.devfs = new DevfsNames(Objects.requireNonNull(devfs, "devfs"));
  }

  /**
   * The whole disks beneath an absolute host path, found through PID 1's mount table without
   * touching the path itself (it names a file on the host). Overlay mounts resolve through their
   * {@code upperdir}, where writes land; btrfs and other filesystems with an anonymous device
   * through their source device.
   */
  public List<Disk> forPath(String hostPath) throws DeviceResolutionException {
    if (hostPath == null || !hostPath.startsWith("/") || hostPath.indexOf('\0') >= 0) {
      throw new InvalidDeviceInputException(
          String.valueOf(hostPath), "'" + hostPath + "' is not an absolute host path");
    }
    return forPath(hostPath, readMountTable());
  }

  /**
   * Like {@link #forPath(String)}, against one reading of the mount table, for callers that resolve
   * several paths of the same moment (a pod's volumes).
   */
  public List<Disk> forPath(String hostPath, MountTable table) throws DeviceResolutionException {
    if (hostPath == null || !hostPath.startsWith("/") || hostPath.indexOf('\0') >= 0) {
      throw new InvalidDeviceInputException(
          String.valueOf(hostPath), "'" + hostPath + "' is not an absolute host path");
    }
    return forPath(hostPath, hostPath, table, new HashSet<>(), "");
  }

  /**
   * The whole disks beneath a device node name such as {@code /dev/sda1}, {@code
   * /dev/mapper/vg0-data} or {@code /dev/disk/by-id/nvme-...}, or the union for a glob in its last
   * component such as {@code /dev/disk/by-id/*SSD*}.
   */
  public List<Disk> forDeviceName(String devicePathOrGlob) throws DeviceResolutionException {
    String input = devicePathOrGlob;
    List<String> parts = devParts(input);
    List<String> dirParts = parts.subList(0, parts.size() - 1);
    String last = parts.get(parts.size() - 1);
    if (dirParts.stream().anyMatch(DiskResolver::isGlob)) {
      throw new InvalidDeviceInputException(
          input, input + " has a glob outside its last component, which is not supported");
    }
    if (!isGlob(last)) {
      return forDevicePath(input, parts);
    }
    // A glob selects among block devices: entries beside them that are not block devices (the
    // NVMe controller /dev/nvme0 beside /dev/nvme0n1, the /dev/md directory) are passed over.
    Set<Disk> disks = new TreeSet<>();
    List<String> passedOver = new ArrayList<>();
    for (String match : devfs.expand(input, dirParts, last)) {
      try {
        disks.addAll(forDevicePath(match, devParts(match)));
      } catch (NoSuchDeviceException e) {
        passedOver.add(match);
      }
    }
    if (disks.isEmpty()) {
      throw new NoSuchDeviceException(
          input, input + " matches " + shortList(passedOver) + ", none of which is a block device");
    }
    return List.copyOf(disks);
  }

  private static String shortList(List<String> names) {
    int shown = Math.min(names.size(), 5);
    String list = String.join(", ", names.subList(0, shown));
    return names.size() > shown ? list + " and " + (names.size() - shown) + " more" : list;
  }

  /** The whole disks beneath the block device with this number. */
  public List<Disk> forDevice(DeviceId device) throws DeviceResolutionException {
    Objects.requireNonNull(device, "device");
    Optional<Path> dir = sysfs.dirOf(device);
    if (dir.isEmpty()) {
      throw new NoSuchDeviceException(
          device.toString(),
          "block device "
              + device
              + " is not in sysfs (neither "
              + sysfs.root().resolve("dev/block/" + device)
              + " nor a dev file under "
              + sysfs.root().resolve("class/block")
              + ")");
    }
    return sysfs.wholeDisks(dir.get());
  }

  private List<Disk> forPath(
      String input, String path, MountTable table, Set<Integer> overlays, String via)
      throws DeviceResolutionException {
    Mount mount =
        table
            .mountFor(path)
            .orElseThrow(
                () ->
                    new MountTableException(
                        mountinfo.toString(),
                        "no mount in "
                            + mountinfo
                            + " holds "
                            + path
                            + (path.equals(input) ? "" : " (reached from " + input + ")"),
                        null));
    String where = " is on " + mount.fsType() + " (mounted at " + mount.mountPoint() + ")";
    if (mount.device().major() != 0) {
      try {
        return forDevice(mount.device());
      } catch (NoSuchDeviceException e) {
        throw new NoSuchDeviceException(
            input,
            input + via + where + " on device " + mount.device() + ", which is not in sysfs",
            e);
      }
    }
    // "overlayfs" is the out-of-tree name Ubuntu kernels before 3.18 used.
    if (mount.fsType().equals("overlay") || mount.fsType().equals("overlayfs")) {
      Optional<String> upper = mount.superOption("upperdir");
      if (upper.isEmpty()) {
        throw new NotOnBlockDeviceException(
            input,
            mount.mountPoint(),
            mount.fsType(),
            input + via + where + ", which has no upperdir and so no disk that writes go to");
      }
      if (!overlays.add(mount.id()) || !upper.get().startsWith("/")) {
        throw new MountTableException(
            mountinfo.toString(),
            mount.lineNumber(),
            "line "
                + mount.lineNumber()
                + " of "
                + mountinfo
                + " has an overlay upperdir ("
                + upper.get()
                + ") that is relative or leads back into the same overlay");
      }
      return forPath(
          input, upper.get(), table, overlays, via + where + " whose upperdir " + upper.get());
    }
    boolean namesDevice = mount.source().startsWith("/dev/");
    if (namesDevice && !NO_BLOCK_DEVICE.contains(mount.fsType()) && !isFuse(mount.fsType())) {
      try {
        return forDevicePath(mount.source(), devParts(mount.source()));
      } catch (NoSuchDeviceException | InvalidDeviceInputException e) {
        throw new NoSuchDeviceException(
            input,
            input
                + via
                + where
                + " from "
                + mount.source()
                + ", which is not a block device in "
                + sysfs.root(),
            e);
      }
    }
    throw new NotOnBlockDeviceException(
        input,
        mount.mountPoint(),
        mount.fsType(),
        input + via + where + ", which has no block device");
  }

  /** Resolves a /dev path with no glob: symlinks first, then a kernel or mapper name. */
  private List<Disk> forDevicePath(String input, List<String> parts)
      throws DeviceResolutionException {
    List<String> target = devfs.follow(input, parts);
    String shown = "/dev/" + String.join("/", target);
    String leadsTo =
        shown.equals(MountTable.normalize(input)) ? "" : " (it leads to " + shown + ")";
    Optional<Path> dir;
    String missing;
    if (target.size() == 2 && target.get(0).equals("mapper")) {
      // /dev/mapper/<name> is a symlink to ../dm-N on udev systems; without one (a bare
      // container /dev, an old LVM) the name is only in dm/name.
      dir = sysfs.dirOfMapperName(target.get(1));
      missing = "no " + sysfs.root().resolve("block/*/dm/name") + " reads " + target.get(1);
    } else {
      String kernelName = String.join("!", target);
      dir = target.isEmpty() ? Optional.empty() : sysfs.dirOfName(kernelName);
      missing = "there is no " + sysfs.root().resolve("class/block").resolve(kernelName);
    }
    if (dir.isEmpty()) {
      throw new NoSuchDeviceException(
          input, input + " names no block device" + leadsTo + ": " + missing);
    }
    return sysfs.wholeDisks(dir.get());
  }

  /** The components below /dev of a device path, after lexical normalisation. */
  private static List<String> devParts(String input) throws InvalidDeviceInputException {
    if (input == null || !input.startsWith("/") || input.indexOf('\0') >= 0) {
      throw new InvalidDeviceInputException(
          String.valueOf(input), "'" + input + "' is not a device path such as /dev/sda");
    }
    List<String> parts = MountTable.components(input);
    if (parts.size() < 2 || !parts.get(0).equals("dev")) {
      throw new InvalidDeviceInputException(
          input, input + " is not a device path under /dev such as /dev/sda");
    }
    return new ArrayList<>(parts.subList(1, parts.size()));
  }

  private static boolean isGlob(String part) {
    return part.chars().anyMatch(c -> c == '*' || c == '?' || c == '[' || c == '{');
  }

  private static boolean isFuse(String fsType) {
    return fsType.startsWith("fuse.");
  }

  /** The host's mount table as it is now ({@code <procfs>/1/mountinfo}). */
  public MountTable readMountTable() throws MountTableException {
    String text;
    try {
      text = new String(Files.readAllBytes(mountinfo), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new MountTableException(
          mountinfo.toString(), "cannot read the mount table " + mountinfo + ": " + reason(e), e);
    }
    return MountTable.parse(text, mountinfo.toString());
  }
}
