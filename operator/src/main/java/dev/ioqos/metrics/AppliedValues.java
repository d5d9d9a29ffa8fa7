package dev.ioqos.metrics;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the kernel holds for one pod after ioqos wrote it, as the ledger records it: the io.weight
 * and io.bfq.weight defaults (null when not written) and io.max limits by {@code MAJ:MIN} and key
 * ({@code rbps wbps riops wiops}; a missing key is {@code max}).
 */
public record AppliedValues(
    Integer ioWeight, Integer bfqWeight, Map<String, Map<String, Long>> limits) {

  /** Nothing written. */
  public static final AppliedValues NONE = new AppliedValues(null, null, Map.of());

  public AppliedValues {
    Map<String, Map<String, Long>> sorted = new TreeMap<>();
    if (limits != null) {
      limits.forEach((device, keys) -> sorted.put(device, Map.copyOf(new TreeMap<>(keys))));
    }
    limits = Map.copyOf(sorted);
  }
}
