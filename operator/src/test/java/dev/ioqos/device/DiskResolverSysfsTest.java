package dev.ioqos.device;

import static dev.ioqos.device.DiskResolverPathTest.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.DeviceId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DiskResolverSysfsTest {

  @TempDir Path work;

  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          virtio-vm   | 254:0   | 254:0 vda
          virtio-vm   | 254:17  | 254:16 vdb
          virtio-vm   | 7:0     | 7:0 loop0
          nvme        | 259:2   | 259:0 nvme0n1
          lvm         | 253:0   | 8:0 sda
          luks-on-lvm | 253:1   | 8:0 sda
          md-raid     | 9:1     | 8:16 sdb, 8:32 sdc
          md-raid     | 253:0   | 8:16 sdb, 8:32 sdc
          md-raid     | 9:127   | 8:48 sdd, 8:64 sde
          md-raid     | 259:0   | 8:48 sdd, 8:64 sde
          """)
  void resolvesADeviceNumberToItsWholeDisks(String scenario, String device, String disks)
      throws Exception {
    DiskResolver resolver = DeviceFixture.build(scenario, work).resolver();

    assertThat(lines(resolver.forDevice(DeviceId.parse(device))))
        .containsExactly(disks.split(", "));
  }

  @Test
  void anUnknownDeviceNumberIsNoSuchDevice() {
    DeviceFixture fixture = DeviceFixture.build("nvme", work);

    assertThatThrownBy(() -> fixture.resolver().forDevice(new DeviceId(259, 9)))
        .isInstanceOfSatisfying(
            NoSuchDeviceException.class, e -> assertThat(e.input()).isEqualTo("259:9"))
        .hasMessage(
            "block device 259:9 is not in sysfs (neither "
                + fixture.sysfs().resolve("dev/block/259:9")
                + " nor a dev file under "
                + fixture.sysfs().resolve("class/block")
                + ")");
  }

  @Test
  void withoutSysDevBlockTheClassDirectoryIsScanned() throws Exception {
    DeviceFixture fixture = DeviceFixture.build("md-raid", work);
    deleteTree(fixture.sysfs().resolve("dev"));
    DiskResolver resolver = fixture.resolver();

    assertThat(lines(resolver.forPath("/var/lib/kubelet"))).containsExactly("8:16 sdb", "8:32 sdc");
    assertThat(lines(resolver.forDevice(new DeviceId(8, 1)))).containsExactly("8:0 sda");
    assertThatThrownBy(() -> resolver.forDevice(new DeviceId(8, 99)))
        .isInstanceOf(NoSuchDeviceException.class);
  }

  @Test
  void aTreeWithOnlySysBlockStillResolvesPartitions() throws Exception {
    // Kernels with CONFIG_SYSFS_DEPRECATED, and hand-made trees, have no class/block or dev/block:
    // only block/<disk>/<partition> as real directories.
    Path sys = work.resolve("sys");
    Path vdb1 = Files.createDirectories(sys.resolve("block/vdb/vdb1"));
    Files.writeString(sys.resolve("block/vdb/dev"), "254:16\n");
    Files.writeString(vdb1.resolve("dev"), "254:17\n");
    Files.writeString(vdb1.resolve("partition"), "1\n");
    DiskResolver resolver =
        new DiskResolver(
            DeviceFixture.resourceDir("virtio-vm").resolve("proc"), sys, work.resolve("dev"));

    assertThat(lines(resolver.forPath("/var/lib/kubelet"))).containsExactly("254:16 vdb");
    assertThat(lines(resolver.forDeviceName("/dev/vdb1"))).containsExactly("254:16 vdb");
  }

  @Test
  void aSlavesCycleIsADeviceTreeError() throws Exception {
    DeviceFixture fixture = DeviceFixture.build("lvm", work);
    Path dm0 = fixture.sysfs().resolve("devices/virtual/block/dm-0");
    Files.createSymbolicLink(dm0.resolve("slaves/dm-0"), Path.of("../../dm-0"));
    Path realDm0 = dm0.toRealPath();

    assertThatThrownBy(() -> fixture.resolver().forDeviceName("/dev/mapper/vg0-root"))
        .isInstanceOfSatisfying(
            DeviceTreeException.class, e -> assertThat(e.file()).isEqualTo(realDm0))
        .hasMessageContaining("loops or is more than 40 devices deep");
  }

  @Test
  void aCopyOfSysfsThatFollowedSymlinksNamesDisksRightOrFailsClearly() throws Exception {
    // A copy that follows symlinks (Maven's resource copying does) turns every class/block and
    // dev/block link into a plain directory named after the link.
    DeviceFixture fixture = DeviceFixture.build("virtio-vm", work);
    Path sys = fixture.sysfs();
    flatten(sys.resolve("dev/block/254:0"), "254:0", null);
    flatten(sys.resolve("dev/block/254:17"), "254:17", "1");
    Path vdb1 = flatten(sys.resolve("class/block/vdb1"), "254:17", "1");
    DiskResolver resolver = fixture.resolver();

    assertThat(lines(resolver.forDevice(new DeviceId(254, 0)))).containsExactly("254:0 vda");
    assertThatThrownBy(() -> resolver.forDevice(new DeviceId(254, 17)))
        .isInstanceOfSatisfying(
            DeviceTreeException.class, e -> assertThat(e.file()).isEqualTo(vdb1))
        .hasMessage(
            "the partition "
                + vdb1
                + " does not sit inside its disk's sysfs directory, so its disk is unknown");
  }

  private static Path flatten(Path link, String majMin, String partition) throws IOException {
    Files.delete(link);
    Files.createDirectories(link);
    Files.writeString(link.resolve("dev"), majMin + "\n");
    if (partition != null) {
      Files.writeString(link.resolve("partition"), partition + "\n");
    }
    return link.toRealPath();
  }

  @Test
  void aGarbledDevFileIsADeviceTreeErrorNamingTheFile() throws Exception {
    DeviceFixture fixture = DeviceFixture.build("virtio-vm", work);
    Path dev = fixture.sysfs().resolve("block/vdb/dev");
    Files.writeString(dev, "vdb\n");

    assertThatThrownBy(() -> fixture.resolver().forPath("/var/lib/kubelet"))
        .isInstanceOfSatisfying(
            DeviceTreeException.class, e -> assertThat(e.file()).endsWith(Path.of("vdb/dev")))
        .hasMessageEndingWith("/vdb/dev holds 'vdb', not a MAJ:MIN device number");
  }

  @Test
  void aGarbledMountTableFileNamesItsLine() throws Exception {
    DeviceFixture fixture = DeviceFixture.build("virtio-vm", work);
    Path proc = work.resolve("proc");
    Files.createDirectories(proc.resolve("1"));
    Files.writeString(
        proc.resolve("1/mountinfo"),
        "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n23 22 0:21 / /proc rw\n");
    DiskResolver resolver = new DiskResolver(proc, fixture.sysfs(), fixture.devfs());

    assertThatThrownBy(() -> resolver.forPath("/var/lib/kubelet"))
        .isInstanceOfSatisfying(
            MountTableException.class, e -> assertThat(e.lineNumber()).hasValue(2))
        .hasMessageStartingWith("line 2 of " + proc.resolve("1/mountinfo") + " has no ' - '");
  }

  @Test
  void disksSortByNumberThenName() {
    List<Disk> disks =
        Stream.of(
                new Disk(new DeviceId(259, 0), "nvme0n1"),
                new Disk(new DeviceId(8, 16), "sdb"),
                new Disk(new DeviceId(8, 0), "sda"))
            .sorted()
            .toList();

    assertThat(lines(disks)).containsExactly("8:0 sda", "8:16 sdb", "259:0 nvme0n1");
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
