package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.PodCgroupLayout;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CgroupWriteScopeTest {
  static final Path CGROUPFS = Path.of("/host/sys/fs/cgroup");

  static CgroupWriteScope scope(
      Optional<PodCgroupLayout> layout, boolean iocost, boolean rootWritable) {
    return CgroupWriteScope.of(
        CGROUPFS, layout, iocost, path -> path.equals(CGROUPFS) ? rootWritable : true);
  }

  @Test
  void aReadOnlyTreeWithKubepodsOnTopIsNarrow() {
    CgroupWriteScope scope =
        scope(Optional.of(PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/")), false, false);
    assertThat(scope.narrow()).isTrue();
    assertThat(scope.reason()).isEqualTo("KubepodsOnly");
    assertThat(scope.message()).endsWith("read-only for the agent but /kubepods.slice");
  }

  @Test
  void aWritableTreeNamesTheChartValuesThatNarrowIt() {
    CgroupWriteScope systemd =
        scope(Optional.of(PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/")), false, true);
    assertThat(systemd.narrow()).isFalse();
    assertThat(systemd.reason()).isEqualTo("WholeTreeWritable");
    assertThat(systemd.message())
        .contains("could freeze or kill kubelet")
        .contains("kubelet's pods are under /kubepods.slice here")
        .endsWith("install with agent.cgroupDriver=systemd to mount only that read-write");

    CgroupWriteScope cgroupfs =
        scope(Optional.of(PodCgroupLayout.of(CgroupDriver.CGROUPFS, "/kubelet")), false, true);
    assertThat(cgroupfs.message())
        .contains("under /kubelet/kubepods here")
        .contains("agent.cgroupDriver=cgroupfs and agent.kubeletCgroupRoot=/kubelet ");

    CgroupWriteScope unknown = scope(Optional.empty(), false, true);
    assertThat(unknown.narrow()).isFalse();
    assertThat(unknown.message())
        .endsWith(
            "set agent.cgroupDriver to kubelet's driver to mount" + " only kubepods read-write");
  }

  @Test
  void theIocostOptInNeedsTheRoot() {
    CgroupWriteScope scope =
        scope(Optional.of(PodCgroupLayout.of(CgroupDriver.CGROUPFS, "/")), true, true);
    assertThat(scope.narrow()).isTrue();
    assertThat(scope.reason()).isEqualTo("IocostNeedsRoot");
  }
}
