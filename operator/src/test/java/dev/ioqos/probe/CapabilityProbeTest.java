package dev.ioqos.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.CgroupDriver;
import dev.ioqos.core.DeviceId;
import dev.ioqos.core.PodCgroupLayout;
import dev.ioqos.core.policy.WeightMechanism;
import dev.ioqos.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CapabilityProbeTest {
  @TempDir Path temp;
  Path node;
  final Optional<PodCgroupLayout> systemd =
      Optional.of(PodCgroupLayout.of(CgroupDriver.SYSTEMD, "/"));

  @BeforeEach
  void setUp() {
    node = Fixtures.copy("node/debian-6.12-systemd", temp);
  }

  NodeCapabilities probe() {
    return new CapabilityProbe(node.resolve("cgroup"), node.resolve("sys"), node.resolve("proc"))
        .probe(systemd);
  }

  @Test
  void debianKernelWithoutIocost() {
    NodeCapabilities caps = probe();

    assertThat(caps.cgroupVersion()).isEqualTo(CgroupVersion.V2);
    assertThat(caps.ioController()).isTrue();
    assertThat(caps.kubepods())
        .isEqualTo(new KubepodsCapability(CgroupDriver.SYSTEMD, "/kubepods.slice", true));
    assertThat(caps.psi()).isTrue();
    assertThat(caps.ioLatency()).isFalse();
    assertThat(caps.iocostAvailable()).isTrue();
    assertThat(caps.kernelRelease()).isEqualTo("6.12.118+deb13-amd64");
    assertThat(caps.ioUsable()).isTrue();
    assertThat(caps.devices())
        .containsExactly(
            new DiskCapability(
                "vda", new DeviceId(254, 0), "none", false, false, WeightMechanism.NONE),
            new DiskCapability(
                "vdb", new DeviceId(254, 16), "bfq", true, false, WeightMechanism.BFQ));
  }

  @Test
  void iocostEnabledOnADiskMakesItsWeightsEnforced() throws Exception {
    // Exactly what 6.12 prints after `echo "254:0 enable=1" > io.cost.qos`, plus a disk that had
    // iocost turned off again (the line stays with enable=0).
    Files.writeString(
        node.resolve("cgroup/io.cost.qos"),
        "254:0 enable=1 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00"
            + " max=10000.00\n"
            + "254:16 enable=0 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00"
            + " max=10000.00\n");

    assertThat(probe().devices())
        .extracting(DiskCapability::name, DiskCapability::iocost, DiskCapability::weightMechanism)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("vda", true, WeightMechanism.IOCOST),
            org.assertj.core.groups.Tuple.tuple("vdb", false, WeightMechanism.BFQ));
  }

  @Test
  void ioNotDelegatedToAQosSliceThatHasPods() throws Exception {
    Files.writeString(
        node.resolve("cgroup/kubepods.slice/kubepods-burstable.slice/cgroup.subtree_control"),
        "cpu memory pids\n");

    assertThat(probe().kubepods().ioEnabled()).isFalse();
    assertThat(probe().ioUsable()).isFalse();
  }

  @Test
  void anEmptyQosSliceNeedsNoControllersYet() throws Exception {
    // A real node with the cgroupfs driver: /kubepods/besteffort reads an empty subtree_control
    // until kubelet creates its first pod there (and enables the controllers as it does).
    Files.writeString(
        node.resolve("cgroup/kubepods.slice/kubepods-besteffort.slice/cgroup.subtree_control"),
        "\n");

    assertThat(probe().kubepods().ioEnabled()).isTrue();
    assertThat(probe().ioUsable()).isTrue();
  }

  @Test
  void ioLatencyAndPsiFollowTheFiles() throws Exception {
    Files.writeString(node.resolve("cgroup/kubepods.slice/io.latency"), "");
    Files.delete(node.resolve("proc/pressure/io"));

    NodeCapabilities caps = probe();
    assertThat(caps.ioLatency()).isTrue();
    assertThat(caps.psi()).isFalse();
  }

  @Test
  void noKubepodsDirectory() {
    NodeCapabilities caps =
        new CapabilityProbe(node.resolve("cgroup"), node.resolve("sys"), node.resolve("proc"))
            .probe(Optional.of(PodCgroupLayout.of(CgroupDriver.CGROUPFS, "/")));

    assertThat(caps.kubepods()).isNull();
    assertThat(caps.ioUsable()).isFalse();
  }

  @Test
  void cgroupV1AndHybrid() throws Exception {
    Path v1 = Files.createDirectories(temp.resolve("v1/blkio"));
    NodeCapabilities legacy =
        new CapabilityProbe(v1.getParent(), node.resolve("sys"), node.resolve("proc"))
            .probe(systemd);
    assertThat(legacy.cgroupVersion()).isEqualTo(CgroupVersion.V1);
    assertThat(legacy.ioController()).isFalse();
    assertThat(legacy.kubepods()).isNull();

    Path hybrid = Files.createDirectories(temp.resolve("hybrid/unified"));
    Files.createDirectories(temp.resolve("hybrid/blkio"));
    Files.writeString(hybrid.resolve("cgroup.controllers"), "\n");
    NodeCapabilities mixed =
        new CapabilityProbe(hybrid.getParent(), node.resolve("sys"), node.resolve("proc"))
            .probe(systemd);
    assertThat(mixed.cgroupVersion()).isEqualTo(CgroupVersion.HYBRID);
    assertThat(mixed.ioController()).isFalse();
  }

  @Test
  void activeSchedulerIsTheBracketedOne() {
    assertThat(CapabilityProbe.activeScheduler("none mq-deadline [bfq] \n")).isEqualTo("bfq");
    assertThat(CapabilityProbe.activeScheduler("[none] mq-deadline kyber bfq\n")).isEqualTo("none");
    assertThat(CapabilityProbe.activeScheduler("none\n")).isEqualTo("none");
  }
}
