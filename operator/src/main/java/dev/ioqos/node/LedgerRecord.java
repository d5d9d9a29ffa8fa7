package dev.ioqos.node;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One {@link LedgerEntry} as the ledger's files hold it (and {@code ioqos reconcile --output json}
 * shows it): plain JSON, devices keyed by {@code MAJ:MIN}, limits by io.max key ({@code rbps wbps
 * riops wiops}; a missing key is {@code max}). The only place that knows this shape.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LedgerRecord(
    String uid,
    String namespace,
    String name,
    String cgroupPath,
    String policy,
    String tier,
    Integer weight,
    Integer bfqWeight,
    Map<String, Map<String, Long>> limits,
    Map<String, Long> latencyTargetsMicros) {

  /** The file form of an entry. */
  public static LedgerRecord of(LedgerEntry entry) {
    IoSettings held = entry.held();
    Map<String, Map<String, Long>> limits = new TreeMap<>();
    held.limits()
        .forEach(
            (device, value) -> {
              Map<String, Long> keys = new TreeMap<>();
              for (IoLimits.Key key : IoLimits.Key.values()) {
                value.get(key).ifPresent(v -> keys.put(key.kernelName(), v));
              }
              limits.put(device.toString(), keys);
            });
    Map<String, Long> latency = new TreeMap<>();
    held.latencyTargetsMicros().forEach((device, micros) -> latency.put(device.toString(), micros));
    return new LedgerRecord(
        entry.uid(),
        entry.namespace(),
        entry.name(),
        entry.cgroupPath(),
        entry.policy(),
        entry.tier(),
        held.ioWeight().isPresent() ? held.ioWeight().getAsInt() : null,
        held.bfqWeight().isPresent() ? held.bfqWeight().getAsInt() : null,
        limits,
        latency);
  }

  /**
   * The entry this record stands for.
   *
   * @throws IllegalArgumentException when a device or key cannot be parsed
   */
  LedgerEntry entry() {
    Map<DeviceId, IoLimits> typedLimits = new TreeMap<>();
    if (limits != null) {
      limits.forEach(
          (device, keys) -> {
            IoLimits value = IoLimits.NONE;
            for (Map.Entry<String, Long> key : keys.entrySet()) {
              value = value.with(key(key.getKey()), OptionalLong.of(key.getValue()));
            }
            typedLimits.put(DeviceId.parse(device), value);
          });
    }
    Map<DeviceId, Long> typedLatency = new TreeMap<>();
    if (latencyTargetsMicros != null) {
      latencyTargetsMicros.forEach(
          (device, micros) -> typedLatency.put(DeviceId.parse(device), micros));
    }
    return new LedgerEntry(
        uid,
        namespace,
        name,
        cgroupPath,
        policy,
        tier,
        new IoSettings(
            weight == null ? OptionalInt.empty() : OptionalInt.of(weight),
            bfqWeight == null ? OptionalInt.empty() : OptionalInt.of(bfqWeight),
            typedLimits,
            typedLatency));
  }

  private static IoLimits.Key key(String name) {
    for (IoLimits.Key key : IoLimits.Key.values()) {
      if (key.kernelName().equals(name)) {
        return key;
      }
    }
    throw new IllegalArgumentException("unknown io.max key '" + name + "'");
  }
}
