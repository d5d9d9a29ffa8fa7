package dev.ioqos.core;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/** One io.max line: a device and its limits, e.g. {@code 254:0 rbps=max wbps=20971520 ...}. */
public record IoMaxLine(DeviceId device, IoLimits limits) {

  static final String FILE = "io.max";
  private static final String MAX = "max";

  public IoMaxLine {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(limits, "limits");
  }

  /**
   * Parses one line. Keys may come in any order and missing keys are {@code max}, as the kernel
   * accepts them on write; unknown and repeated keys are refused.
   */
  public static IoMaxLine parse(String line) {
    Objects.requireNonNull(line, "line");
    List<String> tokens = KernelText.tokens(line);
    if (tokens.isEmpty()) {
      throw new KernelFormatException(FILE, line, "no device");
    }
    DeviceId device = KernelText.device(FILE, line, tokens.get(0));
    IoLimits limits = IoLimits.NONE;
    boolean[] seen = new boolean[IoLimits.Key.values().length];
    for (int i = 1; i < tokens.size(); i++) {
      String token = tokens.get(i);
      int eq = KernelText.equalsSign(FILE, line, token);
      IoLimits.Key key = key(line, token.substring(0, eq));
      if (seen[key.ordinal()]) {
        throw new KernelFormatException(FILE, line, key.kernelName() + " appears twice");
      }
      seen[key.ordinal()] = true;
      limits = limits.with(key, value(line, key, token, eq));
    }
    return new IoMaxLine(device, limits);
  }

  /**
   * The line as the kernel prints it back: all four keys, always in the order rbps wbps riops
   * wiops.
   */
  public String toKernelLine() {
    StringBuilder line = new StringBuilder(64).append(device);
    for (IoLimits.Key key : IoLimits.Key.values()) {
      OptionalLong value = limits.get(key);
      line.append(' ').append(key.kernelName()).append('=');
      if (value.isPresent()) {
        line.append(value.getAsLong());
      } else {
        line.append(MAX);
      }
    }
    return line.toString();
  }

  private static IoLimits.Key key(String line, String name) {
    for (IoLimits.Key key : IoLimits.Key.values()) {
      if (key.kernelName().equals(name)) {
        return key;
      }
    }
    throw new KernelFormatException(
        FILE, line, "unknown key '" + name + "' (expected rbps, wbps, riops or wiops)");
  }

  private static OptionalLong value(String line, IoLimits.Key key, String token, int eq) {
    String text = token.substring(eq + 1);
    if (MAX.equals(text)) {
      return OptionalLong.empty();
    }
    long value = KernelText.parseCount(text, 0);
    if (value == KernelText.NOT_A_COUNT) {
      throw new KernelFormatException(FILE, line, key.kernelName() + " is not a number or 'max'");
    }
    if (value == 0) {
      // The kernel refuses 0 with ERANGE and never prints it: unlimited is spelled max.
      throw new KernelFormatException(
          FILE, line, key.kernelName() + " must be positive or 'max', was 0");
    }
    return OptionalLong.of(value);
  }
}
