package dev.ioqos.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import org.junit.jupiter.api.Test;

class DefaultsTest {

  private static final DeviceId VDA = DeviceId.parse("254:0");

  @Test
  void revertLinesAreWhatAFreshCgroupHolds() {
    assertThat(Defaults.WEIGHT).isEqualTo(100);
    assertThat(Defaults.LIMITS).isEqualTo(IoLimits.NONE);
    assertThat(Defaults.ioWeightLine()).isEqualTo("default 100");
    assertThat(Defaults.bfqWeightLine()).isEqualTo("default 100");
    assertThat(Defaults.ioMaxLine(VDA)).isEqualTo("254:0 rbps=max wbps=max riops=max wiops=max");
    assertThat(Defaults.latencyLine(VDA)).isEqualTo("254:0 target=max");
  }
}
