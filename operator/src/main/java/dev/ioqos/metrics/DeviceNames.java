package dev.ioqos.metrics;

import dev.ioqos.core.DeviceId;
import dev.ioqos.probe.DiskCapability;
import dev.ioqos.probe.NodeCapabilities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Names a device for the {@code device_name} label: the probe's disk list first, else the target of
 * sysfs's {@code dev/block/MAJ:MIN} link (a device the probe skips, e.g. a loop device), else
 * {@code unknown}. Asked once when a device's meters are created, never per scrape.
 */
public final class DeviceNames implements Function<DeviceId, String> {
  static final String UNKNOWN = "unknown";

  private final Supplier<NodeCapabilities> capabilities;
  private final Path sysfs;

  public DeviceNames(Supplier<NodeCapabilities> capabilities, Path sysfs) {
    this.capabilities = capabilities;
    this.sysfs = sysfs;
  }

  @Override
  public String apply(DeviceId device) {
    NodeCapabilities caps = capabilities.get();
    if (caps != null) {
      for (DiskCapability disk : caps.devices()) {
        if (disk.majMin().equals(device)) {
          return disk.name();
        }
      }
    }
    try {
      Path target = Files.readSymbolicLink(sysfs.resolve("dev/block/" + device));
      Path name = target.getFileName();
      return name == null ? UNKNOWN : name.toString();
    } catch (IOException | UnsupportedOperationException e) {
      return UNKNOWN;
    }
  }
}
