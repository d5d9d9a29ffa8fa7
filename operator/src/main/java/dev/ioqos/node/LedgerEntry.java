package dev.ioqos.node;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;
import java.util.TreeMap;

/**
 * What ioqos wrote into one pod's cgroup: enough to restore the kernel defaults for exactly those
 * files and devices later, also after a restart. Devices are keyed by {@code MAJ:MIN}; limits by
 * io.max key ({@code rbps wbps riops wiops}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LedgerEntry(
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

  public LedgerEntry {
    limits = limits == null ? Map.of() : copy(limits);
    latencyTargetsMicros =
        latencyTargetsMicros == null ? Map.of() : Map.copyOf(new TreeMap<>(latencyTargetsMicros));
  }

  private static Map<String, Map<String, Long>> copy(Map<String, Map<String, Long>> limits) {
    Map<String, Map<String, Long>> sorted = new TreeMap<>();
    limits.forEach((device, keys) -> sorted.put(device, Map.copyOf(keys)));
    return Map.copyOf(sorted);
  }

  /** True when nothing is recorded as written. */
  @JsonIgnore
  public boolean isEmpty() {
    return weight == null
        && bfqWeight == null
        && limits.isEmpty()
        && latencyTargetsMicros.isEmpty();
  }
}
