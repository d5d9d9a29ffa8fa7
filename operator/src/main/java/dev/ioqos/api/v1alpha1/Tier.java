package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.OptionalLong;

/** One tier: the io.weight, io.latency target and io.max limits its pods get. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.weight) || has(self.latencyTarget) || has(self.limits)",
    message = "a tier must set at least one of weight, latencyTarget or limits",
    reason = "FieldValueRequired")
public class Tier {
  @JsonPropertyDescription("Tier name, a DNS label; the value of the tier annotation.")
  @Required
  @Pattern(IoPolicySpec.DNS_LABEL)
  @Size(min = 1, max = 63)
  private String name;

  @JsonPropertyDescription(
      "io.weight 1..10000 (scaled to io.bfq.weight 1..1000 on bfq disks); the pod's weight is"
          + " left alone when omitted.")
  @Min(1)
  @Max(10000)
  private Integer weight;

  @JsonPropertyDescription(
      "io.latency target: a whole number of us, ms or s, e.g. 500us, 5ms; applied only where"
          + " the kernel has io.latency.")
  @Size(max = 16)
  @ValidationRule(
      value = "self.matches('" + ApiUnits.LATENCY_TARGET_CEL_REGEX + "')",
      messageExpression =
          "'latencyTarget must be a whole number followed by us, ms or s (e.g. 500us, 5ms, 1s),"
              + " not ' + self",
      reason = "FieldValueInvalid")
  @ValidationRule(
      value =
          "!self.matches('"
              + ApiUnits.LATENCY_TARGET_CEL_REGEX
              + "') || duration(self) > duration('0s')",
      message = "latencyTarget must be greater than 0",
      reason = "FieldValueInvalid")
  private String latencyTarget;

  @JsonPropertyDescription("io.max limits; unlimited when omitted.")
  private TierLimits limits;

  @JsonPropertyDescription(
      "Namespaces whose pods may choose this tier with the tier annotation; any namespace when"
          + " omitted. A pod of another namespace that asks for it is placed as if it had no"
          + " annotation (tierFrom, defaultTier) and gets a TierNotAllowed Warning. Tiers reached"
          + " through tierFrom or defaultTier are the policy's own choice and not restricted. A"
          + " selector no namespace matches turns the annotation off for this tier, e.g."
          + " {matchExpressions: [{key: kubernetes.io/metadata.name, operator: DoesNotExist}]}.")
  @SchemaFrom(type = SelectorSchema.class)
  private LabelSelector annotationNamespaceSelector;

  public LabelSelector getAnnotationNamespaceSelector() {
    return annotationNamespaceSelector;
  }

  public void setAnnotationNamespaceSelector(LabelSelector annotationNamespaceSelector) {
    this.annotationNamespaceSelector = annotationNamespaceSelector;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Integer getWeight() {
    return weight;
  }

  public void setWeight(Integer weight) {
    this.weight = weight;
  }

  public String getLatencyTarget() {
    return latencyTarget;
  }

  public void setLatencyTarget(String latencyTarget) {
    this.latencyTarget = latencyTarget;
  }

  public TierLimits getLimits() {
    return limits;
  }

  public void setLimits(TierLimits limits) {
    this.limits = limits;
  }

  /** The latency target in microseconds, empty when the tier has none. */
  public OptionalLong latencyTargetMicros() {
    return latencyTarget == null
        ? OptionalLong.empty()
        : OptionalLong.of(ApiUnits.latencyMicros(latencyTarget));
  }
}
