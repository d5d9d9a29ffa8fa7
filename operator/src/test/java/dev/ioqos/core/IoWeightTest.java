package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IoWeightTest {

  private static final DeviceId VDA = DeviceId.parse("254:0");
  private static final DeviceId VDB = DeviceId.parse("254:16");

  @Test
  void freshCgroupReadsDefault100() {
    IoWeight weight = IoWeight.parse("default 100\n");

    assertThat(weight.range()).isEqualTo(WeightRange.IO_WEIGHT);
    assertThat(weight.defaultWeight()).isEqualTo(100);
    assertThat(weight.deviceWeights()).isEmpty();
    assertThat(weight.forDevice(VDA)).isEmpty();
    assertThat(weight.effectiveWeight(VDA)).isEqualTo(100);
  }

  /** Writing plain "500" or "default 500" both read back "default 500". */
  @Test
  void plainWriteReadsBackAsDefaultLine() {
    assertThat(IoWeight.parse("default 500\n").defaultWeight()).isEqualTo(500);
    assertThat(IoWeight.defaultLine(500)).isEqualTo("default 500");
  }

  @Test
  void deviceLineOverridesTheDefault() {
    IoWeight weight = IoWeight.parse("default 700\n254:0 200\n");

    assertThat(weight.defaultWeight()).isEqualTo(700);
    assertThat(weight.forDevice(VDA)).hasValue(200);
    assertThat(weight.effectiveWeight(VDA)).isEqualTo(200);
    assertThat(weight.forDevice(VDB)).isEmpty();
    assertThat(weight.effectiveWeight(VDB)).isEqualTo(700);
    assertThat(weight).isEqualTo(new IoWeight(WeightRange.IO_WEIGHT, 700, Map.of(VDA, 200)));
  }

  @Test
  void bfqFileParsesWithItsRange() {
    IoWeight weight = IoWeight.parse(WeightRange.BFQ_WEIGHT, "default 300\n254:16 200\n");

    assertThat(weight).isEqualTo(new IoWeight(WeightRange.BFQ_WEIGHT, 300, Map.of(VDB, 200)));
    assertThat(weight.effectiveWeight(VDB)).isEqualTo(200);
    assertThat(weight.effectiveWeight(VDA)).isEqualTo(300);
  }

  @Test
  void writesTheLinesTheKernelAccepts() {
    assertThat(IoWeight.defaultLine(500)).isEqualTo("default 500");
    assertThat(IoWeight.deviceLine(VDA, 200)).isEqualTo("254:0 200");
    assertThat(IoWeight.resetDeviceLine(VDA)).isEqualTo("254:0 default");
  }

  @Test
  void writtenLinesRoundTrip() {
    String content = IoWeight.defaultLine(500) + "\n" + IoWeight.deviceLine(VDA, 200) + "\n";

    assertThat(content).isEqualTo("default 500\n254:0 200\n");
    assertThat(IoWeight.parse(content))
        .isEqualTo(new IoWeight(WeightRange.IO_WEIGHT, 500, Map.of(VDA, 200)));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 10001, -1})
  void writersRefuseWhatTheKernelAnswersEinvalFor(int weight) {
    assertThatThrownBy(() -> IoWeight.defaultLine(weight))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weight " + weight + " is outside io.weight's range 1..10000");
    assertThatThrownBy(() -> IoWeight.deviceLine(VDA, weight))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @CsvSource({
    "IO_WEIGHT, 1, true",
    "IO_WEIGHT, 10000, true",
    "IO_WEIGHT, 0, false",
    "IO_WEIGHT, 10001, false",
    "BFQ_WEIGHT, 1, true",
    "BFQ_WEIGHT, 1000, true",
    "BFQ_WEIGHT, 0, false",
    "BFQ_WEIGHT, 1001, false",
  })
  void rangesMatchTheKernel(WeightRange range, int weight, boolean valid) {
    assertThat(range.contains(weight)).isEqualTo(valid);
    if (valid) {
      assertThat(range.check(weight)).isEqualTo(weight);
    } else {
      assertThatThrownBy(() -> range.check(weight))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(range.fileName());
    }
  }

  /** systemd's piecewise-linear io.weight -> io.bfq.weight scaling, rounded down. */
  @ParameterizedTest
  @CsvSource({
    "1, 1",
    "50, 50",
    "99, 99",
    "100, 100",
    "101, 100",
    "110, 100",
    "111, 101",
    "112, 101",
    "200, 109",
    "500, 136",
    "5000, 545",
    "9999, 999",
    "10000, 1000",
  })
  void scalesToBfqLikeSystemd(int ioWeight, int bfqWeight) {
    assertThat(IoWeight.toBfqWeight(ioWeight)).isEqualTo(bfqWeight);
  }

  @Test
  void bfqScalingCoversTheWholeRangeMonotonically() {
    int previous = 0;
    for (int weight = 1; weight <= 10_000; weight++) {
      int bfq = IoWeight.toBfqWeight(weight);
      assertThat(bfq).isBetween(previous, 1000);
      assertThat(WeightRange.BFQ_WEIGHT.contains(bfq)).isTrue();
      previous = bfq;
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 10001})
  void bfqScalingRefusesInvalidIoWeights(int weight) {
    assertThatThrownBy(() -> IoWeight.toBfqWeight(weight))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          500                   | 500                   | expected 'default N' or 'MAJ:MIN N'
          254:0 default         | 254:0 default         | weight is not a number
          default abc           | default abc           | weight is not a number
          default 0             | default 0             | weight 0 is outside io.weight's range 1..10000
          default 10001         | default 10001         | weight 10001 is outside io.weight's range 1..10000
          default 100 200       | default 100 200       | expected 'default N' or 'MAJ:MIN N'
          default 100\\n254:17  | 254:17                | expected 'default N' or 'MAJ:MIN N'
          vda 200               | vda 200               | not a MAJ:MIN device number: 'vda'
          default 1\\ndefault 2 | default 2             | second default line
          """)
  void refusesGarbageNamingTheLine(String content, String line, String reason) {
    assertThatThrownBy(() -> IoWeight.parse(content.replace("\\n", "\n")))
        .isInstanceOfSatisfying(
            KernelFormatException.class,
            e -> {
              assertThat(e.file()).isEqualTo("io.weight");
              assertThat(e.line()).isEqualTo(line);
              assertThat(e.reason()).isEqualTo(reason);
            });
  }

  @Test
  void refusesBfqWeightsAbove1000() {
    assertThatThrownBy(() -> IoWeight.parse(WeightRange.BFQ_WEIGHT, "default 5000\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage(
            "io.bfq.weight: cannot parse line 'default 5000': "
                + "weight 5000 is outside io.bfq.weight's range 1..1000");
  }

  @Test
  void refusesAFileWithoutDefaultLine() {
    assertThatThrownBy(() -> IoWeight.parse("254:0 200\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage("io.weight: cannot parse '254:0 200\\n': no 'default N' line");
  }

  @Test
  void refusesTwoLinesForOneDevice() {
    assertThatThrownBy(() -> IoWeight.parse("default 100\n254:0 200\n254:0 300\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage("io.weight: cannot parse line '254:0 300': second line for device 254:0");
  }

  @Test
  void rendersWhatTheKernelShowsOnOneLine() {
    assertThat(IoWeight.parse("default 100\n254:16 500\n254:0 200\n").toKernelText())
        .isEqualTo("default 100; 254:0 200; 254:16 500");
    assertThat(IoWeight.parse(WeightRange.BFQ_WEIGHT, "default 10\n").toKernelText())
        .isEqualTo("default 10");
  }
}
