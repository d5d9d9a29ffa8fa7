package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;

/** What an IoPolicy selects and the tiers it offers; see DESIGN.md, API. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.defaultTier) || (has(self.tiers) && self.tiers.exists(t, t.name =="
            + " self.defaultTier))",
    messageExpression =
        "'defaultTier must name a tier in spec.tiers; there is no tier ' + self.defaultTier",
    fieldPath = ".defaultTier",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.tierFrom) || !has(self.tierFrom.priorityClasses) ||"
            + " self.tierFrom.priorityClasses.all(k, has(self.tiers) && self.tiers.exists(t,"
            + " t.name == self.tierFrom.priorityClasses[k]))",
    messageExpression =
        "'tierFrom.priorityClasses must map to tiers in spec.tiers; there is no tier ' +"
            + " self.tierFrom.priorityClasses.map(k, self.tierFrom.priorityClasses[k]).filter(v,"
            + " !has(self.tiers) || !self.tiers.exists(t, t.name == v))[0]",
    fieldPath = ".tierFrom.priorityClasses",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.tierFrom) || !has(self.tierFrom.qosClasses) ||"
            + " self.tierFrom.qosClasses.all(k, has(self.tiers) && self.tiers.exists(t, t.name"
            + " == self.tierFrom.qosClasses[k]))",
    messageExpression =
        "'tierFrom.qosClasses must map to tiers in spec.tiers; there is no tier ' +"
            + " self.tierFrom.qosClasses.map(k, self.tierFrom.qosClasses[k]).filter(v,"
            + " !has(self.tiers) || !self.tiers.exists(t, t.name == v))[0]",
    fieldPath = ".tierFrom.qosClasses",
    reason = "FieldValueInvalid")
public class IoPolicySpec {
  /** The annotation platform teams set on a pod to pick a tier. */
  public static final String DEFAULT_TIER_ANNOTATION = "ioqos.dev/tier";

  /**
   * At most this many tiers per policy. It bounds the cost of the CEL rules: the API server refuses
   * the CRD when a rule's estimated cost (per tier, times the number of tiers) exceeds its budget,
   * and the quantity rules on limits leave no room for 16.
   */
  public static final int MAX_TIERS = 8;

  /** At most this many device selectors per policy. */
  public static final int MAX_DEVICES = 16;

  /** DNS-1123 label: a tier name. */
  static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** A Kubernetes annotation key: optional DNS subdomain prefix and a name of up to 63 chars. */
  static final String ANNOTATION_KEY =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  @JsonPropertyDescription(
      "When several policies select a pod the highest priority wins; a tie is broken by name"
          + " and reported as a Conflict condition.")
  @Default("0")
  @Min(-1_000_000_000)
  @Max(1_000_000_000)
  private int priority;

  @JsonPropertyDescription("Nodes this policy applies on; all nodes when omitted.")
  @SchemaFrom(type = SelectorSchema.class)
  private LabelSelector nodeSelector;

  @JsonPropertyDescription("Namespaces whose pods this policy selects; all when omitted.")
  @SchemaFrom(type = SelectorSchema.class)
  private LabelSelector namespaceSelector;

  @JsonPropertyDescription("Pods this policy selects; all when omitted.")
  @SchemaFrom(type = SelectorSchema.class)
  private LabelSelector podSelector;

  @JsonPropertyDescription("Pod annotation that names the pod's tier.")
  @Default(DEFAULT_TIER_ANNOTATION)
  @Pattern(ANNOTATION_KEY)
  @Size(max = 317)
  private String tierAnnotation = DEFAULT_TIER_ANNOTATION;

  @JsonPropertyDescription(
      "Tier for selected pods that neither the annotation nor tierFrom places; no change when"
          + " omitted.")
  @Pattern(DNS_LABEL)
  @Size(max = 63)
  private String defaultTier;

  @JsonPropertyDescription("Fallbacks tried after the annotation.")
  private TierFrom tierFrom;

  @JsonPropertyDescription(
      "Block devices that io.max, io.latency and per-device weights target; the disk(s) under"
          + " kubelet's root dir when omitted.")
  @Size(max = MAX_DEVICES)
  private List<DeviceSelector> devices;

  @JsonPropertyDescription("The tiers pods can be placed in; names are unique.")
  @Required
  @Size(min = 1, max = MAX_TIERS)
  @ValidationRule(
      value = "self.all(t, !has(t.name) || self.exists_one(u, has(u.name) && u.name == t.name))",
      // The message maps to names before filtering: the cost estimator keeps maxLength through
      // map() but not through filter() on objects, and refuses concatenating unbounded strings.
      messageExpression =
          "'tier names must be unique; ' + self.map(t, has(t.name) ? t.name : '').filter(n, n"
              + " != '' && !self.exists_one(u, has(u.name) && u.name == n))[0] + ' is used more"
              + " than once'",
      reason = "FieldValueInvalid")
  private List<Tier> tiers = new ArrayList<>();

  @JsonPropertyDescription("Enforce writes the values; DryRun computes and reports only.")
  @Default("Enforce")
  private PolicyMode mode = PolicyMode.ENFORCE;

  public int getPriority() {
    return priority;
  }

  public void setPriority(int priority) {
    this.priority = priority;
  }

  public LabelSelector getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(LabelSelector nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public LabelSelector getNamespaceSelector() {
    return namespaceSelector;
  }

  public void setNamespaceSelector(LabelSelector namespaceSelector) {
    this.namespaceSelector = namespaceSelector;
  }

  public LabelSelector getPodSelector() {
    return podSelector;
  }

  public void setPodSelector(LabelSelector podSelector) {
    this.podSelector = podSelector;
  }

  public String getTierAnnotation() {
    return tierAnnotation;
  }

  public void setTierAnnotation(String tierAnnotation) {
    this.tierAnnotation = tierAnnotation;
  }

  public String getDefaultTier() {
    return defaultTier;
  }

  public void setDefaultTier(String defaultTier) {
    this.defaultTier = defaultTier;
  }

  public TierFrom getTierFrom() {
    return tierFrom;
  }

  public void setTierFrom(TierFrom tierFrom) {
    this.tierFrom = tierFrom;
  }

  public List<DeviceSelector> getDevices() {
    return devices;
  }

  public void setDevices(List<DeviceSelector> devices) {
    this.devices = devices;
  }

  public List<Tier> getTiers() {
    return tiers;
  }

  public void setTiers(List<Tier> tiers) {
    this.tiers = tiers;
  }

  public PolicyMode getMode() {
    return mode;
  }

  public void setMode(PolicyMode mode) {
    this.mode = mode;
  }
}
