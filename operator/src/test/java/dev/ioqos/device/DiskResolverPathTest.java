package dev.ioqos.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DiskResolverPathTest {

  private static final String ROOTFS_ON_DISK =
      "/run/containerd/io.containerd.runtime.v2.task/k8s.io/"
          + "4b1c6a0e2f9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa01/rootfs";
  private static final String ROOTFS_ON_TMPFS =
      "/run/containerd/io.containerd.runtime.v2.task/k8s.io/"
          + "9f7e3d21c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1/rootfs";
  private static final String PROJECTED_VOLUME =
      "/var/lib/kubelet/pods/8e0d2b4a-6c1f-4f3e-9a7b-2d5c8e1f0a93/volumes/"
          + "kubernetes.io~projected/kube-api-access-xk2v9";

  @TempDir static Path work;
  private static final Map<String, DiskResolver> RESOLVERS = new HashMap<>();

  static DiskResolver resolver(String scenario) {
    return RESOLVERS.computeIfAbsent(
        scenario, s -> DeviceFixture.build(s, work.resolve(s)).resolver());
  }

  static List<String> lines(List<Disk> disks) {
    return disks.stream().map(Disk::toString).toList();
  }

  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          virtio-vm        | /                                          | 254:0 vda
          virtio-vm        | /etc/kubernetes/kubelet.conf               | 254:0 vda
          virtio-vm        | /var/lib/kubelet                           | 254:16 vdb
          virtio-vm        | /var/lib/kubelet/pods/x/volumes/empty-dir  | 254:16 vdb
          virtio-vm        | /var/lib/containerd                        | 254:16 vdb
          virtio-vm        | /var/lib/kubelet-plugins                   | 254:0 vda
          virtio-vm        | /home/user/../../var/lib/kubelet/x         | 254:16 vdb
          virtio-vm        | /snap/core20/2015/usr/bin/snap             | 7:0 loop0
          nvme             | /                                          | 259:0 nvme0n1
          nvme             | /boot/efi/EFI/debian                       | 259:0 nvme0n1
          nvme             | /var/lib/containerd                        | 259:3 nvme1n1
          lvm              | /etc/hosts                                 | 8:0 sda
          lvm              | /boot/grub                                 | 8:0 sda
          luks-on-lvm      | /var/lib/kubelet/pods                      | 8:0 sda
          md-raid          | /                                          | 8:0 sda
          md-raid          | /var/lib/etcd/member/snap                  | 8:16 sdb, 8:32 sdc
          md-raid          | /var/lib/kubelet                           | 8:16 sdb, 8:32 sdc
          md-raid          | /srv/www                                   | 8:48 sdd, 8:64 sde
          btrfs            | /data/photos                               | 8:48 sdd
          btrfs            | /var/lib/containerd/snapshots              | 8:48 sdd
          btrfs            | /srv/backups                               | 8:16 sdb
          btrfs            | /                                          | 8:0 sda
          mount-edge-cases | /var/lib/kubelet/pods                      | 254:32 vdc
          mount-edge-cases | /var/lib/containerd                        | 254:16 vdb
          mount-edge-cases | /var/lib2/data                             | 254:0 vda
          mount-edge-cases | /mnt/backup disk/2024                      | 254:48 vdd
          mount-edge-cases | /mnt/backup                                | 254:0 vda
          mount-edge-cases | /mnt/back\\slash/x                          | 254:48 vdd
          mount-edge-cases | /srv/odd,dir                               | 254:48 vdd
          mount-edge-cases | /srv                                       | 254:32 vdc
          mount-edge-cases | /merged/etc                                | 254:48 vdd
          """)
  void resolvesAHostPathToItsWholeDisks(String scenario, String path, String disks)
      throws Exception {
    assertThat(lines(resolver(scenario).forPath(path))).containsExactly(disks.split(", "));
  }

  @Test
  void escapedTabAndNewlineInAMountPointMatch() throws Exception {
    assertThat(lines(resolver("mount-edge-cases").forPath("/mnt/tab\tand\nnewline/f")))
        .containsExactly("254:48 vdd");
  }

  @Test
  void anOverlayResolvesThroughItsUpperdir() throws Exception {
    // The upperdir is on vdb2 (/var/lib/containerd); the rootfs mount itself is under /run.
    assertThat(lines(resolver("virtio-vm").forPath(ROOTFS_ON_DISK + "/var/log/app.log")))
        .containsExactly("254:16 vdb");
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          virtio-vm | /run/foo                  | tmpfs     | /run
          virtio-vm | /run                      | tmpfs     | /run
          virtio-vm | /proc/1/status            | proc      | /proc
          virtio-vm | /sys/block/vda            | sysfs     | /sys
          virtio-vm | /sys/fs/cgroup/kubepods   | cgroup2   | /sys/fs/cgroup
          virtio-vm | /dev/shm/x                | tmpfs     | /dev/shm
          virtio-vm | /dev/vda                  | devtmpfs  | /dev
          virtio-vm | /mnt/shared/data          | nfs4      | /mnt/shared
          virtio-vm | /mnt/sshfs/backups        | fuse.sshfs | /mnt/sshfs
          btrfs     | /mnt/scratch/x            | tmpfs     | /mnt/scratch
          """)
  void aPathOnAFilesystemWithoutABlockDeviceIsAnError(
      String scenario, String path, String fsType, String mountPoint) {
    assertThatThrownBy(() -> resolver(scenario).forPath(path))
        .isInstanceOfSatisfying(
            NotOnBlockDeviceException.class,
            e -> {
              assertThat(e.path()).isEqualTo(path);
              assertThat(e.fsType()).isEqualTo(fsType);
              assertThat(e.mountPoint()).isEqualTo(mountPoint);
            })
        .hasMessage(
            path
                + " is on "
                + fsType
                + " (mounted at "
                + mountPoint
                + "), which has no block device");
  }

  @Test
  void aProjectedVolumeIsTmpfsEvenUnderKubeletsDisk() {
    assertThatThrownBy(() -> resolver("virtio-vm").forPath(PROJECTED_VOLUME + "/token"))
        .isInstanceOfSatisfying(
            NotOnBlockDeviceException.class,
            e -> assertThat(e.mountPoint()).isEqualTo(PROJECTED_VOLUME));
  }

  @Test
  void anOverlayWhoseUpperdirIsOnTmpfsNamesBothMounts() {
    assertThatThrownBy(() -> resolver("virtio-vm").forPath(ROOTFS_ON_TMPFS + "/etc"))
        .isInstanceOf(NotOnBlockDeviceException.class)
        .hasMessage(
            ROOTFS_ON_TMPFS
                + "/etc is on overlay (mounted at "
                + ROOTFS_ON_TMPFS
                + ") whose upperdir /run/scratch/upper is on tmpfs (mounted at /run),"
                + " which has no block device");
  }

  @Test
  void anOverlayWithoutUpperdirHasNoDiskForWrites() {
    assertThatThrownBy(() -> resolver("virtio-vm").forPath("/opt/readonly-image/bin"))
        .isInstanceOfSatisfying(
            NotOnBlockDeviceException.class, e -> assertThat(e.fsType()).isEqualTo("overlay"))
        .hasMessageContaining("/opt/readonly-image/bin is on overlay")
        .hasMessageContaining("no upperdir");
  }

  @Test
  void anOverlayWhoseUpperdirIsInsideItselfIsAGarbledTable() {
    assertThatThrownBy(() -> resolver("mount-edge-cases").forPath("/selfish/x"))
        .isInstanceOfSatisfying(
            MountTableException.class, e -> assertThat(e.lineNumber()).hasValue(12))
        .hasMessageContaining("/selfish/upper");
  }

  @Test
  void aMountOnADeviceMissingFromSysfsIsNoSuchDevice() {
    assertThatThrownBy(() -> resolver("mount-edge-cases").forPath("/gone/x"))
        .isInstanceOfSatisfying(
            NoSuchDeviceException.class, e -> assertThat(e.input()).isEqualTo("/gone/x"))
        .hasMessage(
            "/gone/x is on ext4 (mounted at /gone) on device 254:99, which is not in sysfs");
  }

  @Test
  void aBtrfsWhoseSourceDeviceVanishedIsNoSuchDevice() {
    assertThatThrownBy(() -> resolver("btrfs").forPath("/mnt/gone/x"))
        .isInstanceOf(NoSuchDeviceException.class)
        .hasMessageStartingWith("/mnt/gone/x is on btrfs (mounted at /mnt/gone) from /dev/sdx,");
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          var/lib/kubelet
          ./x
          ''
          """)
  void aRelativePathIsInvalidInput(String path) {
    assertThatThrownBy(() -> resolver("virtio-vm").forPath(path))
        .isInstanceOfSatisfying(
            InvalidDeviceInputException.class, e -> assertThat(e.input()).isEqualTo(path))
        .hasMessage("'" + path + "' is not an absolute host path");
  }

  @Test
  void aMissingMountTableIsAMountTableError(@TempDir Path empty) {
    DiskResolver resolver =
        new DiskResolver(empty.resolve("proc"), empty.resolve("sys"), empty.resolve("dev"));

    assertThatThrownBy(() -> resolver.forPath("/var/lib/kubelet"))
        .isInstanceOf(MountTableException.class)
        .hasMessage(
            "cannot read the mount table " + empty.resolve("proc/1/mountinfo") + ": no such file");
  }
}
