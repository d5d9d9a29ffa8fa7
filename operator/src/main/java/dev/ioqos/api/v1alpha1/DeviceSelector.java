package dev.ioqos.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** One entry of {@code spec.devices}: exactly one of kubeletRoot, path, name or podVolumes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "(has(self.kubeletRoot) ? 1 : 0) + (has(self.path) ? 1 : 0) + (has(self.name) ? 1 : 0)"
            + " + (has(self.podVolumes) ? 1 : 0) == 1",
    message = "each devices entry must set exactly one of kubeletRoot, path, name or podVolumes",
    reason = "FieldValueInvalid")
public class DeviceSelector {
  @JsonPropertyDescription("The disk(s) under kubelet's root directory: write kubeletRoot: {}.")
  private KubeletRoot kubeletRoot;

  @JsonPropertyDescription("An absolute host path, resolved to the disk(s) beneath it.")
  @Size(min = 1, max = 4096)
  @ValidationRule(
      value = "self.startsWith('/')",
      messageExpression = "'path must be an absolute host path starting with /, not ' + self",
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = "!self.matches('(^|/)[.][.]?(/|$)')",
      message = "path must not contain . or .. segments",
      reason = "FieldValueInvalid")
  private String path;

  @JsonPropertyDescription(
      "A device node under /dev; globs allowed, e.g. /dev/nvme0n1, /dev/disk/by-id/*SSD*.")
  @Size(min = 1, max = 1024)
  @ValidationRule(
      value = "self.startsWith('/dev/') && size(self) > 5",
      messageExpression =
          "'name must be a device node path under /dev/ (e.g. /dev/nvme0n1), not ' + self",
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = "!self.matches('(^|/)[.][.]?(/|$)')",
      message = "name must not contain . or .. segments",
      reason = "FieldValueInvalid")
  private String name;

  @JsonPropertyDescription(
      "The disk(s) under each selected pod's own volumes (emptyDir, persistentVolumeClaim,"
          + " hostPath, CSI, raw block), resolved per pod on its node: write podVolumes: {}, or"
          + " podVolumes: {names: [data]} for some volumes only.")
  private PodVolumes podVolumes;

  /** The disk(s) under the pod's own volumes; no names means all of them. */
  public static DeviceSelector podVolumes(String... names) {
    DeviceSelector selector = new DeviceSelector();
    PodVolumes volumes = new PodVolumes();
    if (names.length > 0) {
      volumes.setNames(java.util.List.of(names));
    }
    selector.setPodVolumes(volumes);
    return selector;
  }

  public PodVolumes getPodVolumes() {
    return podVolumes;
  }

  public void setPodVolumes(PodVolumes podVolumes) {
    this.podVolumes = podVolumes;
  }

  /** The disk(s) under kubelet's root directory. */
  public static DeviceSelector kubeletRootDisks() {
    DeviceSelector selector = new DeviceSelector();
    selector.setKubeletRoot(new KubeletRoot());
    return selector;
  }

  /** The disk(s) beneath an absolute host path. */
  public static DeviceSelector hostPath(String path) {
    DeviceSelector selector = new DeviceSelector();
    selector.setPath(path);
    return selector;
  }

  /** A device node or glob under /dev. */
  public static DeviceSelector deviceName(String name) {
    DeviceSelector selector = new DeviceSelector();
    selector.setName(name);
    return selector;
  }

  public KubeletRoot getKubeletRoot() {
    return kubeletRoot;
  }

  public void setKubeletRoot(KubeletRoot kubeletRoot) {
    this.kubeletRoot = kubeletRoot;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }
}
