package dev.ioqos.core;

import java.util.Locale;

/**
 * A pod UID that is safe to put into a cgroup name: a canonical UUID (8-4-4-4-12 hex digits).
 * Anything else is refused before a path is built, so a crafted UID can never name a directory
 * outside the pod's own.
 */
public record PodUid(String value) {

  public PodUid {
    if (!isCanonicalUuid(value)) {
      throw new IllegalArgumentException(
          "pod UID '" + value + "' is not a UUID (expected 8-4-4-4-12 hexadecimal digits)");
    }
    value = value.toLowerCase(Locale.ROOT);
  }

  public static PodUid of(String value) {
    return new PodUid(value);
  }

  private static boolean isCanonicalUuid(String text) {
    if (text == null || text.length() != 36) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
      if (dash ? c != '-' : Character.digit(c, 16) < 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return value;
  }
}
