package dev.ioqos.device;

import static dev.ioqos.device.DiskResolverPathTest.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DiskResolverNameTest {

  @TempDir static Path work;
  private static final Map<String, DiskResolver> RESOLVERS = new HashMap<>();

  static DiskResolver resolver(String scenario) {
    return RESOLVERS.computeIfAbsent(
        scenario, s -> DeviceFixture.build(s, work.resolve(s)).resolver());
  }

  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          virtio-vm   | /dev/vda                                               | 254:0 vda
          virtio-vm   | /dev/vdb1                                              | 254:16 vdb
          virtio-vm   | /dev/loop0                                             | 7:0 loop0
          virtio-vm   | /dev/disk/by-path/virtio-pci-0000:00:05.0-part2        | 254:16 vdb
          virtio-vm   | /dev/disk/by-uuid/0e5c3b7a-91d2-4f0c-8a8e-5d2f7c1b9e40 | 254:0 vda
          virtio-vm   | /dev/disk/by-path/../by-uuid/./0e5c3b7a-91d2-4f0c-8a8e-5d2f7c1b9e40 | 254:0 vda
          nvme        | /dev/nvme0n1                                           | 259:0 nvme0n1
          nvme        | /dev/nvme0n1p2                                         | 259:0 nvme0n1
          nvme        | /dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A-part1 | 259:0 nvme0n1
          nvme        | /dev/disk/by-path/pci-0000:3d:00.0-nvme-1              | 259:0 nvme0n1
          nvme        | /dev/disk/by-uuid/6f1c2a9e-0b7d-4a4e-9a51-3c2f1b0d9e77 | 259:0 nvme0n1
          nvme        | /dev/disk/by-label/rootfs                              | 259:0 nvme0n1
          nvme        | /dev/disk/by-partlabel/EFI\\x20System\\x20Partition    | 259:0 nvme0n1
          nvme        | /dev/disk/by-id/*SSD*                                  | 259:0 nvme0n1
          nvme        | /dev/disk/by-id/nvme-*                                 | 259:0 nvme0n1, 259:3 nvme1n1
          nvme        | /dev/disk/by-id/nvme-WDC_*                             | 259:3 nvme1n1
          nvme        | /dev/nvme?n1                                           | 259:0 nvme0n1, 259:3 nvme1n1
          nvme        | /dev/nvme*                                             | 259:0 nvme0n1, 259:3 nvme1n1
          nvme        | /dev/nvme[01]n1p*                                      | 259:0 nvme0n1
          lvm         | /dev/mapper/vg0-root                                   | 8:0 sda
          lvm         | /dev/vg0/root                                          | 8:0 sda
          lvm         | /dev/dm-1                                              | 8:0 sda
          lvm         | /dev/disk/by-id/dm-name-vg0-root                       | 8:0 sda
          lvm         | /dev/sda2                                              | 8:0 sda
          luks-on-lvm | /dev/mapper/luks-2f1d3c5e-7a1b-4c8e-9f0a-6b5d4e3c2a10  | 8:0 sda
          luks-on-lvm | /dev/mapper/vg1-data                                   | 8:0 sda
          luks-on-lvm | /dev/dm-1                                              | 8:0 sda
          md-raid     | /dev/md0                                               | 8:16 sdb, 8:32 sdc
          md-raid     | /dev/md127p1                                           | 8:48 sdd, 8:64 sde
          md-raid     | /dev/md/srv                                            | 8:48 sdd, 8:64 sde
          md-raid     | /dev/mapper/md1_crypt                                  | 8:16 sdb, 8:32 sdc
          md-raid     | /dev/md*                                               | 8:16 sdb, 8:32 sdc, 8:48 sdd, 8:64 sde
          md-raid     | /dev/sd[bc]1                                           | 8:16 sdb, 8:32 sdc
          btrfs       | /dev/disk/by-uuid/5b0a7e2c-3f1d-4c9e-8a6b-1d2e3f4a5b6c | 8:48 sdd
          """)
  void resolvesADeviceNameToItsWholeDisks(String scenario, String name, String disks)
      throws Exception {
    assertThat(lines(resolver(scenario).forDeviceName(name))).containsExactly(disks.split(", "));
  }

  @Test
  void anUnknownKernelNameIsNoSuchDevice() {
    DeviceFixture fixture = DeviceFixture.build("nvme", work.resolve("nvme-unknown"));

    assertThatThrownBy(() -> fixture.resolver().forDeviceName("/dev/sdz"))
        .isInstanceOfSatisfying(
            NoSuchDeviceException.class, e -> assertThat(e.input()).isEqualTo("/dev/sdz"))
        .hasMessage(
            "/dev/sdz names no block device: there is no "
                + fixture.sysfs().resolve("class/block/sdz"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          nvme             | /dev/nvme0                    | /dev/nvme0 names no block device
          nvme             | /dev/disk/by-id/nvme-missing  | /dev/disk/by-id/nvme-missing names no block device
          virtio-vm        | /dev/zero                     | /dev/zero names no block device
          lvm              | /dev/mapper/control           | /dev/mapper/control names no block device
          lvm              | /dev/mapper/vg0-missing       | /dev/mapper/vg0-missing names no block device
          nvme             | /dev/disk/by-id/*HDD*         | /dev/disk/by-id/*HDD* matches nothing in /dev/disk/by-id
          nvme             | /dev/disk/by-nothing/*        | /dev/disk/by-nothing/* matches nothing in /dev/disk/by-nothing
          nvme             | /dev/nvme?                    | /dev/nvme? matches /dev/nvme0, /dev/nvme1, none of which is a block device
          mount-edge-cases | /dev/escape                   | /dev/escape leads out of /dev through a symlink
          mount-edge-cases | /dev/outside                  | /dev/outside is a symlink to /etc/passwd, which is outside /dev
          """)
  void aNameThatIsNoBlockDeviceIsNoSuchDevice(String scenario, String name, String message) {
    assertThatThrownBy(() -> resolver(scenario).forDeviceName(name))
        .isInstanceOfSatisfying(
            NoSuchDeviceException.class, e -> assertThat(e.input()).isEqualTo(name))
        .hasMessageStartingWith(message);
  }

  @Test
  void aMapperNameWithoutLinkSaysWhereItLooked() {
    DeviceFixture fixture = DeviceFixture.build("luks-on-lvm", work.resolve("luks-missing"));

    assertThatThrownBy(() -> fixture.resolver().forDeviceName("/dev/mapper/vg1-gone"))
        .isInstanceOf(NoSuchDeviceException.class)
        .hasMessage(
            "/dev/mapper/vg1-gone names no block device: no "
                + fixture.sysfs().resolve("block/*/dm/name")
                + " reads vg1-gone");
  }

  @Test
  void aLinkToAMissingNodeSaysWhereItLeads() {
    DeviceFixture fixture = DeviceFixture.build("nvme", work.resolve("nvme-dangling"));

    assertThatThrownBy(() -> fixture.resolver().forDeviceName("/dev/disk/by-label/rootfs/x"))
        .isInstanceOf(NoSuchDeviceException.class)
        .hasMessageContaining("(it leads to /dev/nvme0n1p2/x)");
  }

  @Test
  void aSymlinkLoopUnderDevfsIsADeviceTreeError() {
    assertThatThrownBy(() -> resolver("mount-edge-cases").forDeviceName("/dev/loop-a"))
        .isInstanceOf(DeviceTreeException.class)
        .hasMessageStartingWith("/dev/loop-a goes through more than 40 symlinks under ");
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          sda                   | 'sda' is not a device path such as /dev/sda
          ''                    | '' is not a device path such as /dev/sda
          /etc/passwd           | /etc/passwd is not a device path under /dev such as /dev/sda
          /dev                  | /dev is not a device path under /dev such as /dev/sda
          /dev/../etc/shadow    | /dev/../etc/shadow is not a device path under /dev such as /dev/sda
          /dev/disk/*/nvme0n1   | /dev/disk/*/nvme0n1 has a glob outside its last component, which is not supported
          /dev/nvme[0           | /dev/nvme[0 is not a valid glob
          """)
  void malformedNamesAreInvalidInput(String name, String message) {
    assertThatThrownBy(() -> resolver("nvme").forDeviceName(name))
        .isInstanceOfSatisfying(
            InvalidDeviceInputException.class, e -> assertThat(e.input()).isEqualTo(name))
        .hasMessageStartingWith(message);
  }
}
