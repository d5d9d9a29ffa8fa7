package dev.ioqos.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * The cgroup v2 mount and the kubepods subtree inside it. Hands out {@link CgroupDir}s only for
 * directories strictly below kubepods, reached without following a symlink: this is what keeps a
 * node agent that runs as root from ever writing elsewhere.
 */
public final class CgroupTree {
  private final Path mount;
  private final String kubepodsPath;

  /**
   * @param mount the cgroup v2 mount point (the host's /sys/fs/cgroup)
   * @param kubepodsPath kubepods relative to the mount, e.g. {@code /kubepods.slice}
   */
  public CgroupTree(Path mount, String kubepodsPath) {
    this.mount = Objects.requireNonNull(mount, "mount");
    this.kubepodsPath = normalise(kubepodsPath);
    if (this.kubepodsPath.equals("/")) {
      throw new IllegalArgumentException("the kubepods cgroup cannot be the root cgroup");
    }
  }

  public Path mount() {
    return mount;
  }

  public String kubepodsPath() {
    return kubepodsPath;
  }

  /**
   * Resolves a cgroup strictly below kubepods, e.g. a pod's directory.
   *
   * @throws CgroupIoException {@link CgroupFailure#UNSAFE_PATH} when the path leaves kubepods or
   *     crosses a symlink, {@link CgroupFailure#CGROUP_GONE} when a directory on the way is missing
   */
  public CgroupDir below(String cgroupPath) throws CgroupIoException {
    String wanted = normalise(cgroupPath);
    Path target = mount.resolve(wanted.substring(1));
    if (!wanted.startsWith(kubepodsPath + "/")) {
      throw new CgroupIoException(
          CgroupFailure.UNSAFE_PATH, target, null, "not inside " + kubepodsPath);
    }
    Path current = mount;
    for (String part : wanted.substring(1).split("/")) {
      current = current.resolve(part);
      BasicFileAttributes attributes;
      try {
        attributes =
            Files.readAttributes(current, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException e) {
        throw new CgroupIoException(CgroupFailure.CGROUP_GONE, target, null, current + " missing");
      } catch (IOException e) {
        throw KernelAnswers.classify(e, target, null);
      }
      if (attributes.isSymbolicLink()) {
        throw new CgroupIoException(
            CgroupFailure.UNSAFE_PATH, target, null, current + " is a symlink");
      }
      if (!attributes.isDirectory()) {
        throw new CgroupIoException(
            CgroupFailure.UNSAFE_PATH, target, null, current + " is not a directory");
      }
    }
    return new CgroupDir(current, wanted);
  }

  /**
   * The names of the directories directly inside {@code cgroupPath} (kubepods itself or a cgroup
   * below it), sorted; symlinks and files are left out. Read-only: the slice step lists pods this
   * way, whatever API objects say.
   *
   * @throws CgroupIoException {@link CgroupFailure#UNSAFE_PATH} outside kubepods or through a
   *     symlink, {@link CgroupFailure#CGROUP_GONE} when the directory is missing
   */
  public java.util.List<String> childDirectories(String cgroupPath) throws CgroupIoException {
    String wanted = normalise(cgroupPath);
    Path directory = wanted.equals(kubepodsPath) ? checkedKubepods() : below(wanted).path();
    java.util.List<String> names = new java.util.ArrayList<>();
    try (java.nio.file.DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      for (Path entry : entries) {
        if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
          names.add(entry.getFileName().toString());
        }
      }
    } catch (NoSuchFileException e) {
      throw new CgroupIoException(
          CgroupFailure.CGROUP_GONE, directory, null, directory + " missing");
    } catch (IOException e) {
      throw KernelAnswers.classify(e, directory, null);
    }
    java.util.Collections.sort(names);
    return names;
  }

  private Path checkedKubepods() throws CgroupIoException {
    Path current = mount;
    for (String part : kubepodsPath.substring(1).split("/")) {
      current = current.resolve(part);
      if (Files.isSymbolicLink(current)) {
        throw new CgroupIoException(
            CgroupFailure.UNSAFE_PATH, current, null, current + " is a symlink");
      }
      if (!Files.isDirectory(current, LinkOption.NOFOLLOW_LINKS)) {
        throw new CgroupIoException(CgroupFailure.CGROUP_GONE, current, null, current + " missing");
      }
    }
    return current;
  }

  private static String normalise(String cgroupPath) {
    if (cgroupPath == null || !cgroupPath.startsWith("/")) {
      throw new IllegalArgumentException("cgroup path '" + cgroupPath + "' must be absolute");
    }
    StringBuilder out = new StringBuilder();
    for (String part : cgroupPath.split("/")) {
      if (part.isEmpty()) {
        continue;
      }
      if (part.equals(".") || part.equals("..")) {
        throw new IllegalArgumentException(
            "cgroup path '" + cgroupPath + "' must not contain '.' or '..'");
      }
      out.append('/').append(part);
    }
    return out.length() == 0 ? "/" : out.toString();
  }
}
