package dev.ioqos.core;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One device's io.stat counters; {@code extra} keeps the other numeric keys the kernel adds (e.g.
 * {@code cost.usage} while iocost is on, {@code cost.wait}/{@code depth} with the blkcg debug
 * flag).
 */
public record IoStatEntry(
    DeviceId device,
    long rbytes,
    long wbytes,
    long rios,
    long wios,
    long dbytes,
    long dios,
    Map<String, Long> extra) {

  public IoStatEntry {
    Objects.requireNonNull(device, "device");
    if ((rbytes | wbytes | rios | wios | dbytes | dios) < 0) {
      throw new IllegalArgumentException("io.stat counters must not be negative: " + device);
    }
    extra = Collections.unmodifiableSortedMap(new TreeMap<>(extra));
  }

  /** A device with no I/O yet, as the kernel's bare {@code 254:16 } line reports it. */
  public static IoStatEntry idle(DeviceId device) {
    return new IoStatEntry(device, 0, 0, 0, 0, 0, 0, Map.of());
  }
}
