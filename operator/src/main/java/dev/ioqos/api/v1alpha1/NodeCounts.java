package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/**
 * On how many nodes an IoPolicy governs pods, and on how many of them it applied or failed; folded
 * from the IoNodeStates by {@code ioqos aggregate}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeCounts {
  @JsonPropertyDescription(
      "Nodes whose agent reports at least one pod this policy governs (from their IoNodeStates).")
  @Min(0)
  private Integer selected;

  @JsonPropertyDescription("Of those, nodes where every such pod has the policy's values.")
  @Min(0)
  private Integer applied;

  @JsonPropertyDescription("Of those, nodes that report at least one such pod failed.")
  @Min(0)
  private Integer failed;

  public NodeCounts() {}

  public NodeCounts(int selected, int applied, int failed) {
    this.selected = selected;
    this.applied = applied;
    this.failed = failed;
  }

  public Integer getSelected() {
    return selected;
  }

  public void setSelected(Integer selected) {
    this.selected = selected;
  }

  public Integer getApplied() {
    return applied;
  }

  public void setApplied(Integer applied) {
    this.applied = applied;
  }

  public Integer getFailed() {
    return failed;
  }

  public void setFailed(Integer failed) {
    this.failed = failed;
  }
}
