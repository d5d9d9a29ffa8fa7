package dev.ioqos.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.api.v1alpha1.IoNodeState;
import dev.ioqos.api.v1alpha1.IoNodeStateStatus;
import dev.ioqos.api.v1alpha1.IoPolicy;
import dev.ioqos.api.v1alpha1.IoPolicyStatus;
import dev.ioqos.api.v1alpha1.PolicyPodCounts;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PolicyStatusFoldTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00.123Z");
  static final Instant T1 = Instant.parse("2026-01-01T00:05:00Z");

  static IoPolicy policy(String name, long generation) {
    IoPolicy policy = new IoPolicy();
    policy.getMetadata().setName(name);
    policy.getMetadata().setGeneration(generation);
    return policy;
  }

  static IoNodeState node(String name, PolicyPodCounts... policies) {
    IoNodeState state = new IoNodeState();
    state.getMetadata().setName(name);
    IoNodeStateStatus status = new IoNodeStateStatus();
    status.setPolicies(List.of(policies));
    state.setStatus(status);
    return state;
  }

  static Condition condition(IoPolicyStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void countsNodesThatRunThePolicysPodsAndFailsReadyOnAnyFailure() {
    IoPolicyStatus status =
        PolicyStatusFold.fold(
            policy("p", 3),
            List.of(
                node("b", new PolicyPodCounts("p", 2, 1, 1)),
                node("a", new PolicyPodCounts("p", 3, 3, 0)),
                node("c", new PolicyPodCounts("other", 1, 1, 0)),
                new IoNodeState()),
            Optional.empty(),
            T0);

    assertThat(status.getObservedGeneration()).isEqualTo(3);
    assertThat(status.getNodes().getSelected()).isEqualTo(2);
    assertThat(status.getNodes().getApplied()).isEqualTo(1);
    assertThat(status.getNodes().getFailed()).isEqualTo(1);
    Condition ready = condition(status, IoPolicyStatus.READY);
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo(PolicyStatusFold.SOME_FAILED);
    assertThat(ready.getMessage()).startsWith("1 of 2 nodes").contains("b (1 of 2 pods)");
    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(ready.getObservedGeneration()).isEqualTo(3);
    assertThat(condition(status, IoPolicyStatus.CONFLICT).getStatus()).isEqualTo("False");
    assertThat(condition(status, IoPolicyStatus.INVALID).getStatus()).isEqualTo("False");
  }

  @Test
  void readyWithNoNodesAndAllApplied() {
    IoPolicyStatus none = PolicyStatusFold.fold(policy("p", 1), List.of(), Optional.empty(), T0);
    assertThat(condition(none, IoPolicyStatus.READY).getStatus()).isEqualTo("True");
    assertThat(condition(none, IoPolicyStatus.READY).getReason())
        .isEqualTo(PolicyStatusFold.NO_NODES);
    assertThat(none.getNodes().getSelected()).isZero();

    IoPolicyStatus all =
        PolicyStatusFold.fold(
            policy("p", 1),
            List.of(node("a", new PolicyPodCounts("p", 2, 2, 0))),
            Optional.empty(),
            T0);
    assertThat(condition(all, IoPolicyStatus.READY).getReason())
        .isEqualTo(PolicyStatusFold.ALL_APPLIED);
  }

  @Test
  void aTieIsAConflictForWinnerAndLoserAndTheLoserIsNotSelected() {
    PolicyPodCounts winner = new PolicyPodCounts("a", 1, 1, 0);
    winner.setConflicts(1);
    winner.setConflictingPolicies(List.of("b"));
    PolicyPodCounts loser = new PolicyPodCounts("b", 0, 0, 0);
    loser.setConflicts(1);
    loser.setConflictingPolicies(List.of("a"));
    List<IoNodeState> nodes = List.of(node("n", winner, loser));

    IoPolicyStatus a = PolicyStatusFold.fold(policy("a", 1), nodes, Optional.empty(), T0);
    IoPolicyStatus b = PolicyStatusFold.fold(policy("b", 1), nodes, Optional.empty(), T0);

    assertThat(condition(a, IoPolicyStatus.CONFLICT).getStatus()).isEqualTo("True");
    assertThat(condition(a, IoPolicyStatus.CONFLICT).getMessage())
        .contains("by b")
        .contains("this policy wins");
    assertThat(condition(b, IoPolicyStatus.CONFLICT).getReason())
        .isEqualTo(PolicyStatusFold.PRIORITY_TIE);
    assertThat(condition(b, IoPolicyStatus.CONFLICT).getMessage()).contains("a wins by name");
    assertThat(b.getNodes().getSelected()).isZero();
    assertThat(a.getNodes().getSelected()).isEqualTo(1);
  }

  @Test
  void anUnusableSpecIsInvalidAndNotReady() {
    IoPolicyStatus status =
        PolicyStatusFold.fold(
            policy("p", 1), List.of(), Optional.of("spec.podSelector: bad operator"), T0);

    assertThat(condition(status, IoPolicyStatus.INVALID).getStatus()).isEqualTo("True");
    assertThat(condition(status, IoPolicyStatus.READY).getStatus()).isEqualTo("False");
    assertThat(condition(status, IoPolicyStatus.READY).getMessage()).contains("bad operator");
  }

  @Test
  void transitionTimesMoveOnlyWithTheStatusAndAreIgnoredWhenComparing() {
    IoPolicy policy = policy("p", 1);
    List<IoNodeState> failing = List.of(node("a", new PolicyPodCounts("p", 2, 1, 1)));
    List<IoNodeState> moreFailing = List.of(node("a", new PolicyPodCounts("p", 2, 0, 2)));
    List<IoNodeState> fixed = List.of(node("a", new PolicyPodCounts("p", 2, 2, 0)));
    policy.setStatus(PolicyStatusFold.fold(policy, failing, Optional.empty(), T0));

    IoPolicyStatus again = PolicyStatusFold.fold(policy, failing, Optional.empty(), T1);
    assertThat(PolicyStatusFold.sameIgnoringTransitionTimes(again, policy.getStatus())).isTrue();
    assertThat(condition(again, IoPolicyStatus.READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");

    IoPolicyStatus worse = PolicyStatusFold.fold(policy, moreFailing, Optional.empty(), T1);
    assertThat(PolicyStatusFold.sameIgnoringTransitionTimes(worse, policy.getStatus())).isFalse();
    assertThat(condition(worse, IoPolicyStatus.READY).getLastTransitionTime())
        .as("still False: the time stays")
        .isEqualTo("2026-01-01T00:00:00Z");

    IoPolicyStatus better = PolicyStatusFold.fold(policy, fixed, Optional.empty(), T1);
    assertThat(condition(better, IoPolicyStatus.READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:05:00Z");
    assertThat(condition(better, IoPolicyStatus.CONFLICT).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
    assertThat(PolicyStatusFold.sameIgnoringTransitionTimes(better, null)).isFalse();
  }
}
