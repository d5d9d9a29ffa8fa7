package dev.ioqos.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.DeviceId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MountTableTest {

  /** Real lines from Debian 12 and a containerd node, plus the corner cases around them. */
  private static final String MOUNTINFO =
      """
      22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
      23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
      28 22 0:25 / /run rw,nosuid,nodev,noexec,relatime shared:11 - tmpfs tmpfs rw,size=401340k,mode=755,inode64
      31 22 254:17 / /var/lib rw,relatime shared:20 - ext4 /dev/vdb1 rw
      40 31 254:17 /kubelet /var/lib/kubelet rw,relatime shared:30 master:7 - ext4 /dev/vdb1 rw
      41 40 254:32 / /var/lib/kubelet rw,relatime - ext4 /dev/vdc rw
      50 22 254:48 / /mnt/backup\\040disk rw,relatime shared:40 - ext4 /dev/vdd rw
      51 22 254:48 / /mnt/a\\011b\\012c\\134d rw,relatime shared:41 - ext4 /dev/vdd rw
      62 28 0:70 / /run/merged rw,relatime shared:52 - overlay overlay rw,lowerdir=/l1:/l2,upperdir=/srv/odd\\054dir/up,workdir=/srv/w
      """;

  @Test
  void parsesEveryFieldOfALine() throws Exception {
    Mount kubelet = MountTable.parse(MOUNTINFO).mounts().get(4);

    assertThat(kubelet)
        .isEqualTo(
            new Mount(
                40,
                31,
                new DeviceId(254, 17),
                "/kubelet",
                "/var/lib/kubelet",
                "ext4",
                "/dev/vdb1",
                List.of("rw"),
                5));
  }

  @Test
  void decodesOctalEscapesInMountPointsAndSuperOptions() throws Exception {
    MountTable table = MountTable.parse(MOUNTINFO);

    assertThat(table.mounts())
        .extracting(Mount::mountPoint)
        .contains("/mnt/backup disk", "/mnt/a\tb\nc\\d");
    Mount overlay = table.mounts().get(8);
    assertThat(overlay.superOption("upperdir")).contains("/srv/odd,dir/up");
    assertThat(overlay.superOption("lowerdir")).contains("/l1:/l2");
    assertThat(overlay.superOption("index")).isEmpty();
    assertThat(overlay.superOptions()).first().isEqualTo("rw");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          /                               | /
          /etc/hosts                      | /
          /var                            | /
          /var/lib                        | /var/lib
          /var/lib/                       | /var/lib
          /var/lib/containerd/x           | /var/lib
          /var/lib2/data                  | /
          /var/libfoo                     | /
          /var/lib/kubelet/pods           | /var/lib/kubelet
          //var///lib/./kubelet/          | /var/lib/kubelet
          /var/lib/kubelet/../containerd  | /var/lib
          /../../var/lib                  | /var/lib
          /mnt/backup disk/2024           | /mnt/backup disk
          /mnt/backup                     | /
          /run/merged/etc                 | /run/merged
          /run/mergedx                    | /run
          """)
  void findsTheLongestMountPointByWholeComponents(String path, String mountPoint) throws Exception {
    assertThat(MountTable.parse(MOUNTINFO).mountFor(path))
        .map(Mount::mountPoint)
        .contains(mountPoint);
  }

  @Test
  void theLastOfSeveralMountsOnOnePointIsTheVisibleOne() throws Exception {
    assertThat(MountTable.parse(MOUNTINFO).mountFor("/var/lib/kubelet/pods"))
        .map(Mount::device)
        .contains(new DeviceId(254, 32));
  }

  @Test
  void escapedMountPointsMatchTheDecodedPath() throws Exception {
    assertThat(MountTable.parse(MOUNTINFO).mountFor("/mnt/a\tb\nc\\d/file"))
        .map(Mount::id)
        .contains(51);
  }

  @Test
  void aTableWithoutARootMountHoldsNothingOutsideItsMounts() throws Exception {
    MountTable table =
        MountTable.parse("31 22 254:17 / /var/lib rw,relatime shared:20 - ext4 /dev/vdb1 rw\n");

    assertThat(table.mountFor("/etc")).isEmpty();
    assertThat(table.mountFor("/var/lib/x")).map(Mount::id).contains(31);
  }

  @Test
  void refusesARelativePath() throws Exception {
    MountTable table = MountTable.parse(MOUNTINFO);

    assertThatThrownBy(() -> table.mountFor("var/lib"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("var/lib");
  }

  @Test
  void toleratesBlankLinesAndAMissingSuperOptionsField() throws Exception {
    MountTable table = MountTable.parse("\n22 1 254:0 / / rw - ext4 /dev/vda\n\n");

    assertThat(table.mounts())
        .singleElement()
        .satisfies(m -> assertThat(m.superOptions()).isEmpty());
    assertThat(table.mounts().get(0).lineNumber()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no separator       | 22 1 254:0 / / rw shared:1 ext4 /dev/vda rw            | has no ' - ' separator after six fields
          separator too soon | 22 1 254:0 / - ext4 /dev/vda rw                         | has no ' - ' separator after six fields
          no source          | 22 1 254:0 / / rw - ext4                                | lacks the filesystem type or source after ' - '
          bad mount id       | x 1 254:0 / / rw - ext4 /dev/vda rw                     | has a mount id that is not a number
          bad parent id      | 22 y 254:0 / / rw - ext4 /dev/vda rw                    | has a parent id that is not a number
          bad device         | 22 1 254 / / rw - ext4 /dev/vda rw                      | has a device that is not MAJ:MIN
          relative point     | 22 1 254:0 / mnt rw - ext4 /dev/vda rw                  | has a mount point that is not absolute
          """)
  void namesTheGarbledLine(String title, String badLine, String problem) {
    String text = "23 22 0:21 / /proc rw - proc proc rw\n\n" + badLine + "\n";

    assertThatThrownBy(() -> MountTable.parse(text, "/host/proc/1/mountinfo"))
        .isInstanceOfSatisfying(
            MountTableException.class,
            e -> {
              assertThat(e.lineNumber()).hasValue(3);
              assertThat(e.source()).isEqualTo("/host/proc/1/mountinfo");
            })
        .hasMessage("line 3 of /host/proc/1/mountinfo " + problem + ": '" + badLine + "'");
  }
}
