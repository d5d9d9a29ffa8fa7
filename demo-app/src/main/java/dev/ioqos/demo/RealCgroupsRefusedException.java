package dev.ioqos.demo;

/** {@code --real-cgroups} on a host whose cgroup tree ioqos cannot use; nothing was started. */
public final class RealCgroupsRefusedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public RealCgroupsRefusedException(String message) {
    super(message);
  }
}
