package dev.ioqos.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.DeviceId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IocostSwitchTest {
  static final DeviceId VDA = new DeviceId(254, 0);

  /** What 6.12 prints after {@code echo "254:0 enable=1" > io.cost.qos}. */
  static final String ENABLED =
      "254:0 enable=1 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00 max=10000.00\n";

  @TempDir Path mount;

  @Test
  void writesTheEnableLineAndChecksIt() throws Exception {
    Files.writeString(mount.resolve("io.cost.qos"), "");

    new IocostSwitch(new CgroupFiles(), mount).enable(VDA);

    assertThat(Files.readString(mount.resolve("io.cost.qos"))).isEqualTo("254:0 enable=1\n");
  }

  @Test
  void anEnabledDiskIsLeftAlone() throws Exception {
    Files.writeString(mount.resolve("io.cost.qos"), ENABLED);

    new IocostSwitch(new CgroupFiles(), mount).enable(VDA);

    assertThat(Files.readString(mount.resolve("io.cost.qos"))).isEqualTo(ENABLED);
  }

  @Test
  void aKernelThatKeepsItOffIsAMismatch() throws Exception {
    Files.writeString(mount.resolve("io.cost.qos"), ENABLED.replace("enable=1", "enable=0"));
    CgroupFiles ignoring =
        new CgroupFiles() {
          @Override
          void writePath(Path path, List<String> lines) {}
        };

    assertThatThrownBy(() -> new IocostSwitch(ignoring, mount).enable(VDA))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.READBACK_MISMATCH));
  }

  @Test
  void aKernelWithoutIocostHasNoFile() {
    assertThatThrownBy(() -> new IocostSwitch(new CgroupFiles(), mount).enable(VDA))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.FILE_MISSING));
  }
}
