package dev.ioqos.node;

import dev.ioqos.core.CgroupDriver;
import java.nio.file.Path;
import java.util.Optional;

/** Where this node's host trees are mounted and how kubelet lays out pod cgroups. */
public record NodeConfig(
    Path cgroupfs,
    Path sysfs,
    Path procfs,
    Path devfs,
    Optional<CgroupDriver> cgroupDriver,
    String kubeletCgroupRoot,
    String kubeletRootDir) {}
