package dev.ioqos.core;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * An io.weight or io.bfq.weight file: {@code default N}, then one {@code MAJ:MIN N} line per
 * device.
 */
public record IoWeight(WeightRange range, int defaultWeight, Map<DeviceId, Integer> deviceWeights) {

  private static final String DEFAULT_KEY = "default";

  public IoWeight {
    Objects.requireNonNull(range, "range");
    range.check(defaultWeight);
    TreeMap<DeviceId, Integer> sorted = new TreeMap<>(deviceWeights);
    sorted.values().forEach(range::check);
    deviceWeights = Collections.unmodifiableSortedMap(sorted);
  }

  /** Parses an io.weight file as read. */
  public static IoWeight parse(String content) {
    return parse(WeightRange.IO_WEIGHT, content);
  }

  /** Parses the weight file of {@code range} as read; the kernel always prints the default line. */
  public static IoWeight parse(WeightRange range, String content) {
    String file = range.fileName();
    Integer defaultWeight = null;
    Map<DeviceId, Integer> deviceWeights = new TreeMap<>();
    for (String line : KernelText.lines(content)) {
      List<String> tokens = KernelText.tokens(line);
      if (tokens.size() != 2) {
        throw new KernelFormatException(file, line, "expected 'default N' or 'MAJ:MIN N'");
      }
      int weight = weight(range, line, tokens.get(1));
      if (tokens.get(0).equals(DEFAULT_KEY)) {
        if (defaultWeight != null) {
          throw new KernelFormatException(file, line, "second default line");
        }
        defaultWeight = weight;
      } else {
        DeviceId device = KernelText.device(file, line, tokens.get(0));
        if (deviceWeights.put(device, weight) != null) {
          throw new KernelFormatException(file, line, "second line for device " + device);
        }
      }
    }
    if (defaultWeight == null) {
      throw KernelFormatException.forContent(file, content, "no 'default N' line");
    }
    return new IoWeight(range, defaultWeight, deviceWeights);
  }

  /** The device's own weight, empty when it follows the default. */
  public OptionalInt forDevice(DeviceId device) {
    Integer weight = deviceWeights.get(Objects.requireNonNull(device, "device"));
    return weight == null ? OptionalInt.empty() : OptionalInt.of(weight);
  }

  /** The weight the device gets: its own line, else the default. */
  public int effectiveWeight(DeviceId device) {
    return forDevice(device).orElse(defaultWeight);
  }

  /**
   * The file's content on one line as the kernel shows it ({@code default 100}, then each device
   * line), lines joined by {@code "; "}: for people reading explain's output.
   */
  public String toKernelText() {
    StringBuilder text = new StringBuilder(DEFAULT_KEY).append(' ').append(defaultWeight);
    deviceWeights.forEach(
        (device, weight) -> text.append("; ").append(device).append(' ').append(weight));
    return text.toString();
  }

  /**
   * {@code default 500}: the cgroup-wide weight. Checked against io.weight's 1..10000; for
   * io.bfq.weight check with {@link WeightRange#BFQ_WEIGHT} (or {@link #toBfqWeight}) first.
   */
  public static String defaultLine(int weight) {
    return DEFAULT_KEY + " " + WeightRange.IO_WEIGHT.check(weight);
  }

  /** {@code 254:0 200}: the device's own weight (EOPNOTSUPP unless iocost or bfq runs on it). */
  public static String deviceLine(DeviceId device, int weight) {
    return Objects.requireNonNull(device, "device") + " " + WeightRange.IO_WEIGHT.check(weight);
  }

  /** {@code 254:0 default}: removes the device's line so it follows the default again. */
  public static String resetDeviceLine(DeviceId device) {
    return Objects.requireNonNull(device, "device") + " " + DEFAULT_KEY;
  }

  /**
   * Scales an io.weight (1..10000, default 100) to an io.bfq.weight (1..1000, default 100) the way
   * systemd does for bfq disks: linear on each side of the default, rounded down.
   */
  public static int toBfqWeight(int ioWeight) {
    WeightRange io = WeightRange.IO_WEIGHT;
    WeightRange bfq = WeightRange.BFQ_WEIGHT;
    int dflt = WeightRange.DEFAULT;
    io.check(ioWeight);
    if (ioWeight <= dflt) {
      // Both ranges start at 1, so this half is the identity; kept general like systemd's.
      return dflt - (dflt - ioWeight) * (dflt - bfq.min()) / (dflt - io.min());
    }
    return dflt + (ioWeight - dflt) * (bfq.max() - dflt) / (io.max() - dflt);
  }

  private static int weight(WeightRange range, String line, String text) {
    long weight = KernelText.parseCount(text, 0);
    if (weight == KernelText.NOT_A_COUNT) {
      throw new KernelFormatException(range.fileName(), line, "weight is not a number");
    }
    if (weight < range.min() || weight > range.max()) {
      throw new KernelFormatException(range.fileName(), line, range.outside(weight));
    }
    return (int) weight;
  }
}
