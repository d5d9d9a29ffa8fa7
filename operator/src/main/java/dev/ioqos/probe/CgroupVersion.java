package dev.ioqos.probe;

import java.util.Locale;

/** How cgroups are mounted on the node. */
public enum CgroupVersion {
  /** The unified hierarchy only: what ioqos needs. */
  V2,
  /** v1 controllers plus a unified hierarchy at {@code unified/}, usually without io. */
  HYBRID,
  /** Legacy controllers only: blkio, not io. */
  V1,
  /** Nothing recognisable at the given cgroupfs path. */
  UNKNOWN;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
