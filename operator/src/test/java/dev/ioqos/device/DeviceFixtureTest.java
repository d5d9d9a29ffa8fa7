package dev.ioqos.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The generated trees must have the links a real kernel makes, or the resolver tests prove little.
 */
class DeviceFixtureTest {

  @TempDir Path work;

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          virtio-vm | dev/block/254:0                   | ../../devices/pci0000:00/0000:00:04.0/virtio2/block/vda
          virtio-vm | block/vda                         | ../devices/pci0000:00/0000:00:04.0/virtio2/block/vda
          virtio-vm | class/block/vdb1                  | ../../devices/pci0000:00/0000:00:05.0/virtio3/block/vdb/vdb1
          virtio-vm | dev/block/7:0                     | ../../devices/virtual/block/loop0
          nvme      | class/block/nvme0n1p2             | ../../devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1/nvme0n1p2
          lvm       | devices/virtual/block/dm-0/slaves/sda2 | ../../../../pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda2
          lvm       | devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda2/holders/dm-0 | ../../../../../../../../../../virtual/block/dm-0
          md-raid   | devices/virtual/block/dm-0/slaves/md1 | ../../md1
          """)
  void sysfsLinksLookLikeTheKernels(String scenario, String link, String target) throws Exception {
    DeviceFixture fixture = DeviceFixture.build(scenario, work);

    assertThat(Files.readSymbolicLink(fixture.sysfs().resolve(link))).isEqualTo(Path.of(target));
  }

  @Test
  void devicesCarryTheirFiles() throws Exception {
    DeviceFixture fixture = DeviceFixture.build("md-raid", work);
    Path sys = fixture.sysfs();

    assertThat(Files.readString(sys.resolve("class/block/sdb1/dev"))).isEqualTo("8:17\n");
    assertThat(Files.readString(sys.resolve("class/block/sdb1/partition"))).isEqualTo("1\n");
    assertThat(Files.readString(sys.resolve("block/md0/md/level"))).isEqualTo("raid1\n");
    assertThat(Files.readString(sys.resolve("block/dm-0/dm/name"))).isEqualTo("md1_crypt\n");
    assertThat(sys.resolve("block/sdb1")).doesNotExist();
    assertThat(Files.readSymbolicLink(fixture.devfs().resolve("mapper/md1_crypt")))
        .isEqualTo(Path.of("../dm-0"));
  }
}
