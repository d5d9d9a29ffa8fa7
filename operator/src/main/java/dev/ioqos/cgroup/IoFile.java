package dev.ioqos.cgroup;

/** The cgroup v2 io controller files ioqos reads or writes. */
public enum IoFile {
  IO_MAX("io.max"),
  IO_WEIGHT("io.weight"),
  IO_BFQ_WEIGHT("io.bfq.weight"),
  IO_LATENCY("io.latency"),
  IO_STAT("io.stat"),
  IO_PRESSURE("io.pressure"),
  /** Only in the root cgroup; turning iocost on changes the whole node. */
  IO_COST_QOS("io.cost.qos");

  private final String fileName;

  IoFile(String fileName) {
    this.fileName = fileName;
  }

  public String fileName() {
    return fileName;
  }

  @Override
  public String toString() {
    return fileName;
  }
}
