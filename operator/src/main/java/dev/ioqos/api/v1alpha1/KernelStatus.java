package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;

/** What the node's kernel offers: {@code {release: 6.12.118, psi: true, ioLatency: false}}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KernelStatus {
  @JsonPropertyDescription("uname -r.")
  @Size(max = 256)
  private String release;

  @JsonPropertyDescription("Pressure stall information (io.pressure) is available.")
  private Boolean psi;

  @JsonPropertyDescription("io.latency is available; without it latency targets are skipped.")
  private Boolean ioLatency;

  @JsonPropertyDescription(
      "iocost is built in (the root cgroup has io.cost.qos); per-disk state is in devices.")
  private Boolean iocost;

  public String getRelease() {
    return release;
  }

  public void setRelease(String release) {
    this.release = release;
  }

  public Boolean getPsi() {
    return psi;
  }

  public void setPsi(Boolean psi) {
    this.psi = psi;
  }

  public Boolean getIoLatency() {
    return ioLatency;
  }

  public void setIoLatency(Boolean ioLatency) {
    this.ioLatency = ioLatency;
  }

  public Boolean getIocost() {
    return iocost;
  }

  public void setIocost(Boolean iocost) {
    this.iocost = iocost;
  }
}
