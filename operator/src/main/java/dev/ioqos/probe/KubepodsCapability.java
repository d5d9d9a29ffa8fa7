package dev.ioqos.probe;

import dev.ioqos.core.CgroupDriver;

/**
 * The kubepods cgroup found on this node and whether {@code io} is delegated down to it (enabled in
 * {@code cgroup.subtree_control} of every cgroup from the root to kubepods and its QoS slices).
 */
public record KubepodsCapability(CgroupDriver driver, String path, boolean ioEnabled) {}
