package dev.ioqos.e2e;

import java.util.Locale;

/**
 * The real node with kubelet's systemd driver (kubeadm's default), systemd 252 as PID 1 in the
 * guest: pods in slices, {@code
 * /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid_>.slice}.
 */
class RealNodeSystemdIT extends RealNodeIT {
  @Override
  String driver() {
    return "systemd";
  }

  @Override
  String podCgroup(String qosClass, String uid) {
    String escaped = uid.replace('-', '_');
    return switch (qosClass) {
      case "Guaranteed" -> "/kubepods.slice/kubepods-pod" + escaped + ".slice";
      default -> {
        String qos = qosClass.toLowerCase(Locale.ROOT);
        yield "/kubepods.slice/kubepods-"
            + qos
            + ".slice/kubepods-"
            + qos
            + "-pod"
            + escaped
            + ".slice";
      }
    };
  }
}
