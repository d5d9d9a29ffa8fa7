package dev.ioqos.cgroup;

import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.PodCgroupLayout;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/** Picks kubelet's cgroup driver from which kubepods directory exists, when not told. */
public final class DriverDetection {
  private DriverDetection() {}

  /**
   * The layout for an explicit driver, or for the driver whose kubepods directory exists when
   * {@code driver} is empty.
   *
   * @throws IllegalStateException naming both candidate paths when neither or both exist
   */
  public static PodCgroupLayout layout(
      Path cgroupMount, Optional<CgroupDriver> driver, String kubeletCgroupRoot) {
    if (driver.isPresent()) {
      return PodCgroupLayout.of(driver.get(), kubeletCgroupRoot);
    }
    PodCgroupLayout systemd = PodCgroupLayout.of(CgroupDriver.SYSTEMD, kubeletCgroupRoot);
    PodCgroupLayout cgroupfs = PodCgroupLayout.of(CgroupDriver.CGROUPFS, kubeletCgroupRoot);
    boolean hasSystemd = isDirectory(cgroupMount, systemd.kubepodsPath());
    boolean hasCgroupfs = isDirectory(cgroupMount, cgroupfs.kubepodsPath());
    if (hasSystemd && !hasCgroupfs) {
      return systemd;
    }
    if (hasCgroupfs && !hasSystemd) {
      return cgroupfs;
    }
    String both =
        cgroupMount + systemd.kubepodsPath() + " and " + cgroupMount + cgroupfs.kubepodsPath();
    throw new IllegalStateException(
        hasSystemd
            ? "cannot detect the cgroup driver: both "
                + both
                + " exist; pass --cgroup-driver systemd or cgroupfs"
            : "cannot detect the cgroup driver: neither "
                + both.replace(" and ", " nor ")
                + " exists; check --cgroupfs and --kubelet-cgroup-root, or pass --cgroup-driver");
  }

  private static boolean isDirectory(Path mount, String cgroupPath) {
    return Files.isDirectory(mount.resolve(cgroupPath.substring(1)), LinkOption.NOFOLLOW_LINKS);
  }
}
