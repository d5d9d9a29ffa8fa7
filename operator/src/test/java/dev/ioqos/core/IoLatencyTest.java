package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IoLatencyTest {

  private static final DeviceId VDA = DeviceId.parse("254:0");
  private static final DeviceId VDB = DeviceId.parse("254:16");

  @ParameterizedTest
  @ValueSource(strings = {"", "\n"})
  void emptyFileHasNoTargets(String content) {
    IoLatency latency = IoLatency.parse(content);

    assertThat(latency).isEqualTo(IoLatency.EMPTY);
    assertThat(latency.targetMicros(VDA)).isEmpty();
  }

  @Test
  void readsTheTargetPerDevice() {
    IoLatency latency = IoLatency.parse("254:0 target=10000\n254:16 target=5000\n");

    assertThat(latency.targetMicros(VDA)).hasValue(10000);
    assertThat(latency.targetMicros(VDB)).hasValue(5000);
    assertThat(latency.targetMicros(DeviceId.parse("8:0"))).isEmpty();
  }

  /** With the blkcg debug flag the kernel adds keys: only target= is read. */
  @Test
  void skipsDebugKeys() {
    IoLatency latency = IoLatency.parse("254:0 target=10000 avg_lat=1234 win=500 depth=max\n");

    assertThat(latency).isEqualTo(new IoLatency(Map.of(VDA, 10000L)));
  }

  @Test
  void targetMaxMeansNoTarget() {
    assertThat(IoLatency.parse("254:0 target=max\n")).isEqualTo(IoLatency.EMPTY);
  }

  @Test
  void writesTheLinesTheKernelAccepts() {
    assertThat(IoLatency.line(VDA, 10000)).isEqualTo("254:0 target=10000");
    assertThat(IoLatency.resetLine(VDA)).isEqualTo("254:0 target=max");
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 5000, 10000, Long.MAX_VALUE})
  void writtenLineRoundTrips(long micros) {
    assertThat(IoLatency.parse(IoLatency.line(VDB, micros) + "\n").targetMicros(VDB))
        .hasValue(micros);
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -1})
  void refusesNonPositiveTargets(long micros) {
    assertThatThrownBy(() -> IoLatency.line(VDA, micros))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IoLatency(Map.of(VDA, micros)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          254:0 avg_lat=1                  | no target= key
          254:0                            | no target= key
          254:0 target=abc                 | target is not a positive number of microseconds or 'max'
          254:0 target=0                   | target is not a positive number of microseconds or 'max'
          254:0 target=-5                  | target is not a positive number of microseconds or 'max'
          254:0 target                     | expected key=value, got 'target'
          sda target=1                     | not a MAJ:MIN device number: 'sda'
          """)
  void refusesGarbageNamingTheLine(String line, String reason) {
    assertThatThrownBy(() -> IoLatency.parse(line + "\n"))
        .isInstanceOfSatisfying(
            KernelFormatException.class,
            e -> {
              assertThat(e.file()).isEqualTo("io.latency");
              assertThat(e.line()).isEqualTo(line);
              assertThat(e.reason()).isEqualTo(reason);
            });
  }

  @Test
  void refusesTwoLinesForOneDevice() {
    assertThatThrownBy(() -> IoLatency.parse("254:0 target=1\n254:0 target=2\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage("io.latency: cannot parse line '254:0 target=2': second line for device 254:0");
  }
}
