package dev.ioqos.aggregator;

import java.time.Duration;
import java.util.Objects;

/**
 * How the aggregate controller elects its leader: the Lease it competes for, its own identity, and
 * the timings of client-go's defaults (15s lease, 10s renew deadline, 2s retry).
 *
 * @param leaseDuration how long a follower waits after the leader's last renewal before taking over
 * @param renewDeadline how long the leader keeps trying to renew before it stops leading
 * @param retryPeriod how often candidates try to acquire and the leader renews
 */
public record AggregatorConfig(
    String leaseNamespace,
    String leaseName,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {
  public static final String DEFAULT_LEASE_NAMESPACE = "ioqos-system";
  public static final String DEFAULT_LEASE_NAME = "ioqos-aggregator";
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
  public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);

  public AggregatorConfig {
    requireName(leaseNamespace, "the lease namespace");
    requireName(leaseName, "the lease name");
    requireName(identity, "the identity");
    Objects.requireNonNull(leaseDuration, "leaseDuration");
    Objects.requireNonNull(renewDeadline, "renewDeadline");
    Objects.requireNonNull(retryPeriod, "retryPeriod");
    if (retryPeriod.isNegative() || retryPeriod.isZero()) {
      throw new IllegalArgumentException("the retry period must be positive, not " + retryPeriod);
    }
    if (renewDeadline.compareTo(retryPeriod) <= 0) {
      throw new IllegalArgumentException(
          "the renew deadline ("
              + renewDeadline
              + ") must be longer than the retry period ("
              + retryPeriod
              + ")");
    }
    if (leaseDuration.compareTo(renewDeadline) <= 0) {
      throw new IllegalArgumentException(
          "the lease duration ("
              + leaseDuration
              + ") must be longer than the renew deadline ("
              + renewDeadline
              + "), or two leaders could overlap");
    }
  }

  /** The defaults of DESIGN.md's Deployment for the given lease and identity. */
  public static AggregatorConfig of(String leaseNamespace, String leaseName, String identity) {
    return new AggregatorConfig(
        leaseNamespace,
        leaseName,
        identity,
        DEFAULT_LEASE_DURATION,
        DEFAULT_RENEW_DEADLINE,
        DEFAULT_RETRY_PERIOD);
  }

  private static void requireName(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }
}
