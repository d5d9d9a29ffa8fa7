package dev.ioqos.cgroup;

import dev.ioqos.core.DeviceId;
import java.nio.file.Path;
import java.util.List;

/**
 * Turns the iocost controller on for a disk by writing {@code MAJ:MIN enable=1} to the root
 * cgroup's io.cost.qos, then reads it back. This changes how the whole node shares that disk, so it
 * is only ever called when the admin opted in (a node-level setting, off by default).
 */
public final class IocostSwitch {
  private final CgroupFiles files;
  private final Path cgroupMount;

  public IocostSwitch(CgroupFiles files, Path cgroupMount) {
    this.files = files;
    this.cgroupMount = cgroupMount;
  }

  /** Enables iocost on the disk; a no-op when it already is. */
  public void enable(DeviceId disk) throws CgroupIoException {
    Path qos = cgroupMount.resolve(IoFile.IO_COST_QOS.fileName());
    if (enabled(files.readPath(qos), disk)) {
      return;
    }
    String line = disk + " enable=1";
    files.writePath(qos, List.of(line));
    String readBack = files.readPath(qos);
    if (!enabled(readBack, disk)) {
      throw new CgroupIoException(
          CgroupFailure.READBACK_MISMATCH, qos, line, "read back '" + readBack.strip() + "'");
    }
  }

  /** True when io.cost.qos has a line for the disk with {@code enable=1}. */
  static boolean enabled(String ioCostQos, DeviceId disk) {
    for (String line : ioCostQos.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length > 1 && fields[0].equals(disk.toString())) {
        for (String field : fields) {
          if (field.equals("enable=1")) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
