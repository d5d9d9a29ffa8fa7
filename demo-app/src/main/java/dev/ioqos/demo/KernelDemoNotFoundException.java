package dev.ioqos.demo;

/** {@code ioqos demo --kernel} outside the repository: there is no script to run. */
public final class KernelDemoNotFoundException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public KernelDemoNotFoundException(String message) {
    super(message);
  }
}
