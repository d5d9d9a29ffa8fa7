package dev.ioqos.aggregator;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.IoPolicyStatus;
import dev.ioqos.api.v1alpha1.NodeCounts;
import dev.ioqos.api.v1alpha1.PolicyPodCounts;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Folds the nodes' IoNodeStates into one IoPolicy's status: no I/O, no client, so the reconciler
 * stays a thin loop around it.
 *
 * <ul>
 *   <li>{@code nodes.selected}: nodes whose IoNodeState lists the policy governing at least one
 *       pod; {@code applied} those with no failed pod for it, {@code failed} the others.
 *   <li>{@code Ready}: True when every such node applied ({@code AllApplied}) or none runs a pod of
 *       the policy ({@code NoNodes}); False when some failed ({@code SomeFailed}) or the spec
 *       cannot be used ({@code Invalid}).
 *   <li>{@code Conflict}: True when some node reports pods on which this policy tied with another
 *       at the same priority, whether it won or lost ({@code PriorityTie}).
 *   <li>{@code Invalid}: True when the spec passed admission but cannot be turned into rules.
 * </ul>
 *
 * A condition keeps its lastTransitionTime while its status stays the same.
 */
public final class PolicyStatusFold {
  public static final String ALL_APPLIED = "AllApplied";
  public static final String SOME_FAILED = "SomeFailed";
  public static final String NO_NODES = "NoNodes";
  public static final String PRIORITY_TIE = "PriorityTie";
  public static final String NO_CONFLICT = "NoConflict";
  public static final String INVALID_SPEC = "InvalidSpec";
  public static final String VALID = "Valid";

  /** Failing nodes named in the Ready message; the count covers them all. */
  static final int NAMED_NODES = 5;

  private PolicyStatusFold() {}

  /**
   * The status {@code policy} should have given the nodes' states.
   *
   * @param problem why the spec cannot be used, if it cannot
   * @param now the time for conditions whose status changes
   */
  public static IoPolicyStatus fold(
      IoPolicy policy, Collection<IoNodeState> states, Optional<String> problem, Instant now) {
    String name = policy.getMetadata().getName();
    Long generation = policy.getMetadata().getGeneration();
    int selected = 0;
    int applied = 0;
    int pods = 0;
    List<String> failing = new ArrayList<>();
    int conflictNodes = 0;
    int conflictPods = 0;
    SortedSet<String> tiedWith = new TreeSet<>();
    List<IoNodeState> sorted = new ArrayList<>(states);
    sorted.sort(
        Comparator.comparing(
            s -> s.getMetadata().getName(), Comparator.nullsFirst(Comparator.naturalOrder())));
    for (IoNodeState state : sorted) {
      Optional<PolicyPodCounts> entry = entry(state, name);
      if (entry.isEmpty()) {
        continue;
      }
      PolicyPodCounts counts = entry.get();
      int conflicts = orZero(counts.getConflicts());
      if (conflicts > 0) {
        conflictNodes++;
        conflictPods += conflicts;
        if (counts.getConflictingPolicies() != null) {
          tiedWith.addAll(counts.getConflictingPolicies());
        }
      }
      int failed = orZero(counts.getFailed());
      int managed = Math.max(orZero(counts.getManaged()), failed);
      if (managed == 0) {
        continue; // listed only for a conflict it lost: the node does not run its pods
      }
      selected++;
      pods += managed;
      if (failed > 0) {
        failing.add(state.getMetadata().getName() + " (" + failed + " of " + managed + " pods)");
      } else {
        applied++;
      }
    }
    tiedWith.remove(name);

    IoPolicyStatus current = policy.getStatus();
    List<Condition> conditions = new ArrayList<>();
    conditions.add(
        ready(problem, selected, applied, pods, failing)
            .withObservedGeneration(generation)
            .build());
    conditions.add(
        conflict(name, conflictNodes, conflictPods, tiedWith)
            .withObservedGeneration(generation)
            .build());
    conditions.add(
        new ConditionBuilder()
            .withType(IoPolicyStatus.INVALID)
            .withStatus(status(problem.isPresent()))
            .withReason(problem.isPresent() ? INVALID_SPEC : VALID)
            .withMessage(problem.orElse("the spec can be applied"))
            .withObservedGeneration(generation)
            .build());
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    for (Condition condition : conditions) {
      condition.setLastTransitionTime(
          previous(current, condition.getType())
              .filter(old -> Objects.equals(old.getStatus(), condition.getStatus()))
              .map(Condition::getLastTransitionTime)
              .filter(Objects::nonNull)
              .orElse(time));
    }

    IoPolicyStatus status = new IoPolicyStatus();
    status.setObservedGeneration(generation);
    status.setNodes(new NodeCounts(selected, applied, selected - applied));
    status.setConditions(conditions);
    return status;
  }

