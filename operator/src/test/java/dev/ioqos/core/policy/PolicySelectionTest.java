package dev.ioqos.core.policy;

import static dev.ioqos.core.policy.LabelSelectorRule.Requirement.in;
import static dev.ioqos.core.policy.LabelSelectorRule.Requirement.notIn;
import static dev.ioqos.core.policy.Policies.NODE;
import static dev.ioqos.core.policy.Policies.pod;
import static dev.ioqos.core.policy.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.QosClass;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PolicySelectionTest {

  private static final PodFacts WEB = pod(Map.of("app", "web"), Map.of());

  @Test
  void noPoliciesSelectNothing() {
    assertThat(PolicySelection.select(WEB, NODE, List.of())).isEqualTo(PolicySelection.NONE);
  }

  @Test
  void emptySelectorsSelectEveryPod() {
    PolicySelection selection = PolicySelection.select(WEB, NODE, List.of(policy("all").build()));

    assertThat(selection.winner().map(PolicyRules::name)).hasValue("all");
    assertThat(selection.matchingPolicies()).containsExactly("all");
    assertThat(selection.conflictingPolicies()).isEmpty();
    assertThat(selection.hasConflict()).isFalse();
  }

  @Test
  void highestPriorityWinsWithoutConflict() {
    List<PolicyRules> policies =
        List.of(
            policy("a-low").priority(10).build(),
            policy("z-high").priority(100).build(),
            policy("m-mid").priority(50).build());

    PolicySelection selection = PolicySelection.select(WEB, NODE, policies);

    assertThat(selection.winner().map(PolicyRules::name)).hasValue("z-high");
    assertThat(selection.matchingPolicies()).containsExactly("z-high", "m-mid", "a-low");
    assertThat(selection.conflictingPolicies()).isEmpty();
  }

  @Test
  void negativePriorityLosesToTheDefaultZero() {
    List<PolicyRules> policies =
        List.of(policy("a-negative").priority(-5).build(), policy("b-zero").build());

    assertThat(PolicySelection.select(WEB, NODE, policies).winner().map(PolicyRules::name))
        .hasValue("b-zero");
  }

  @Test
  void tieAtTheTopGoesToTheSmallestNameAndIsAConflict() {
    List<PolicyRules> policies =
        List.of(
            policy("gold").priority(100).build(),
            policy("bronze").priority(100).build(),
            policy("silver").priority(100).build(),
            policy("aaa-lower").priority(99).build());

    PolicySelection selection = PolicySelection.select(WEB, NODE, policies);

    assertThat(selection.winner().map(PolicyRules::name)).hasValue("bronze");
    assertThat(selection.conflictingPolicies()).containsExactly("bronze", "gold", "silver");
    assertThat(selection.matchingPolicies())
        .containsExactly("bronze", "gold", "silver", "aaa-lower");
    assertThat(selection.hasConflict()).isTrue();
  }

  @Test
  void tieBelowTheTopIsNoConflict() {
    List<PolicyRules> policies =
        List.of(
            policy("top").priority(100).build(),
            policy("b").priority(1).build(),
            policy("a").priority(1).build());

    PolicySelection selection = PolicySelection.select(WEB, NODE, policies);

    assertThat(selection.winner().map(PolicyRules::name)).hasValue("top");
    assertThat(selection.conflictingPolicies()).isEmpty();
  }

  @Test
  void podSelectorThatDoesNotMatchRemovesTheCandidate() {
    List<PolicyRules> policies =
        List.of(
            policy("db-only")
                .priority(100)
                .podSelector(LabelSelectorRule.matchLabels(Map.of("app", "db")))
                .build(),
            policy("fallback").build());

    PolicySelection selection = PolicySelection.select(WEB, NODE, policies);

    assertThat(selection.winner().map(PolicyRules::name)).hasValue("fallback");
    assertThat(selection.matchingPolicies()).containsExactly("fallback");
  }

  @Test
  void namespaceSelectorMatchesTheNamespaceLabelsNotThePodLabels() {
    PolicyRules shopNamespaces =
        policy("shop-ns")
            .namespaceSelector(LabelSelectorRule.matchExpressions(in("team", "shop")))
            .build();
    PolicyRules notShop =
        policy("not-shop")
            .namespaceSelector(LabelSelectorRule.matchExpressions(notIn("team", "shop")))
            .build();
    // The pod itself carries team=payments; only the namespace's team=shop counts.
    PodFacts pod =
        new PodFacts(
            "shop",
            "web-0",
            "uid",
            Map.of("team", "payments"),
            Map.of(),
            Map.of("team", "shop"),
            Optional.empty(),
            QosClass.GUARANTEED);

    PolicySelection selection = PolicySelection.select(pod, NODE, List.of(shopNamespaces, notShop));

    assertThat(selection.matchingPolicies()).containsExactly("shop-ns");
  }

  @Test
  void nodeSelectorLimitsPoliciesToSomeNodes() {
    PolicyRules hddNodes =
        policy("hdd").nodeSelector(LabelSelectorRule.matchLabels(Map.of("disk", "hdd"))).build();
    PolicyRules ssdNodes =
        policy("ssd").nodeSelector(LabelSelectorRule.matchLabels(Map.of("disk", "ssd"))).build();

    assertThat(PolicySelection.select(WEB, NODE, List.of(hddNodes, ssdNodes)).matchingPolicies())
        .containsExactly("ssd");
    assertThat(
            PolicySelection.select(WEB, new NodeFacts("bare", Map.of()), List.of(hddNodes))
                .winner())
        .isEmpty();
  }
}
