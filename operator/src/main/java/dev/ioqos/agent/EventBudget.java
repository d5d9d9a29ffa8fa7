package dev.ioqos.agent;

import dev.ioqos.node.PodEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The node's Event budget: a token bucket per Event type (Warnings have their own, so a flood of
 * Normal Events never hides a failure), and a count, per reason, of the Events it turned away. One
 * policy edit reaches every selected pod of every node at once; without a budget each node posts
 * one Event per pod (5,000 nodes x 110 pods = 550,000 Events). With it a node posts at most the
 * burst at once, then one Event per refill period, and the rest are told in one summary.
 */
public final class EventBudget {
  private final Clock clock;
  private final Map<PodEvent.Type, Bucket> buckets = new EnumMap<>(PodEvent.Type.class);
  private final Map<String, Integer> suppressed = new TreeMap<>();
  private int suppressedWarnings;
  private Instant suppressedSince;

  /** A bucket of {@code burst} tokens, one more each {@code refill}. */
  public record Limit(int burst, Duration refill) {
    public Limit {
      if (burst < 1 || refill.isNegative() || refill.isZero()) {
        throw new IllegalArgumentException("an Event budget needs burst >= 1 and a refill > 0");
      }
    }
  }

  private static final class Bucket {
    final Limit limit;
    double tokens;
    Instant updated;

    Bucket(Limit limit, Instant now) {
      this.limit = limit;
      this.tokens = limit.burst();
      this.updated = now;
    }

    boolean take(Instant now) {
      double refilled =
          (double) Duration.between(updated, now).toNanos() / limit.refill().toNanos();
      tokens = Math.min(limit.burst(), tokens + Math.max(0, refilled));
      updated = now;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }
  }

  public EventBudget(Clock clock, Limit normal, Limit warning) {
    this.clock = clock;
    Instant now = clock.instant();
    buckets.put(PodEvent.Type.Normal, new Bucket(normal, now));
    buckets.put(PodEvent.Type.Warning, new Bucket(warning, now));
  }

  /** The defaults: 25 Normal Events at once then one per 5 s; 25 Warnings then one per second. */
  public static EventBudget standard(Clock clock) {
    return new EventBudget(
        clock, new Limit(25, Duration.ofSeconds(5)), new Limit(25, Duration.ofSeconds(1)));
  }

  /** True when an Event of this type may be posted now; otherwise it is counted as suppressed. */
  public synchronized boolean admit(PodEvent.Type type, String reason) {
    Instant now = clock.instant();
    if (buckets.get(type).take(now)) {
      return true;
    }
    if (suppressed.isEmpty()) {
      suppressedSince = now;
    }
    suppressed.merge(reason, 1, Integer::sum);
    if (type == PodEvent.Type.Warning) {
      suppressedWarnings++;
    }
    return false;
  }

  /**
   * Takes a token without counting a refusal as suppressed: for the count of a repeat, which is
   * kept and written later anyway.
   */
  public synchronized boolean take(PodEvent.Type type) {
    return buckets.get(type).take(clock.instant());
  }

  /** What was suppressed since the last summary, and forgets it; empty when nothing was. */
  public synchronized Optional<Summary> drain() {
    if (suppressed.isEmpty()) {
      return Optional.empty();
    }
    int total = suppressed.values().stream().mapToInt(Integer::intValue).sum();
    String byReason =
        suppressed.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue())
            .collect(Collectors.joining(", "));
    Summary summary =
        new Summary(
            total,
            suppressedWarnings > 0,
            total
                + " pod Events not posted since "
                + suppressedSince
                + " to keep within this node's Event budget ("
                + byReason
                + "); the pods' state is in the node's IoNodeState and the metrics");
    suppressed.clear();
    suppressedWarnings = 0;
    suppressedSince = null;
    return Optional.of(summary);
  }

  /** Events turned away since the last summary. */
  public record Summary(int count, boolean warnings, String message) {}
}
