package dev.ioqos.e2e;

/** The kernel-in-the-loop checks of {@link KernelIT} on Debian's Linux 6.1. */
class Kernel61IT extends KernelIT {
  @Override
  String series() {
    return "6.1";
  }
}
