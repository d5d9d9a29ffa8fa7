package dev.ioqos.core;

import java.util.Locale;

/** kubelet's cgroup driver: how a cgroup name is spelled on disk. */
public enum CgroupDriver {
  SYSTEMD,
  CGROUPFS;

  /** Parses {@code systemd|cgroupfs}, case-insensitively. */
  public static CgroupDriver parse(String text) {
    if (text != null) {
      switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "systemd":
          return SYSTEMD;
        case "cgroupfs":
          return CGROUPFS;
        default:
          break;
      }
    }
    throw new IllegalArgumentException(
        "unknown cgroup driver '" + text + "': expected systemd or cgroupfs");
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
