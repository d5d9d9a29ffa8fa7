package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Map;

/** Tier fallbacks for pods without the tier annotation, tried in field order. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TierFrom {
  /** At most this many priority classes can be mapped. */
  public static final int MAX_PRIORITY_CLASSES = 64;

  @JsonPropertyDescription("Pod priorityClassName -> tier name.")
  @Size(max = MAX_PRIORITY_CLASSES)
  @ValidationRule(
      value = "self.all(k, k.size() <= 253)",
      message = "priorityClasses keys must be priority class names (at most 253 characters)",
      reason = "FieldValueInvalid")
  private Map<String, @Pattern(IoPolicySpec.DNS_LABEL) @Size(max = 63) String> priorityClasses;

  @JsonPropertyDescription("Pod QoS class (Guaranteed, Burstable, BestEffort) -> tier name.")
  @Size(max = 3)
  @ValidationRule(
      value = "self.all(k, k in ['Guaranteed', 'Burstable', 'BestEffort'])",
      // Static: map keys have no maxLength, so a message quoting one fails cost estimation.
      message = "qosClasses keys must be Guaranteed, Burstable or BestEffort",
      reason = "FieldValueInvalid")
  private Map<String, @Pattern(IoPolicySpec.DNS_LABEL) @Size(max = 63) String> qosClasses;

  public Map<String, String> getPriorityClasses() {
    return priorityClasses;
  }

  public void setPriorityClasses(Map<String, String> priorityClasses) {
    this.priorityClasses = priorityClasses;
  }

  public Map<String, String> getQosClasses() {
    return qosClasses;
  }

  public void setQosClasses(Map<String, String> qosClasses) {
    this.qosClasses = qosClasses;
  }
}
