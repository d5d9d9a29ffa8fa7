package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** How many nodes an IoPolicy selects, and on how many it applied or failed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeCounts {
  @JsonPropertyDescription("Nodes the nodeSelector matches.")
  @Min(0)
  private Integer selected;

  @JsonPropertyDescription("Nodes where every selected pod has the policy's values.")
  @Min(0)
  private Integer applied;

  @JsonPropertyDescription("Nodes that report at least one pod failure for this policy.")
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
