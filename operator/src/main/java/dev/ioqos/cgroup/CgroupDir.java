package dev.ioqos.cgroup;

import java.nio.file.Path;

/**
 * One cgroup directory that passed {@link CgroupTree}'s checks: strictly inside the kubepods
 * subtree, no symlinks on the way. Only {@link CgroupTree} creates these.
 */
public final class CgroupDir {
  private final Path path;
  private final String cgroupPath;
  // Resolved once: the metrics scrape reads two files of every pod each time.
  private final Path[] files = new Path[IoFile.values().length];

  CgroupDir(Path path, String cgroupPath) {
    this.path = path;
    this.cgroupPath = cgroupPath;
  }

  /** The directory on the host filesystem. */
  public Path path() {
    return path;
  }

  /** The path relative to the cgroup mount, e.g. {@code /kubepods.slice/...}. */
  public String cgroupPath() {
    return cgroupPath;
  }

  Path file(IoFile file) {
    Path resolved = files[file.ordinal()];
    if (resolved == null) {
      resolved = path.resolve(file.fileName());
      files[file.ordinal()] = resolved; // a benign race: every thread resolves the same path
    }
    return resolved;
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
