package dev.ioqos.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A cgroup name kept abstract as a list of parts, like kubelet's {@code CgroupName}; the systemd
 * and cgroupfs spellings are two renderings of it.
 */
public final class CgroupName {
  private final List<String> parts;

  private CgroupName(List<String> parts) {
    for (String part : parts) {
      if (part.isEmpty() || part.contains("/") || part.equals(".") || part.equals("..")) {
        throw new IllegalArgumentException("invalid cgroup name part '" + part + "'");
      }
    }
    this.parts = List.copyOf(parts);
  }

  public static CgroupName of(String... parts) {
    return new CgroupName(List.of(parts));
  }

  /**
   * Parses kubelet's {@code --cgroup-root} (config {@code cgroupRoot}). A plain path such as {@code
   * /kubelet} is split by '/'; a systemd slice path such as {@code /kubelet.slice} is read from its
   * last slice, whose dash-separated parts are the name (kubelet ParseSystemdToCgroupName).
   */
  public static CgroupName parseCgroupRoot(String cgroupRoot) {
    String root = cgroupRoot == null || cgroupRoot.isBlank() ? "/" : cgroupRoot.trim();
    if (!root.startsWith("/")) {
      throw new IllegalArgumentException(
          "kubelet cgroup root '" + cgroupRoot + "' must be an absolute path");
    }
    List<String> components = new ArrayList<>();
    for (String component : root.split("/")) {
      if (!component.isEmpty()) {
        components.add(component);
      }
    }
    if (!components.isEmpty() && components.get(components.size() - 1).endsWith(".slice")) {
      String last = components.get(components.size() - 1);
      String unit = last.substring(0, last.length() - ".slice".length());
      if (unit.equals("-")) {
        return new CgroupName(List.of());
      }
      List<String> parts = new ArrayList<>();
      for (String part : unit.split("-")) {
        parts.add(part.replace('_', '-'));
      }
      return new CgroupName(parts);
    }
    return new CgroupName(components);
  }

  public CgroupName child(String part) {
    List<String> longer = new ArrayList<>(parts);
    longer.add(part);
    return new CgroupName(longer);
  }

  public List<String> parts() {
    return Collections.unmodifiableList(parts);
  }

  /** The cgroupfs driver's spelling: {@code /kubepods/burstable/pod<uid>}. */
  public String toCgroupfs() {
    return "/" + String.join("/", parts);
  }

  /**
   * The systemd driver's spelling: each part escaped ('-' becomes '_') and every prefix expanded
   * into a nested slice, {@code /kubepods.slice/kubepods-burstable.slice/...}.
   */
  public String toSystemd() {
    if (parts.isEmpty()) {
      return "/";
    }
    StringBuilder path = new StringBuilder();
    StringBuilder prefix = new StringBuilder();
    for (String part : parts) {
      if (prefix.length() > 0) {
        prefix.append('-');
      }
      prefix.append(part.replace('-', '_'));
      path.append('/').append(prefix).append(".slice");
    }
    return path.toString();
  }

  public String render(CgroupDriver driver) {
    return driver == CgroupDriver.SYSTEMD ? toSystemd() : toCgroupfs();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof CgroupName && ((CgroupName) other).parts.equals(parts);
  }

  @Override
  public int hashCode() {
    return Objects.hash(parts);
  }

  @Override
  public String toString() {
    return parts.toString();
  }
}
