package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** One node's capabilities and pod outcome, as its agent last wrote them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IoNodeStateStatus {
  /** At most this many disks are listed. */
  public static final int MAX_DEVICES = 256;

  /** At most this many conditions. */
  public static final int MAX_CONDITIONS = 16;

  /** At most this many pods are listed in podDisks, the first by namespace and name. */
  public static final int MAX_POD_DISKS = 256;

  /** At most this many policies are listed, the first by name. */
  public static final int MAX_POLICIES = 256;

  @JsonPropertyDescription("How cgroups are mounted and where the pods' cgroups live.")
  private CgroupStatus cgroup;

  @JsonPropertyDescription("What the kernel offers.")
  private KernelStatus kernel;

  @JsonPropertyDescription("Whole disks and what enforces io weights on each.")
  @Size(max = MAX_DEVICES)
  private List<DeviceStatus> devices;

  @JsonPropertyDescription(
      "How many whole disks of the node are not listed in devices because the list holds at"
          + " most 256 (the first by name are kept); absent when every disk is listed.")
  @Min(1)
  private Integer devicesOmitted;

  @JsonPropertyDescription("Pod counts and the first failures.")
  private PodCounts pods;

  @JsonPropertyDescription(
      "Per IoPolicy governing or tied on pods of this node: pod counts and conflicts, sorted by"
          + " name, at most 256. The aggregate controller folds these into IoPolicy status.")
  @Size(max = MAX_POLICIES)
  private List<PolicyPodCounts> policies;

  @JsonPropertyDescription(
      "Pods whose policy targets their own volumes (devices: podVolumes): the disks each one's"
          + " tier is written to and each volume's resolution, sorted by namespace and name, at"
          + " most 256; absent when no pod is targeted by volume.")
  @Size(max = MAX_POD_DISKS)
  private List<PodDisks> podDisks;

  @JsonPropertyDescription(
      "How many pods targeted by volume are not listed in podDisks because it holds at most 256;"
          + " absent when every one is listed.")
  @Min(1)
  private Integer podDisksOmitted;

  @Size(max = MAX_CONDITIONS)
  private List<Condition> conditions;

  public CgroupStatus getCgroup() {
    return cgroup;
  }

  public void setCgroup(CgroupStatus cgroup) {
    this.cgroup = cgroup;
  }

  public KernelStatus getKernel() {
    return kernel;
  }

  public void setKernel(KernelStatus kernel) {
    this.kernel = kernel;
  }

  public List<DeviceStatus> getDevices() {
    return devices;
  }

  public void setDevices(List<DeviceStatus> devices) {
    this.devices = devices;
  }

  public Integer getDevicesOmitted() {
    return devicesOmitted;
  }

  public void setDevicesOmitted(Integer devicesOmitted) {
    this.devicesOmitted = devicesOmitted;
  }

  public PodCounts getPods() {
    return pods;
  }

  public void setPods(PodCounts pods) {
    this.pods = pods;
  }

  public List<PolicyPodCounts> getPolicies() {
    return policies;
  }

  public void setPolicies(List<PolicyPodCounts> policies) {
    this.policies = policies;
  }

  public List<PodDisks> getPodDisks() {
    return podDisks;
  }

  public void setPodDisks(List<PodDisks> podDisks) {
    this.podDisks = podDisks;
  }

  public Integer getPodDisksOmitted() {
    return podDisksOmitted;
  }

  public void setPodDisksOmitted(Integer podDisksOmitted) {
    this.podDisksOmitted = podDisksOmitted;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }
}
