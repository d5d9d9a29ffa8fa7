package dev.ioqos.core.policy;

import static dev.ioqos.core.policy.LabelSelectorRule.Requirement.doesNotExist;
import static dev.ioqos.core.policy.LabelSelectorRule.Requirement.exists;
import static dev.ioqos.core.policy.LabelSelectorRule.Requirement.in;
import static dev.ioqos.core.policy.LabelSelectorRule.Requirement.notIn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.policy.LabelSelectorRule.Operator;
import dev.ioqos.core.policy.LabelSelectorRule.Requirement;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class LabelSelectorRuleTest {

  private static final Map<String, String> WEB = Map.of("app", "web", "tier", "frontend");
  private static final Map<String, String> NO_LABELS = Map.of();

  static Stream<Arguments> cases() {
    return Stream.of(
        // selector, labels, expected
        Arguments.of(LabelSelectorRule.EVERYTHING, WEB, true),
        Arguments.of(LabelSelectorRule.EVERYTHING, NO_LABELS, true),
        Arguments.of(LabelSelectorRule.matchLabels(Map.of("app", "web")), WEB, true),
        Arguments.of(LabelSelectorRule.matchLabels(Map.of("app", "db")), WEB, false),
        Arguments.of(LabelSelectorRule.matchLabels(Map.of("app", "web")), NO_LABELS, false),
        Arguments.of(
            LabelSelectorRule.matchLabels(Map.of("app", "web", "tier", "backend")), WEB, false),
        // matchLabels with an empty value needs the key, with the empty value.
        Arguments.of(LabelSelectorRule.matchLabels(Map.of("app", "")), WEB, false),
        Arguments.of(LabelSelectorRule.matchLabels(Map.of("app", "")), Map.of("app", ""), true),
        Arguments.of(LabelSelectorRule.matchExpressions(in("app", "db", "web")), WEB, true),
        Arguments.of(LabelSelectorRule.matchExpressions(in("app", "db")), WEB, false),
        Arguments.of(LabelSelectorRule.matchExpressions(in("app", "web")), NO_LABELS, false),
        Arguments.of(LabelSelectorRule.matchExpressions(notIn("app", "db")), WEB, true),
        Arguments.of(LabelSelectorRule.matchExpressions(notIn("app", "web")), WEB, false),
        // apimachinery: a missing key is "not in" every set.
        Arguments.of(LabelSelectorRule.matchExpressions(notIn("app", "web")), NO_LABELS, true),
        Arguments.of(LabelSelectorRule.matchExpressions(exists("app")), WEB, true),
        Arguments.of(LabelSelectorRule.matchExpressions(exists("app")), NO_LABELS, false),
        Arguments.of(LabelSelectorRule.matchExpressions(exists("app")), Map.of("app", ""), true),
        Arguments.of(LabelSelectorRule.matchExpressions(doesNotExist("app")), WEB, false),
        Arguments.of(LabelSelectorRule.matchExpressions(doesNotExist("app")), NO_LABELS, true),
        // Everything is ANDed: labels and expressions.
        Arguments.of(
            new LabelSelectorRule(
                Map.of("app", "web"), List.of(exists("tier"), notIn("tier", "db"))),
            WEB,
            true),
        Arguments.of(
            new LabelSelectorRule(Map.of("app", "web"), List.of(doesNotExist("tier"))),
            WEB,
            false));
  }

  @ParameterizedTest(name = "[{index}] {0} on {1} -> {2}")
  @MethodSource("cases")
  void matchesLikeKubernetes(LabelSelectorRule selector, Map<String, String> labels, boolean want) {
    assertThat(selector.matches(labels)).isEqualTo(want);
  }

  @Test
  void nullLabelsAreNoLabels() {
    assertThat(LabelSelectorRule.EVERYTHING.matches(null)).isTrue();
    assertThat(LabelSelectorRule.matchExpressions(doesNotExist("app")).matches(null)).isTrue();
    assertThat(LabelSelectorRule.matchExpressions(exists("app")).matches(null)).isFalse();
  }

  @Test
  void nullPartsAreAnEmptySelector() {
    LabelSelectorRule absent = new LabelSelectorRule(null, null);

    assertThat(absent).isEqualTo(LabelSelectorRule.EVERYTHING);
    assertThat(absent.isEmpty()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"In", "NotIn", "Exists", "DoesNotExist"})
  void operatorsParseByTheirApiNames(String name) {
    assertThat(Operator.parse(name).kubernetesName()).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"in", "Equals", "", "NOT_IN"})
  void unknownOperatorsAreRefused(String name) {
    assertThatThrownBy(() -> Operator.parse(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown label selector operator '"
                + name
                + "': expected In, NotIn, Exists or DoesNotExist");
  }

  @Test
  void inAndNotInNeedValues() {
    assertThatThrownBy(() -> new Requirement("app", Operator.IN, List.of()))
        .hasMessage("label selector key app: operator In needs at least one value");
    assertThatThrownBy(() -> new Requirement("app", Operator.NOT_IN, null))
        .hasMessage("label selector key app: operator NotIn needs at least one value");
  }

  @Test
  void existsTakesNoValues() {
    assertThatThrownBy(() -> new Requirement("app", Operator.EXISTS, List.of("web")))
        .hasMessage("label selector key app: operator Exists takes no values");
    assertThatThrownBy(() -> new Requirement("app", Operator.DOES_NOT_EXIST, List.of("web")))
        .hasMessage("label selector key app: operator DoesNotExist takes no values");
  }

  @Test
  void blankKeyIsRefused() {
    assertThatThrownBy(() -> exists(" ")).hasMessage("label selector key must not be blank");
  }
}
