package dev.ioqos.core;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;

/** The four io.max limits of one device; an empty value is the kernel's {@code max} (unlimited). */
public record IoLimits(
    OptionalLong rbps, OptionalLong wbps, OptionalLong riops, OptionalLong wiops) {

  /** No limit at all: what an absent io.max line means, since writing all-max removes the line. */
  public static final IoLimits NONE =
      new IoLimits(
          OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

  /** The io.max keys, in the order the kernel prints them. */
  public enum Key {
    RBPS,
    WBPS,
    RIOPS,
    WIOPS;

    /** The key as written in io.max, e.g. {@code wbps}. */
    public String kernelName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public IoLimits {
    requirePositive(Key.RBPS, rbps);
    requirePositive(Key.WBPS, wbps);
    requirePositive(Key.RIOPS, riops);
    requirePositive(Key.WIOPS, wiops);
  }

  /** The limit for one key; empty means {@code max}. */
  public OptionalLong get(Key key) {
    return switch (key) {
      case RBPS -> rbps;
      case WBPS -> wbps;
      case RIOPS -> riops;
      case WIOPS -> wiops;
    };
  }

  /** A copy with one key limited to {@code value} (positive). */
  public IoLimits with(Key key, long value) {
    return with(key, OptionalLong.of(value));
  }

  /** A copy with one key set; empty means {@code max}. */
  public IoLimits with(Key key, OptionalLong value) {
    return new IoLimits(
        key == Key.RBPS ? value : rbps,
        key == Key.WBPS ? value : wbps,
        key == Key.RIOPS ? value : riops,
        key == Key.WIOPS ? value : wiops);
  }

  /** True when every key is {@code max}. */
  public boolean isUnlimited() {
    return equals(NONE);
  }

  private static void requirePositive(Key key, OptionalLong value) {
    Objects.requireNonNull(value, key.kernelName());
    // The kernel refuses 0 with ERANGE ("Numerical result out of range"): unlimited is max.
    if (value.isPresent() && value.getAsLong() <= 0) {
      throw new IllegalArgumentException(
          key.kernelName()
              + " must be positive or absent (max), was "
              + value.getAsLong()
              + ": the kernel refuses 0 with ERANGE");
    }
  }
}
