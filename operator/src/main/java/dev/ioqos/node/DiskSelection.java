package dev.ioqos.node;

import dev.ioqos.core.policy.DiskFacts;
import java.util.List;

/**
 * The disks a policy's device selectors resolve to on this node (for a pod, when a selector names
 * its volumes), what could not resolve, and each pod volume's decision.
 *
 * @param perPod true when a selector targets the pod's own volumes, so the disks are this pod's
 *     alone (reported per pod in the node's state and metrics)
 */
public record DiskSelection(
    List<DiskFacts> disks,
    List<DiskProblem> problems,
    List<VolumeDecision> volumes,
    boolean perPod) {
  public DiskSelection {
    disks = List.copyOf(disks);
    problems = List.copyOf(problems);
    volumes = List.copyOf(volumes);
  }

  /** A selection of node-wide selectors only. */
  public DiskSelection(List<DiskFacts> disks, List<DiskProblem> problems) {
    this(disks, problems, List.of(), false);
  }
}
