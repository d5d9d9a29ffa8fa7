package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * The disks under each selected pod's own volumes, resolved per pod on its node: {@code podVolumes:
 * {}} for every volume that sits on a disk, {@code podVolumes: {names: [data]}} for some.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodVolumes {
  @JsonPropertyDescription(
      "Names of pod volumes (spec.volumes[].name) whose disks to target; omitted or empty: every"
          + " volume of the pod that sits on a disk. A named volume that resolves to no disk is"
          + " reported as an Event on the pod.")
  @Size(max = 32)
  @ValidationRule(
      value = "self.all(n, n.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",
      message =
          "podVolumes.names entries must be pod volume names (DNS labels: lower case letters,"
              + " digits and -, at most 63 characters)",
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = "self.all(n, self.exists_one(m, m == n))",
      message = "podVolumes.names must not repeat a name",
      reason = "FieldValueInvalid")
  private List<@Size(min = 1, max = 63) String> names;

  public List<@Size(min = 1, max = 63) String> getNames() {
    return names;
  }

  public void setNames(List<String> names) {
    this.names = names;
  }
}
