package dev.ioqos.core;

import java.util.Objects;

/** A block device number as the kernel prints it in cgroup io files: {@code MAJ:MIN}. */
public record DeviceId(int major, int minor) implements Comparable<DeviceId> {

  public DeviceId {
    if (major < 0 || minor < 0) {
      throw new IllegalArgumentException(
          "device numbers must not be negative: " + major + ":" + minor);
    }
  }

  /** Parses {@code "254:0"}; throws {@link IllegalArgumentException} naming the text otherwise. */
  public static DeviceId parse(String text) {
    Objects.requireNonNull(text, "text");
    int colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1 || !digitsOnly(text, colon)) {
      throw new IllegalArgumentException("not a MAJ:MIN device number: '" + text + "'");
    }
    try {
      return new DeviceId(
          Integer.parseInt(text.substring(0, colon)), Integer.parseInt(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a MAJ:MIN device number: '" + text + "'", e);
    }
  }

  /** Integer.parseInt accepts signs; the kernel prints plain digits only. */
  private static boolean digitsOnly(String text, int colon) {
    for (int i = 0; i < text.length(); i++) {
      if (i != colon && (text.charAt(i) < '0' || text.charAt(i) > '9')) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int compareTo(DeviceId other) {
    int byMajor = Integer.compare(major, other.major);
    return byMajor != 0 ? byMajor : Integer.compare(minor, other.minor);
  }

  @Override
  public String toString() {
    return major + ":" + minor;
  }
}
