package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/**
 * One IoPolicy's pods on one node: what the aggregate controller folds into that policy's {@code
 * status.nodes} and conditions, so that it never has to look at pods itself.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PolicyPodCounts {
  /** At most this many tied policies are named; {@link #getConflicts()} still counts every pod. */
  public static final int MAX_CONFLICTING_POLICIES = 16;

  @JsonPropertyDescription("The IoPolicy's name.")
  @Required
  @Size(max = 253)
  private String name;

  @JsonPropertyDescription("Pods on this node this policy governs (it won the selection).")
  @Min(0)
  private Integer managed;

  @JsonPropertyDescription("Of those, pods whose values were written and read back.")
  @Min(0)
  private Integer applied;

  @JsonPropertyDescription("Of those, pods whose values could not be applied.")
  @Min(0)
  private Integer failed;

  @JsonPropertyDescription(
      "Pods on this node that this policy and another one select with the same priority (the"
          + " name broke the tie), whether this policy won or lost.")
  @Min(0)
  private Integer conflicts;

  @JsonPropertyDescription("The other policies tied with this one on those pods, at most 16.")
  @Size(max = MAX_CONFLICTING_POLICIES)
  private List<String> conflictingPolicies;

  public PolicyPodCounts() {}

  public PolicyPodCounts(String name, int managed, int applied, int failed) {
    this.name = name;
    this.managed = managed;
    this.applied = applied;
    this.failed = failed;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Integer getManaged() {
    return managed;
  }

  public void setManaged(Integer managed) {
    this.managed = managed;
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

  public Integer getConflicts() {
    return conflicts;
  }

  public void setConflicts(Integer conflicts) {
    this.conflicts = conflicts;
  }

  public List<String> getConflictingPolicies() {
    return conflictingPolicies;
  }

  public void setConflictingPolicies(List<String> conflictingPolicies) {
    this.conflictingPolicies = conflictingPolicies;
  }
}
