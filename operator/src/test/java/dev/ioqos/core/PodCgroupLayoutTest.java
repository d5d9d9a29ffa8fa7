package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PodCgroupLayoutTest {
  private static final PodUid UID = PodUid.of("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");

  @ParameterizedTest(name = "{0} root={1} {2}")
  @CsvSource({
    "systemd,  /,             Guaranteed, /kubepods.slice/kubepods-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice",
    "systemd,  /,             Burstable,  /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice",
    "systemd,  /,             BestEffort, /kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice",
    "systemd,  /kubelet,      Burstable,  /kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/kubelet-kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice",
    "systemd,  /kubelet.slice, Guaranteed, /kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice",
    "systemd,  /a/b,          BestEffort, /a.slice/a-b.slice/a-b-kubepods.slice/a-b-kubepods-besteffort.slice/a-b-kubepods-besteffort-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice",
    "cgroupfs, /,             Guaranteed, /kubepods/pod0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "cgroupfs, /,             Burstable,  /kubepods/burstable/pod0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "cgroupfs, /,             BestEffort, /kubepods/besteffort/pod0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "cgroupfs, /kubelet,      Burstable,  /kubelet/kubepods/burstable/pod0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "cgroupfs, /kubelet/,     BestEffort, /kubelet/kubepods/besteffort/pod0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  })
  void podPaths(String driver, String root, String qos, String expected) {
    PodCgroupLayout layout = PodCgroupLayout.of(CgroupDriver.parse(driver), root);

    assertThat(layout.podPath(QosClass.parse(qos), UID)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} root={1}")
  @CsvSource({
    "systemd, /, /kubepods.slice",
    "systemd, /kubelet, /kubelet.slice/kubelet-kubepods.slice",
    "cgroupfs, /, /kubepods",
    "cgroupfs, /kubelet, /kubelet/kubepods",
  })
  void kubepodsPaths(String driver, String root, String expected) {
    assertThat(PodCgroupLayout.of(CgroupDriver.parse(driver), root).kubepodsPath())
        .isEqualTo(expected);
  }

  /** The examples of kubelet's own CgroupName.ToSystemd tests. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "system | /system.slice",
        "system,Burstable | /system.slice/system-Burstable.slice",
        "Burstable,pod-123 | /Burstable.slice/Burstable-pod_123.slice",
        "test,a,b | /test.slice/test-a.slice/test-a-b.slice",
        "test,a,b,Burstable | /test.slice/test-a.slice/test-a-b.slice/test-a-b-Burstable.slice",
        "Burstable | /Burstable.slice",
        "BestEffort,pod-6c1a4e95-6bb6-11e6-bc26-28d2444e470d"
            + " | /BestEffort.slice/BestEffort-pod_6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice",
      })
  void kubeletSystemdExamples(String parts, String expected) {
    assertThat(CgroupName.of(parts.split(",")).toSystemd()).isEqualTo(expected);
  }

  @Test
  void rootNameRendersAsSlash() {
    assertThat(CgroupName.parseCgroupRoot("/").toSystemd()).isEqualTo("/");
    assertThat(CgroupName.parseCgroupRoot("/").toCgroupfs()).isEqualTo("/");
  }

  @Test
  void relativeCgroupRootIsRefused() {
    assertThatThrownBy(() -> PodCgroupLayout.of(CgroupDriver.SYSTEMD, "kubelet"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'kubelet'");
  }

  @Test
  void pathPartsCannotEscape() {
    assertThatThrownBy(() -> CgroupName.parseCgroupRoot("/a/../b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'..'");
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource(
      textBlock =
          """
          SYSTEMD,  GUARANTEED, kubepods-pod11111111_2222_4333_8444_555555555555.slice,                     11111111-2222-4333-8444-555555555555
          SYSTEMD,  BURSTABLE,  kubepods-burstable-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice,          0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d
          SYSTEMD,  BEST_EFFORT, kubepods-besteffort-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice,        0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d
          SYSTEMD,  GUARANTEED, kubepods-burstable.slice,                                                   -
          SYSTEMD,  BURSTABLE,  kubepods-besteffort-pod0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice,          -
          SYSTEMD,  BURSTABLE,  kubepods-burstable-podxxxxxxxx_4e5f_4a6b_8c7d_9e0f1a2b3c4d.slice,          -
          CGROUPFS, GUARANTEED, pod11111111-2222-4333-8444-555555555555,                                    11111111-2222-4333-8444-555555555555
          CGROUPFS, BEST_EFFORT, pod11111111-2222-4333-8444-555555555555,                                   11111111-2222-4333-8444-555555555555
          CGROUPFS, GUARANTEED, besteffort,                                                                 -
          CGROUPFS, BURSTABLE,  cri-containerd-abc.scope,                                                   -
          """)
  void podDirectoriesAreToldApartFromTheRest(
      CgroupDriver driver, QosClass qos, String directory, String uid) {
    PodCgroupLayout layout = PodCgroupLayout.of(driver, "/");
    assertThat(layout.podUidOf(qos, directory).map(PodUid::value))
        .isEqualTo(uid.equals("-") ? java.util.Optional.empty() : java.util.Optional.of(uid));
  }
}
