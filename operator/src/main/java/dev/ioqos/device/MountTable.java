package dev.ioqos.device;

import dev.ioqos.core.DeviceId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** A parsed {@code /proc/<pid>/mountinfo}: finds the mount that holds a path, lexically. */
public final class MountTable {

  /** Fields before the optional ones: id, parent, MAJ:MIN, root, mount point, options. */
  private static final int FIXED_FIELDS = 6;

  private final List<Mount> mounts;
  private final List<List<String>> mountPointParts;

  private MountTable(List<Mount> mounts) {
    this.mounts = List.copyOf(mounts);
    this.mountPointParts = this.mounts.stream().map(m -> components(m.mountPoint())).toList();
  }

  /** Parses mountinfo text; errors name {@code mountinfo} and the line. */
  public static MountTable parse(String text) throws MountTableException {
    return parse(text, "mountinfo");
  }

  /** Parses mountinfo text read from {@code source}, which error messages name. */
  public static MountTable parse(String text, String source) throws MountTableException {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(source, "source");
    List<Mount> mounts = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].isBlank()) {
        mounts.add(parseLine(lines[i], i + 1, source));
      }
    }
    return new MountTable(mounts);
  }

  /** All mounts in table order, which is the order they were mounted in. */
  public List<Mount> mounts() {
    return mounts;
  }

  /**
   * The mount holding an absolute path: the longest mount point that is a prefix of the normalised
   * path by whole components, the last one in table order when several are mounted on the same
   * point (the later one is mounted over the earlier). The path itself is never touched, since it
   * names a file on the host and this process may live in a container.
   *
   * @throws IllegalArgumentException if {@code absolutePath} does not start with {@code /}
   */
  public Optional<Mount> mountFor(String absolutePath) {
    List<String> path = components(absolutePath);
    Mount best = null;
    int bestLength = -1;
    for (int i = 0; i < mounts.size(); i++) {
      List<String> point = mountPointParts.get(i);
      if (point.size() <= path.size()
          && point.size() >= bestLength
          && path.subList(0, point.size()).equals(point)) {
        best = mounts.get(i);
        bestLength = point.size();
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * The mounts whose mount point lies strictly below an absolute directory, by whole components, in
   * table order, each with its mount point's components below that directory.
   */
  public List<Below> mountsBelow(String absoluteDir) {
    List<String> dir = components(absoluteDir);
    List<Below> below = new ArrayList<>();
    for (int i = 0; i < mounts.size(); i++) {
      List<String> point = mountPointParts.get(i);
      if (point.size() > dir.size() && point.subList(0, dir.size()).equals(dir)) {
        below.add(new Below(mounts.get(i), List.copyOf(point.subList(dir.size(), point.size()))));
      }
    }
    return below;
  }

  /** A mount found below a directory, and the components of its mount point below it. */
  public record Below(Mount mount, List<String> relative) {}

  /** The components of an absolute path after lexical {@code .} and {@code ..} removal. */
  static List<String> components(String absolutePath) {
    if (!absolutePath.startsWith("/")) {
      throw new IllegalArgumentException("not an absolute path: '" + absolutePath + "'");
    }
    List<String> parts = new ArrayList<>();
    for (String part : absolutePath.split("/")) {
      if (part.equals("..")) {
        if (!parts.isEmpty()) {
          parts.remove(parts.size() - 1);
        }
      } else if (!part.isEmpty() && !part.equals(".")) {
        parts.add(part);
      }
    }
    return parts;
  }

  /** {@code /} joined with the components, the normal form of an absolute path. */
  static String normalize(String absolutePath) {
    return "/" + String.join("/", components(absolutePath));
  }

  private static Mount parseLine(String line, int number, String source)
      throws MountTableException {
    String[] fields = line.strip().split(" +");
    // Optional fields (shared:N, master:N...) sit between the options and a lone "-".
    int separator = -1;
    for (int i = FIXED_FIELDS; i < fields.length && separator < 0; i++) {
      separator = fields[i].equals("-") ? i : -1;
    }
    if (separator < FIXED_FIELDS) {
      throw garbled(source, number, line, "has no ' - ' separator after six fields");
    }
    if (fields.length < separator + 3) {
      throw garbled(source, number, line, "lacks the filesystem type or source after ' - '");
    }
    String mountPoint = unescape(fields[4]);
    if (!mountPoint.startsWith("/")) {
      throw garbled(source, number, line, "has a mount point that is not absolute");
    }
    List<String> superOptions = new ArrayList<>();
    if (fields.length > separator + 3) {
      for (String option : fields[separator + 3].split(",")) {
        superOptions.add(unescape(option));
      }
    }
    return new Mount(
        number(fields[0], "mount id", source, number, line),
        number(fields[1], "parent id", source, number, line),
        device(fields[2], source, number, line),
        unescape(fields[3]),
        mountPoint,
        unescape(fields[separator + 1]),
        unescape(fields[separator + 2]),
        superOptions,
        number);
  }

  private static int number(String text, String what, String source, int number, String line)
      throws MountTableException {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw garbled(source, number, line, "has a " + what + " that is not a number");
    }
  }

  private static DeviceId device(String text, String source, int number, String line)
      throws MountTableException {
    try {
      return DeviceId.parse(text);
    } catch (IllegalArgumentException e) {
      throw garbled(source, number, line, "has a device that is not MAJ:MIN");
    }
  }

  private static MountTableException garbled(
      String source, int number, String line, String problem) {
    return new MountTableException(
        source, number, "line " + number + " of " + source + " " + problem + ": '" + line + "'");
  }

  /**
   * Decodes the kernel's {@code \ooo} escapes: mountinfo writes space, tab, newline and backslash
   * in paths that way, and overlay also escapes {@code ,} and {@code =} in its super options.
   */
  static String unescape(String field) {
    if (field.indexOf('\\') < 0) {
      return field;
    }
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && isOctal(field, i + 1)) {
        out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean isOctal(String text, int from) {
    if (from + 3 > text.length()) {
      return false;
    }
    for (int i = from; i < from + 3; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '7') {
        return false;
      }
    }
    return true;
  }
}
