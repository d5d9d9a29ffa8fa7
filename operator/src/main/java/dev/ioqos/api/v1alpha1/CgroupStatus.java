package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;

/** The node's cgroup setup: {@code {version: v2, driver: systemd, kubepodsPath, ...}}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CgroupStatus {
  @JsonPropertyDescription("v2, hybrid, v1 or unknown.")
  @Size(max = 16)
  private String version;

  @JsonPropertyDescription("systemd or cgroupfs.")
  @Size(max = 16)
  private String driver;

  @JsonPropertyDescription("The kubepods cgroup, relative to the cgroup root.")
  @Size(max = 4096)
  private String kubepodsPath;

  @JsonPropertyDescription("Whether the io controller is enabled for the kubepods subtree.")
  private Boolean ioControllerEnabled;

  public String getVersion() {
    return version;
  }

  public void setVersion(String version) {
    this.version = version;
  }

  public String getDriver() {
    return driver;
  }

  public void setDriver(String driver) {
    this.driver = driver;
  }

  public String getKubepodsPath() {
    return kubepodsPath;
  }

  public void setKubepodsPath(String kubepodsPath) {
    this.kubepodsPath = kubepodsPath;
  }

  public Boolean getIoControllerEnabled() {
    return ioControllerEnabled;
  }

  public void setIoControllerEnabled(Boolean ioControllerEnabled) {
    this.ioControllerEnabled = ioControllerEnabled;
  }
}
