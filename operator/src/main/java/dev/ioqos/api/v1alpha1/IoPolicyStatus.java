package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** What the aggregate controller last observed of an IoPolicy across nodes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IoPolicyStatus {
  /** The policy is valid and no node reports a failure. */
  public static final String READY = "Ready";

  /** Another policy with the same priority selects some of the same pods; the name broke it. */
  public static final String CONFLICT = "Conflict";

  /** The policy cannot be applied as written (what admission cannot check). */
  public static final String INVALID = "Invalid";

  /** At most this many conditions. */
  public static final int MAX_CONDITIONS = 8;

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("Ready, Conflict, Invalid.")
  @Size(max = MAX_CONDITIONS)
  private List<Condition> conditions;

  @JsonPropertyDescription("Node counts, folded from IoNodeStates.")
  private NodeCounts nodes;

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public NodeCounts getNodes() {
    return nodes;
  }

  public void setNodes(NodeCounts nodes) {
    this.nodes = nodes;
  }
}
