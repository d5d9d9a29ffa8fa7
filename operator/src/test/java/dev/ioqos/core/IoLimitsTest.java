package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.IoLimits.Key;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class IoLimitsTest {

  @Test
  void noneIsAllMax() {
    assertThat(IoLimits.NONE.isUnlimited()).isTrue();
    for (Key key : Key.values()) {
      assertThat(IoLimits.NONE.get(key)).isEmpty();
    }
  }

  @Test
  void keysAreTheKernelsNamesInItsPrintOrder() {
    assertThat(Key.values())
        .extracting(Key::kernelName)
        .containsExactly("rbps", "wbps", "riops", "wiops");
  }

  @Test
  void withSetsOnlyItsKey() {
    IoLimits limits = IoLimits.NONE.with(Key.WBPS, 20971520).with(Key.RIOPS, 1000);

    assertThat(limits)
        .isEqualTo(
            new IoLimits(
                OptionalLong.empty(),
                OptionalLong.of(20971520),
                OptionalLong.of(1000),
                OptionalLong.empty()));
    assertThat(limits.isUnlimited()).isFalse();
    assertThat(limits.with(Key.WBPS, OptionalLong.empty()).get(Key.WBPS)).isEmpty();
    assertThat(limits.get(Key.RIOPS)).hasValue(1000);
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -1, Long.MIN_VALUE})
  void refusesNonPositiveValuesLikeTheKernelsErange(long value) {
    for (Key key : Key.values()) {
      assertThatThrownBy(() -> IoLimits.NONE.with(key, value))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(key.kernelName() + " must be positive or absent (max), was ");
    }
  }

  @ParameterizedTest
  @EnumSource(Key.class)
  void acceptsTheLargestPositiveValue(Key key) {
    assertThat(IoLimits.NONE.with(key, Long.MAX_VALUE).get(key)).hasValue(Long.MAX_VALUE);
  }
}
