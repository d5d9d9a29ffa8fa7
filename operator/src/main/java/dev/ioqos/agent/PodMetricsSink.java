package dev.ioqos.agent;

import dev.ioqos.core.DeviceId;
import dev.ioqos.metrics.ApplyMetrics;
import dev.ioqos.metrics.TierState;
import java.time.Duration;
import java.util.List;

/** Where the agent's per-pod series and the timings of its kernel writes go. */
public interface PodMetricsSink {
  /**
   * A managed pod and how its tier stands now; {@code disks} are the pod's own disks when its
   * policy targets its volumes, empty otherwise.
   */
  void tier(
      String uid,
      String namespace,
      String name,
      String tier,
      String cgroupPath,
      TierState state,
      List<DeviceId> disks);

  /** Drops a pod's series. */
  void forget(String uid);

  /** One apply or revert of a pod's cgroup: how it ended and how long it took. */
  void kernelCall(ApplyMetrics.Operation operation, ApplyMetrics.Result result, Duration took);
}
