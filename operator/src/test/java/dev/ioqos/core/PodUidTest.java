package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PodUidTest {

  @Test
  void acceptsUuidsAndNormalisesCase() {
    assertThat(PodUid.of("0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D").value())
        .isEqualTo("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "../../../etc",
        "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4",
        "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d0",
        "0a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d",
        "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c/d",
        "0a1b2c3g-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "6c5b9e1e0c7e4bd0a1f3c2d9e8b7a6f",
        "6c5b9e1e0c7e4bd0a1f3c2d9e8b7a6f5a",
        "6c5b9e1e0c7e4bd0a1f3c2d9e8b7a6fz",
        "../6c5b9e1e0c7e4bd0a1f3c2d9e8b7a"
      })
  void refusesAnythingElse(String uid) {
    assertThatThrownBy(() -> PodUid.of(uid))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + uid + "'")
        .hasMessageContaining("not a UUID");
  }

  @Test
  void acceptsAStaticPodsConfigHash() {
    // kubelet's UID of a static pod, the MD5 of its manifest: its cgroup is named after it.
    assertThat(PodUid.of("6C5B9E1E0C7E4BD0A1F3C2D9E8B7A6F5").value())
        .isEqualTo("6c5b9e1e0c7e4bd0a1f3c2d9e8b7a6f5");
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> PodUid.of(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void qosClassNamesParse() {
    assertThat(QosClass.parse("besteffort")).isEqualTo(QosClass.BEST_EFFORT);
    assertThatThrownBy(() -> QosClass.parse("Gold"))
        .hasMessage("unknown QoS class 'Gold': expected Guaranteed, Burstable or BestEffort");
  }
}
