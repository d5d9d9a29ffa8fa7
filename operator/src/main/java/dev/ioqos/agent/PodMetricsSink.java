package dev.ioqos.agent;

import dev.ioqos.metrics.ApplyMetrics;
import dev.ioqos.metrics.TierState;
import java.time.Duration;

/** Where the agent's per-pod series and the timings of its kernel writes go. */
public interface PodMetricsSink {
  /** A managed pod and how its tier stands now. */
  void tier(
      String uid, String namespace, String name, String tier, String cgroupPath, TierState state);

  /** Drops a pod's series. */
  void forget(String uid);

  /** One apply or revert of a pod's cgroup: how it ended and how long it took. */
  void kernelCall(ApplyMetrics.Operation operation, ApplyMetrics.Result result, Duration took);
}
