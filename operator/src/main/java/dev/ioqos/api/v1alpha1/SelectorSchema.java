package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Map;

/**
 * The schema the CRD declares for the policy's label selectors (schema only: the model keeps
 * fabric8's LabelSelector). Kubernetes' own LabelSelector schema leaves the operator free text and
 * the lists unbounded: a bad operator would only be caught on every node, where the policy is
 * ignored and its pods reverted, and CEL rules on unbounded lists exceed the API server's cost
 * budget. Bounded here, each refusal names the field at apply time.
 */
public final class SelectorSchema {
  /** At most this many expressions per selector. */
  public static final int MAX_EXPRESSIONS = 32;

  /** At most this many values per expression. */
  public static final int MAX_VALUES = 256;

  /** At most this many matchLabels entries. */
  public static final int MAX_LABELS = 64;

  @JsonPropertyDescription("Label key -> value; every entry must match.")
  @Size(max = MAX_LABELS)
  private Map<String, String> matchLabels;

  @JsonPropertyDescription("Requirements; every one must match.")
  @Size(max = MAX_EXPRESSIONS)
  private List<Requirement> matchExpressions;

  private SelectorSchema() {}

  public Map<String, String> getMatchLabels() {
    return matchLabels;
  }

  public List<Requirement> getMatchExpressions() {
    return matchExpressions;
  }

  /** One matchExpressions entry. */
  @ValidationRule(
      value =
          "self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0)"
              + " : (!has(self.values) || size(self.values) == 0)",
      message = "values must be non-empty for In and NotIn and empty for Exists and DoesNotExist",
      reason = "FieldValueInvalid")
  public static final class Requirement {
    /** The operators of Kubernetes label selectors. */
    public enum Operator {
      In,
      NotIn,
      Exists,
      DoesNotExist
    }

    @JsonPropertyDescription("The label key, e.g. topology.kubernetes.io/zone.")
    @Required
    @Size(min = 1, max = 317)
    private String key;

    @JsonPropertyDescription("In, NotIn, Exists or DoesNotExist.")
    @Required
    private Operator operator;

    @JsonPropertyDescription("Values for In and NotIn; none for Exists and DoesNotExist.")
    @Size(max = MAX_VALUES)
    private List<@Size(max = 63) String> values;

    private Requirement() {}

    public String getKey() {
      return key;
    }

    public Operator getOperator() {
      return operator;
    }

    public List<String> getValues() {
      return values;
    }
  }
}
