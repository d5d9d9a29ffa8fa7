package dev.ioqos.e2e;

import java.util.Locale;

/** The real node with kubelet's cgroupfs driver: pods under /kubepods[/burstable|/besteffort]. */
class RealNodeCgroupfsIT extends RealNodeIT {
  @Override
  String driver() {
    return "cgroupfs";
  }

  @Override
  String podCgroup(String qosClass, String uid) {
    return switch (qosClass) {
      case "Guaranteed" -> "/kubepods/pod" + uid;
      default -> "/kubepods/" + qosClass.toLowerCase(Locale.ROOT) + "/pod" + uid;
    };
  }
}
