package dev.ioqos.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ApiUnitsTest {

  @ParameterizedTest
  @CsvSource({
    "1us, 1",
    "500us, 500",
    "5ms, 5000",
    "1s, 1000000",
    "010ms, 10000",
    "999999999s, 999999999000000"
  })
  void latencyTargetInMicroseconds(String text, long micros) {
    assertThat(ApiUnits.latencyMicros(text)).isEqualTo(micros);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"0ms", "0us", "000s", "", "5", "ms", "5 ms", "1.5ms", "-5ms", "5m", "5µs", "1h"})
  void latencyTargetsThatAdmissionRefusesAreRefused(String text) {
    assertThatThrownBy(() -> ApiUnits.latencyMicros(text))
        .isInstanceOf(InvalidApiValueException.class)
        .hasMessageStartingWith("latencyTarget: invalid value '" + text + "'")
        .satisfies(
            e -> assertThat(((InvalidApiValueException) e).field()).isEqualTo("latencyTarget"));
  }

  @ParameterizedTest
  @CsvSource({
    "50Mi, 52428800",
    "20Mi, 20971520",
    "1G, 1000000000",
    "500k, 500000",
    "1Ki, 1024",
    "1.5Ki, 1536",
    "1048576, 1048576",
    "1e3, 1000",
    "7Ei, 8070450532247928832",
    "0.5Ki, 512",
    "+1M, 1000000",
    "2E, 2000000000000000000",
    "12e2, 1200",
    "9223372036854775807, 9223372036854775807"
  })
  void quantityInBytesPerSecond(String text, long bytes) {
    assertThat(ApiUnits.bytesPerSecond(new Quantity(text))).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.5", "100m", "1.0001Ki", "1500u", "1e-1"})
  void fractionsOfAByteAreRefused(String text) {
    assertThatThrownBy(() -> ApiUnits.bytesPerSecond(new Quantity(text)))
        .isInstanceOf(InvalidApiValueException.class)
        .hasMessageContaining("fraction of a byte");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0Mi", "-1", "-5Mi"})
  void zeroAndNegativeAreRefused(String text) {
    assertThatThrownBy(() -> ApiUnits.bytesPerSecond(new Quantity(text)))
        .isInstanceOf(InvalidApiValueException.class)
        .hasMessageContaining("must be greater than 0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"8Ei", "100Ei", "9223372036854775808", "1e19"})
  void valuesBeyondALongAreRefused(String text) {
    assertThatThrownBy(() -> ApiUnits.bytesPerSecond(new Quantity(text)))
        .isInstanceOf(InvalidApiValueException.class)
        .hasMessageContaining("larger than");
  }

  @ParameterizedTest
  @ValueSource(strings = {"fast", "50MB", "Mi", "1.2.3", "5 Mi", "1e", "0x10", "1e1000"})
  void nonQuantitiesAreRefusedNamingTheField(String text) {
    assertThatThrownBy(() -> ApiUnits.bytesPerSecond("readBytesPerSecond", new Quantity(text)))
        .isInstanceOf(InvalidApiValueException.class)
        .hasMessageStartingWith("readBytesPerSecond: invalid value '" + text + "'");
  }
}
