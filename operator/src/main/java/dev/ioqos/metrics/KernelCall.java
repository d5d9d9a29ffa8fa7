package dev.ioqos.metrics;

import dev.ioqos.cgroup.CgroupIoException;

/** A piece of work that touches cgroup files and may be refused by the kernel. */
@FunctionalInterface
public interface KernelCall<T> {
  T call() throws CgroupIoException;
}
