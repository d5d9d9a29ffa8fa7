package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Whether a policy's values are written or only computed and reported. */
public enum PolicyMode {
  @JsonProperty("Enforce")
  ENFORCE,
  @JsonProperty("DryRun")
  DRY_RUN
}
