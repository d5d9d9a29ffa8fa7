package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.agent.NodeStateReporter.PodResult;
import dev.ioqos.api.v1alpha1.PolicyPodCounts;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeStateReporterTest {

  static PodResult applied(String pod, String policy, String... tied) {
    return new PodResult("ns", pod, policy, true, null, null, List.of(tied));
  }

  static PodResult failed(String pod, String policy) {
    return new PodResult("ns", pod, policy, false, "NoSuchDevice", "io.max: ENODEV", List.of());
  }

  @Test
  void countsEachPolicysPodsSortedByName() {
    List<PolicyPodCounts> policies =
        NodeStateReporter.policies(
            List.of(
                applied("a", "web"),
                failed("b", "web"),
                applied("c", "batch"),
                new PodResult("ns", "bad", null, false, "InvalidPod", "uid", List.of())));

    assertThat(policies).extracting(PolicyPodCounts::getName).containsExactly("batch", "web");
    PolicyPodCounts web = policies.get(1);
    assertThat(web.getManaged()).isEqualTo(2);
    assertThat(web.getApplied()).isEqualTo(1);
    assertThat(web.getFailed()).isEqualTo(1);
    assertThat(web.getConflicts()).isNull();
    assertThat(web.getConflictingPolicies()).isNull();
  }

  @Test
  void aTieIsListedForEveryTiedPolicyWithTheOthersNamed() {
    List<PolicyPodCounts> policies =
        NodeStateReporter.policies(
            List.of(applied("x", "a", "a", "b"), applied("y", "a", "a", "b", "c")));

    assertThat(policies).extracting(PolicyPodCounts::getName).containsExactly("a", "b", "c");
    assertThat(policies.get(0).getManaged()).isEqualTo(2);
    assertThat(policies.get(0).getConflicts()).isEqualTo(2);
    assertThat(policies.get(0).getConflictingPolicies()).containsExactly("b", "c");
    assertThat(policies.get(1).getManaged()).isZero();
    assertThat(policies.get(1).getConflicts()).isEqualTo(2);
    assertThat(policies.get(1).getConflictingPolicies()).containsExactly("a", "c");
    assertThat(policies.get(2).getConflicts()).isEqualTo(1);
  }

  @Test
  void nothingManagedListsNothing() {
    assertThat(NodeStateReporter.policies(List.of())).isNull();
  }
}
