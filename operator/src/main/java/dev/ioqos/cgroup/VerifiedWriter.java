package dev.ioqos.cgroup;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLatency;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoMax;
import dev.ioqos.core.IoMaxLine;
import dev.ioqos.core.IoWeight;
import dev.ioqos.core.KernelFormatException;
import dev.ioqos.core.WeightRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Write, read back, compare: sets a cgroup's io values and proves the kernel holds them. A value
 * the kernel accepts but does not keep is a {@link CgroupFailure#READBACK_MISMATCH}, never only a
 * log line. Only the devices and keys passed in are compared; other lines are left alone.
 */
public final class VerifiedWriter {
  private final CgroupFiles files;

  public VerifiedWriter(CgroupFiles files) {
    this.files = Objects.requireNonNull(files, "files");
  }

  /** Reads and parses io.max. */
  public IoMax readMax(CgroupDir dir) throws CgroupIoException {
    return parse(dir, IoFile.IO_MAX, files.read(dir, IoFile.IO_MAX), IoMax::parse);
  }

  /** Reads and parses io.weight or io.bfq.weight. */
  public IoWeight readWeight(CgroupDir dir, WeightRange range) throws CgroupIoException {
    IoFile file = fileOf(range);
    return parse(dir, file, files.read(dir, file), text -> IoWeight.parse(range, text));
  }

  /** Reads and parses io.stat, by device. */
  public java.util.SortedMap<DeviceId, dev.ioqos.core.IoStatEntry> readStat(CgroupDir dir)
      throws CgroupIoException {
    return parse(
        dir, IoFile.IO_STAT, files.read(dir, IoFile.IO_STAT), dev.ioqos.core.IoStat::parse);
  }

  /** Reads and parses io.latency. */
  public IoLatency readLatency(CgroupDir dir) throws CgroupIoException {
    return parse(dir, IoFile.IO_LATENCY, files.read(dir, IoFile.IO_LATENCY), IoLatency::parse);
  }

  /**
   * Sets io.max for each device, all four keys on every line so the result never depends on what
   * the file held before (the kernel merges keys into an existing line). {@link IoLimits#NONE}
   * removes a device's line.
   */
  public IoMax writeMax(CgroupDir dir, Map<DeviceId, IoLimits> limits) throws CgroupIoException {
    List<String> lines = new ArrayList<>();
    limits.forEach((device, value) -> lines.add(new IoMaxLine(device, value).toKernelLine()));
    files.write(dir, IoFile.IO_MAX, lines);
    IoMax readBack = readMax(dir);
    for (Map.Entry<DeviceId, IoLimits> wanted : limits.entrySet()) {
      IoLimits actual = readBack.limitsFor(wanted.getKey());
      if (!actual.equals(wanted.getValue())) {
        throw mismatch(
            dir,
            IoFile.IO_MAX,
            lines,
            new IoMaxLine(wanted.getKey(), wanted.getValue()).toKernelLine(),
            new IoMaxLine(wanted.getKey(), actual).toKernelLine());
      }
    }
    return readBack;
  }

  /**
   * Sets the cgroup-wide default weight and per-device weights (an empty value resets a device to
   * the default) in io.weight or io.bfq.weight, whichever {@code range} names.
   */
  public IoWeight writeWeight(
      CgroupDir dir, WeightRange range, int defaultWeight, Map<DeviceId, OptionalLong> perDevice)
      throws CgroupIoException {
    range.check(defaultWeight);
    IoFile file = fileOf(range);
    List<String> lines = new ArrayList<>();
    lines.add(IoWeight.defaultLine(defaultWeight));
    perDevice.forEach(
        (device, weight) ->
            lines.add(
                weight.isPresent()
                    ? IoWeight.deviceLine(device, range.check((int) weight.getAsLong()))
                    : IoWeight.resetDeviceLine(device)));
    files.write(dir, file, lines);
    IoWeight readBack = readWeight(dir, range);
    if (readBack.defaultWeight() != defaultWeight) {
      throw mismatch(
          dir,
          file,
          lines,
          IoWeight.defaultLine(defaultWeight),
          "default " + readBack.defaultWeight());
    }
    for (Map.Entry<DeviceId, OptionalLong> wanted : perDevice.entrySet()) {
      OptionalLong actual = readBack.forDevice(wanted.getKey()).stream().asLongStream().findFirst();
      if (!actual.equals(wanted.getValue())) {
        throw mismatch(
            dir,
            file,
            lines,
            wanted.getKey() + " " + orUnset(wanted.getValue(), "default"),
            wanted.getKey() + " " + orUnset(actual, "default"));
      }
    }
    return readBack;
  }

  /** Sets io.latency targets in microseconds; an empty value removes the device's target. */
  public IoLatency writeLatency(CgroupDir dir, Map<DeviceId, OptionalLong> targets)
      throws CgroupIoException {
    List<String> lines = new ArrayList<>();
    targets.forEach(
        (device, micros) ->
            lines.add(
                micros.isPresent()
                    ? IoLatency.line(device, micros.getAsLong())
                    : IoLatency.resetLine(device)));
    files.write(dir, IoFile.IO_LATENCY, lines);
    IoLatency readBack = readLatency(dir);
    for (Map.Entry<DeviceId, OptionalLong> wanted : targets.entrySet()) {
      OptionalLong actual = readBack.targetMicros(wanted.getKey());
      if (!actual.equals(wanted.getValue())) {
        throw mismatch(
            dir,
            IoFile.IO_LATENCY,
            lines,
            wanted.getKey() + " target=" + orUnset(wanted.getValue(), "max"),
            wanted.getKey() + " target=" + orUnset(actual, "max"));
      }
    }
    return readBack;
  }

  private static IoFile fileOf(WeightRange range) {
    return range == WeightRange.BFQ_WEIGHT ? IoFile.IO_BFQ_WEIGHT : IoFile.IO_WEIGHT;
  }

  /** The value as the kernel prints it; {@code unset} is the file's word for "none". */
  private static String orUnset(OptionalLong value, String unset) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : unset;
  }

  private static CgroupIoException mismatch(
      CgroupDir dir, IoFile file, List<String> written, String expected, String actual) {
    return new CgroupIoException(
        CgroupFailure.READBACK_MISMATCH,
        dir.file(file),
        String.join("\n", written),
        "expected '" + expected + "', read back '" + actual + "'");
  }

  private interface Parser<T> {
    T parse(String text);
  }

  private static <T> T parse(CgroupDir dir, IoFile file, String text, Parser<T> parser)
      throws CgroupIoException {
    try {
      return parser.parse(text);
    } catch (KernelFormatException e) {
      throw new CgroupIoException(CgroupFailure.IO_ERROR, dir.file(file), null, e.getMessage(), e);
    }
  }
}
