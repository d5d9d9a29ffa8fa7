package dev.ioqos.agent;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Per-pod exponential backoff for retries: 100 ms doubling to a cap, reset on success. */
public final class Backoff {
  private final Duration first;
  private final Duration max;
  private final Map<String, Duration> current = new ConcurrentHashMap<>();

  public Backoff(Duration first, Duration max) {
    this.first = first;
    this.max = max;
  }

  public Duration next(String key) {
    return current.compute(
        key, (k, previous) -> previous == null ? first : min(previous.multipliedBy(2), max));
  }

  public void reset(String key) {
    current.remove(key);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
