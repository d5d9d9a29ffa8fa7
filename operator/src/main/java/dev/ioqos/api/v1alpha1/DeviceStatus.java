package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;

/** One whole disk on the node and what enforces io weights on it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DeviceStatus {
  /** {@link #getIocost()} when iocost is enabled on the disk. */
  public static final String IOCOST_ENABLED = "enabled";

  /** {@link #getIocost()} when iocost is off for the disk. */
  public static final String IOCOST_DISABLED = "disabled";

  @JsonPropertyDescription("Kernel name, e.g. vda, nvme0n1.")
  @Size(max = 256)
  private String name;

  @JsonPropertyDescription("MAJ:MIN, e.g. 254:0.")
  @Size(max = 32)
  private String majMin;

  @JsonPropertyDescription("Active I/O scheduler, e.g. none, mq-deadline, bfq.")
  @Size(max = 64)
  private String scheduler;

  private Boolean rotational;

  @JsonPropertyDescription("enabled or disabled (io.cost.qos enable= for this disk).")
  @Size(max = 16)
  private String iocost;

  @JsonPropertyDescription(
      "What enforces io weights here: iocost, bfq, or none (weights not enforced).")
  private WeightMechanism weightMechanism;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getMajMin() {
    return majMin;
  }

  public void setMajMin(String majMin) {
    this.majMin = majMin;
  }

  public String getScheduler() {
    return scheduler;
  }

  public void setScheduler(String scheduler) {
    this.scheduler = scheduler;
  }

  public Boolean getRotational() {
    return rotational;
  }

  public void setRotational(Boolean rotational) {
    this.rotational = rotational;
  }

  public String getIocost() {
    return iocost;
  }

  public void setIocost(String iocost) {
    this.iocost = iocost;
  }

  public WeightMechanism getWeightMechanism() {
    return weightMechanism;
  }

  public void setWeightMechanism(WeightMechanism weightMechanism) {
    this.weightMechanism = weightMechanism;
  }

  /** What enforces io weights on a disk, as reported in IoNodeState. */
  public enum WeightMechanism {
    @JsonProperty("iocost")
    IOCOST,
    @JsonProperty("bfq")
    BFQ,
    @JsonProperty("none")
    NONE
  }
}
