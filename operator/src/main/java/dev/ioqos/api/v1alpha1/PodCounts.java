package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** Pods on one node: how many a policy selects, how many got their values, which failed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodCounts {
  /**
   * At most this many failures are listed (the API server refuses more); {@link #getFailed()} still
   * counts all of them. Admins need names to act on, not a complete log.
   */
  public static final int MAX_FAILURES = 50;

  @JsonPropertyDescription("Pods on this node selected by some IoPolicy.")
  @Min(0)
  private Integer managed;

  @JsonPropertyDescription("Managed pods whose values were written and read back.")
  @Min(0)
  private Integer applied;

  @JsonPropertyDescription("Managed pods whose values could not be applied.")
  @Min(0)
  private Integer failed;

  @JsonPropertyDescription("The failed pods, at most 50; failed counts them all.")
  @Size(max = MAX_FAILURES)
  private List<PodFailure> failures;

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

  public List<PodFailure> getFailures() {
    return failures;
  }

  public void setFailures(List<PodFailure> failures) {
    this.failures = failures;
  }
}