  private static ConditionBuilder ready(
      Optional<String> problem, int selected, int applied, int pods, List<String> failing) {
    ConditionBuilder ready = new ConditionBuilder().withType(IoPolicyStatus.READY);
    if (problem.isPresent()) {
      return ready
          .withStatus("False")
          .withReason(INVALID_SPEC)
          .withMessage("the spec cannot be applied: " + problem.get());
    }
    if (selected == 0) {
      return ready
          .withStatus("True")
          .withReason(NO_NODES)
          .withMessage("no node runs a pod this policy governs");
    }
    if (failing.isEmpty()) {
      return ready
          .withStatus("True")
          .withReason(ALL_APPLIED)
          .withMessage(
              "applied on "
                  + (selected == 1 ? "the 1 node" : "all " + selected + " nodes")
                  + " that run its pods ("
                  + plural(pods, "pod")
                  + ")");
    }
    String named = failing.stream().limit(NAMED_NODES).collect(Collectors.joining(", "));
    int more = failing.size() - NAMED_NODES;
    return ready
        .withStatus("False")
        .withReason(SOME_FAILED)
        .withMessage(
            failing.size()
                + " of "
                + plural(selected, "node")
                + " could not apply it to every pod: "
                + named
                + (more > 0 ? " and " + more + " more" : "")
                + "; see their IoNodeStates and the pods' Events");
  }

  private static ConditionBuilder conflict(
      String name, int nodes, int pods, SortedSet<String> tiedWith) {
    ConditionBuilder conflict = new ConditionBuilder().withType(IoPolicyStatus.CONFLICT);
    if (nodes == 0) {
      return conflict
          .withStatus("False")
          .withReason(NO_CONFLICT)
          .withMessage("no pod is selected by another policy with the same priority");
    }
    String winner = tiedWith.isEmpty() || name.compareTo(tiedWith.first()) < 0 ? name : null;
    return conflict
        .withStatus("True")
        .withReason(PRIORITY_TIE)
        .withMessage(
            plural(pods, "pod")
                + " on "
                + plural(nodes, "node")
                + " also selected with the same priority by "
                + (tiedWith.isEmpty() ? "another policy" : String.join(", ", tiedWith))
                + "; "
                + (winner != null ? "this policy wins by name" : tiedWith.first() + " wins by name")
                + " (give one a higher priority)");
  }

  /** True when both say the same, lastTransitionTime aside. */
  public static boolean sameIgnoringTransitionTimes(IoPolicyStatus a, IoPolicyStatus b) {
    if (a == null || b == null) {
      return a == b;
    }
    return Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
        && sameCounts(a.getNodes(), b.getNodes())
        && withoutTimes(a.getConditions()).equals(withoutTimes(b.getConditions()));
  }

  private static boolean sameCounts(NodeCounts a, NodeCounts b) {
    if (a == null || b == null) {
      return a == b;
    }
    return Objects.equals(a.getSelected(), b.getSelected())
        && Objects.equals(a.getApplied(), b.getApplied())
        && Objects.equals(a.getFailed(), b.getFailed());
  }

  private static List<Condition> withoutTimes(List<Condition> conditions) {
    if (conditions == null) {
      return List.of();
    }
    return conditions.stream()
        .map(c -> new ConditionBuilder(c).withLastTransitionTime(null).build())
        .toList();
  }

  private static Optional<PolicyPodCounts> entry(IoNodeState state, String policy) {
    if (state.getStatus() == null || state.getStatus().getPolicies() == null) {
      return Optional.empty();
    }
    return state.getStatus().getPolicies().stream()
        .filter(p -> policy.equals(p.getName()))
        .findFirst();
  }

  private static Optional<Condition> previous(IoPolicyStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private static String status(boolean value) {
    return value ? "True" : "False";
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }

  private static String plural(int count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }
}
