package dev.ioqos.core;

import java.util.Locale;

/**
 * A pod UID that is safe to put into a cgroup name: a canonical UUID (8-4-4-4-12 hex digits), or
 * the 32 hexadecimal digits kubelet gives a static pod (the MD5 of its manifest, its "config hash":
 * kubelet names the static pod's cgroup after it, and its mirror pod in the API carries it in the
 * annotation {@code kubernetes.io/config.mirror}). Anything else is refused before a path is built,
 * so a crafted UID can never name a directory outside the pod's own.
 */
public record PodUid(String value) {

  public PodUid {
    if (!isCanonicalUuid(value) && !isConfigHash(value)) {
      throw new IllegalArgumentException(
          "pod UID '"
              + value
              + "' is not a UUID (expected 8-4-4-4-12 hexadecimal digits) nor a static pod's"
              + " config hash (32 hexadecimal digits)");
    }
    value = value.toLowerCase(Locale.ROOT);
  }

  public static PodUid of(String value) {
    return new PodUid(value);
  }

  /** kubelet's UID of a static pod: the manifest's MD5, 32 hexadecimal digits. */
  public static boolean isConfigHash(String text) {
    if (text == null || text.length() != 32) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      if (Character.digit(text.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
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
