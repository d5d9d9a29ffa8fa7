package dev.ioqos.core;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/** An io.latency file: one {@code MAJ:MIN target=<usec>} line per device with a latency target. */
public record IoLatency(Map<DeviceId, Long> targetsMicros) {

  static final String FILE = "io.latency";
  private static final String TARGET = "target";
  private static final String MAX = "max";

  /** No targets: the file's content in a fresh cgroup. */
  public static final IoLatency EMPTY = new IoLatency(Map.of());

  public IoLatency {
    TreeMap<DeviceId, Long> sorted = new TreeMap<>(targetsMicros);
    sorted.forEach((device, micros) -> requirePositive(micros));
    targetsMicros = Collections.unmodifiableSortedMap(sorted);
  }

  /**
   * Parses the file as read. Only {@code target=} is read: with the blkcg debug flag the kernel
   * adds keys such as {@code avg_lat= win= depth=}, which are skipped.
   */
  public static IoLatency parse(String content) {
    Map<DeviceId, Long> targets = new TreeMap<>();
    for (String line : KernelText.lines(content)) {
      List<String> tokens = KernelText.tokens(line);
      DeviceId device = KernelText.device(FILE, line, tokens.get(0));
      String target = null;
      for (int i = 1; i < tokens.size(); i++) {
        String token = tokens.get(i);
        int eq = KernelText.equalsSign(FILE, line, token);
        if (token.substring(0, eq).equals(TARGET)) {
          target = token.substring(eq + 1);
        }
      }
      if (target == null) {
        throw new KernelFormatException(FILE, line, "no target= key");
      }
      // The kernel drops a line whose target is max; tolerate one anyway, it means no target.
      if (!target.equals(MAX)) {
        long micros = KernelText.parseCount(target, 0);
        if (micros == KernelText.NOT_A_COUNT || micros == 0) {
          throw new KernelFormatException(
              FILE, line, "target is not a positive number of microseconds or 'max'");
        }
        if (targets.put(device, micros) != null) {
          throw new KernelFormatException(FILE, line, "second line for device " + device);
        }
      }
    }
    return new IoLatency(targets);
  }

  /** The device's latency target in microseconds, empty when it has none. */
  public OptionalLong targetMicros(DeviceId device) {
    Long micros = targetsMicros.get(Objects.requireNonNull(device, "device"));
    return micros == null ? OptionalLong.empty() : OptionalLong.of(micros);
  }

  /** {@code 254:0 target=5000}: sets the device's target; removing one is {@link #resetLine}. */
  public static String line(DeviceId device, long micros) {
    return Objects.requireNonNull(device, "device") + " " + TARGET + "=" + requirePositive(micros);
  }

  /** {@code 254:0 target=max}: removes the device's target. */
  public static String resetLine(DeviceId device) {
    return Objects.requireNonNull(device, "device") + " " + TARGET + "=" + MAX;
  }

  private static long requirePositive(long micros) {
    // target=0 would silently remove the target; say max for that (resetLine).
    if (micros <= 0) {
      throw new IllegalArgumentException(
          "io.latency target must be a positive number of microseconds, was " + micros);
    }
    return micros;
  }
}
