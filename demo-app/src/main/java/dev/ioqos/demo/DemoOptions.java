package dev.ioqos.demo;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What {@code ioqos demo} is told. The host roots (cgroupfs, sysfs, procfs, devfs) and the host
 * directory whose disk the policy targets matter only with {@code realCgroups}.
 */
public record DemoOptions(
    Path binaries,
    boolean realCgroups,
    Path cgroupfs,
    Path sysfs,
    Path procfs,
    Path devfs,
    String hostKubeletRootDir,
    Path tempParent) {

  public DemoOptions {
    Objects.requireNonNull(binaries, "binaries");
    Objects.requireNonNull(cgroupfs, "cgroupfs");
    Objects.requireNonNull(sysfs, "sysfs");
    Objects.requireNonNull(procfs, "procfs");
    Objects.requireNonNull(devfs, "devfs");
    Objects.requireNonNull(hostKubeletRootDir, "hostKubeletRootDir");
    Objects.requireNonNull(tempParent, "tempParent");
  }
}
