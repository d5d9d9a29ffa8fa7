package dev.ioqos.node;

import dev.ioqos.core.policy.DiskFacts;
import java.util.List;

/** The disks a policy's device selectors resolve to on this node, and what could not resolve. */
public record DiskSelection(List<DiskFacts> disks, List<DiskProblem> problems) {
  public DiskSelection {
    disks = List.copyOf(disks);
    problems = List.copyOf(problems);
  }
}
