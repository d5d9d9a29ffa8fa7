package dev.ioqos.core;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Parses io.stat: {@code 254:0 rbytes=.. wbytes=.. rios=.. wios=.. dbytes=.. dios=..} per device.
 */
public final class IoStat {

  static final String FILE = "io.stat";

  private IoStat() {}

  /**
   * The entries by device, sorted. Runs at every metrics scrape, hence the hand-written scanning. A
   * bare {@code MAJ:MIN} line (device without I/O yet) is all zeros; unknown keys are kept when
   * numeric and skipped otherwise (the root's {@code cost.vrate=100.00}, io.latency's {@code
   * depth=max}).
   */
  public static SortedMap<DeviceId, IoStatEntry> parse(String content) {
    SortedMap<DeviceId, IoStatEntry> entries = new TreeMap<>();
    for (String line : KernelText.lines(content)) {
      IoStatEntry entry = entry(line);
      if (entries.put(entry.device(), entry) != null) {
        throw new KernelFormatException(FILE, line, "second line for device " + entry.device());
      }
    }
    return Collections.unmodifiableSortedMap(entries);
  }

  private static IoStatEntry entry(String line) {
    List<String> tokens = KernelText.tokens(line);
    DeviceId device = KernelText.device(FILE, line, tokens.get(0));
    long rbytes = 0;
    long wbytes = 0;
    long rios = 0;
    long wios = 0;
    long dbytes = 0;
    long dios = 0;
    Map<String, Long> extra = Map.of();
    for (int i = 1; i < tokens.size(); i++) {
      String token = tokens.get(i);
      int eq = KernelText.equalsSign(FILE, line, token);
      String key = token.substring(0, eq);
      long value = KernelText.parseCount(token, eq + 1);
      switch (key) {
        case "rbytes" -> rbytes = counter(line, key, value);
        case "wbytes" -> wbytes = counter(line, key, value);
        case "rios" -> rios = counter(line, key, value);
        case "wios" -> wios = counter(line, key, value);
        case "dbytes" -> dbytes = counter(line, key, value);
        case "dios" -> dios = counter(line, key, value);
        default -> {
          if (value != KernelText.NOT_A_COUNT) {
            if (extra.isEmpty()) {
              extra = new TreeMap<>();
            }
            extra.put(key, value);
          }
        }
      }
    }
    return new IoStatEntry(device, rbytes, wbytes, rios, wios, dbytes, dios, extra);
  }

  private static long counter(String line, String key, long value) {
    if (value == KernelText.NOT_A_COUNT) {
      throw new KernelFormatException(FILE, line, key + " is not a counter");
    }
    return value;
  }
}
