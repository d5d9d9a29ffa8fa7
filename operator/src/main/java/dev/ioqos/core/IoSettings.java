package dev.ioqos.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Values of one pod's cgroup that ioqos writes or holds: the {@code default} of io.weight and of
 * io.bfq.weight, io.max limits per disk and io.latency targets per disk. An absent weight, and a
 * disk missing from a map, mean "not ioqos's"; a disk mapped to {@link IoLimits#NONE} is one whose
 * io.max ioqos set to all {@code max}. Prints its own kernel lines.
 */
public record IoSettings(
    OptionalInt ioWeight,
    OptionalInt bfqWeight,
    SortedMap<DeviceId, IoLimits> limits,
    SortedMap<DeviceId, Long> latencyTargetsMicros) {

  /** Nothing at all. */
  public static final IoSettings NONE =
      new IoSettings(OptionalInt.empty(), OptionalInt.empty(), Map.of(), Map.of());

  public IoSettings(
      OptionalInt ioWeight,
      OptionalInt bfqWeight,
      Map<DeviceId, IoLimits> limits,
      Map<DeviceId, Long> latencyTargetsMicros) {
    this(ioWeight, bfqWeight, sorted(limits), sorted(latencyTargetsMicros));
  }

  public IoSettings {
    Objects.requireNonNull(ioWeight, "ioWeight");
    Objects.requireNonNull(bfqWeight, "bfqWeight");
    limits = sorted(limits);
    latencyTargetsMicros = sorted(latencyTargetsMicros);
  }

  private static <V> SortedMap<DeviceId, V> sorted(Map<DeviceId, V> map) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(map == null ? Map.of() : map));
  }

  /** True when nothing is set. */
  public boolean isEmpty() {
    return ioWeight.isEmpty()
        && bfqWeight.isEmpty()
        && limits.isEmpty()
        && latencyTargetsMicros.isEmpty();
  }

  /**
   * The lines as written to the kernel, file name first: {@code io.weight default 100}, {@code
   * io.max 254:0 rbps=max wbps=10485760 riops=max wiops=max}, {@code io.latency 254:0 target=5000}.
   */
  public List<String> kernelLines() {
    List<String> lines = new ArrayList<>();
    ioWeight.ifPresent(w -> lines.add("io.weight default " + w));
    bfqWeight.ifPresent(w -> lines.add("io.bfq.weight default " + w));
    limits.forEach((d, l) -> lines.add("io.max " + new IoMaxLine(d, l).toKernelLine()));
    latencyTargetsMicros.forEach((d, t) -> lines.add("io.latency " + d + " target=" + t));
    return lines;
  }
}
