package dev.ioqos.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CgroupTreeTest {
  static final String POD =
      "/kubepods.slice/kubepods-burstable.slice/"
          + "kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice";

  @TempDir Path temp;
  Path mount;
  CgroupTree tree;

  @BeforeEach
  void setUp() {
    mount = Fixtures.copy("node/debian-6.12-systemd", temp).resolve("cgroup");
    tree = new CgroupTree(mount, "/kubepods.slice");
  }

  @Test
  void resolvesAPodDirectoryBelowKubepods() throws Exception {
    CgroupDir dir = tree.below(POD);

    assertThat(dir.path()).isEqualTo(mount.resolve(POD.substring(1)));
    assertThat(dir.cgroupPath()).isEqualTo(POD);
  }

  @Test
  void refusesKubepodsItselfAndEverythingOutside() {
    for (String path :
        new String[] {"/kubepods.slice", "/system.slice", "/", "/kubepods.slicex/a"}) {
      assertThatThrownBy(() -> tree.below(path))
          .isInstanceOfSatisfying(
              CgroupIoException.class,
              e -> assertThat(e.failure()).isEqualTo(CgroupFailure.UNSAFE_PATH));
    }
  }

  @Test
  void refusesDotDot() {
    assertThatThrownBy(() -> tree.below("/kubepods.slice/../system.slice"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesASymlinkOnTheWay() throws Exception {
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    Files.createSymbolicLink(
        mount.resolve("kubepods.slice/kubepods-besteffort.slice/evil.slice"), elsewhere);

    assertThatThrownBy(() -> tree.below("/kubepods.slice/kubepods-besteffort.slice/evil.slice"))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> {
              assertThat(e.failure()).isEqualTo(CgroupFailure.UNSAFE_PATH);
              assertThat(e.getMessage()).contains("symlink");
            });
  }

  @Test
  void aMissingPodCgroupIsGone() {
    assertThatThrownBy(
            () ->
                tree.below(
                    "/kubepods.slice/kubepods-besteffort.slice/"
                        + "kubepods-besteffort-pod99999999_2222_4333_8444_555555555555.slice"))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.CGROUP_GONE));
  }
}
