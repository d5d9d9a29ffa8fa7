package dev.ioqos.e2e;

/** The kernel-in-the-loop checks of {@link KernelIT} on Debian's Linux 6.12. */
class Kernel612IT extends KernelIT {
  @Override
  String series() {
    return "6.12";
  }
}
