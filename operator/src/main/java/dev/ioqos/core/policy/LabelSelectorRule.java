package dev.ioqos.core.policy;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Kubernetes label selector, evaluated like apimachinery's {@code LabelSelectorAsSelector}: every
 * matchLabels entry and every matchExpressions requirement must hold; an empty selector matches
 * everything.
 */
public record LabelSelectorRule(
    Map<String, String> matchLabels, List<Requirement> matchExpressions) {

  /** The empty selector: what an omitted IoPolicy selector means (DESIGN.md: default all). */
  public static final LabelSelectorRule EVERYTHING = new LabelSelectorRule(Map.of(), List.of());

  public LabelSelectorRule {
    matchLabels = Immutables.map(matchLabels, "matchLabels");
    matchExpressions = Immutables.list(matchExpressions, "matchExpressions");
  }

  /** A selector with only matchLabels. */
  public static LabelSelectorRule matchLabels(Map<String, String> labels) {
    return new LabelSelectorRule(labels, List.of());
  }

  /** A selector with only matchExpressions. */
  public static LabelSelectorRule matchExpressions(Requirement... requirements) {
    return new LabelSelectorRule(Map.of(), List.of(requirements));
  }

  public boolean isEmpty() {
    return matchLabels.isEmpty() && matchExpressions.isEmpty();
  }

  /** True when the object with {@code labels} (null: no labels) is selected. */
  public boolean matches(Map<String, String> labels) {
    Map<String, String> actual = labels == null ? Map.of() : labels;
    for (Map.Entry<String, String> wanted : matchLabels.entrySet()) {
      if (!wanted.getValue().equals(actual.get(wanted.getKey()))) {
        return false;
      }
    }
    for (Requirement requirement : matchExpressions) {
      if (!requirement.matches(actual)) {
        return false;
      }
    }
    return true;
  }

  /** The operators of a matchExpressions entry, spelled as in the Kubernetes API. */
  public enum Operator {
    IN("In"),
    NOT_IN("NotIn"),
    EXISTS("Exists"),
    DOES_NOT_EXIST("DoesNotExist");

    private final String kubernetesName;

    Operator(String kubernetesName) {
      this.kubernetesName = kubernetesName;
    }

    public String kubernetesName() {
      return kubernetesName;
    }

    /** Parses {@code In|NotIn|Exists|DoesNotExist}, case-sensitively like the API server. */
    public static Operator parse(String text) {
      for (Operator operator : values()) {
        if (operator.kubernetesName.equals(text)) {
          return operator;
        }
      }
      throw new IllegalArgumentException(
          "unknown label selector operator '"
              + text
              + "': expected In, NotIn, Exists or"
              + " DoesNotExist");
    }

    @Override
    public String toString() {
      return kubernetesName;
    }
  }

  /**
   * One matchExpressions entry. CRD schemas do not check selector semantics, so the rules
   * apimachinery enforces for built-in objects are checked here instead.
   */
  public record Requirement(String key, Operator operator, List<String> values) {

    public Requirement {
      Immutables.text(key, "label selector key");
      Objects.requireNonNull(operator, "operator");
      values = Immutables.list(values, "values of label selector key " + key);
      boolean needsValues = operator == Operator.IN || operator == Operator.NOT_IN;
      if (needsValues && values.isEmpty()) {
        throw new IllegalArgumentException(
            "label selector key " + key + ": operator " + operator + " needs at least one value");
      }
      if (!needsValues && !values.isEmpty()) {
        throw new IllegalArgumentException(
            "label selector key " + key + ": operator " + operator + " takes no values");
      }
    }

    public static Requirement in(String key, String... values) {
      return new Requirement(key, Operator.IN, List.of(values));
    }

    public static Requirement notIn(String key, String... values) {
      return new Requirement(key, Operator.NOT_IN, List.of(values));
    }

    public static Requirement exists(String key) {
      return new Requirement(key, Operator.EXISTS, List.of());
    }

    public static Requirement doesNotExist(String key) {
      return new Requirement(key, Operator.DOES_NOT_EXIST, List.of());
    }

    boolean matches(Map<String, String> labels) {
      String value = labels.get(key);
      return switch (operator) {
        case IN -> value != null && values.contains(value);
        // As in apimachinery: an object without the key is "not in" any set.
        case NOT_IN -> value == null || !values.contains(value);
        case EXISTS -> value != null;
        case DOES_NOT_EXIST -> value == null;
      };
    }
  }
}
