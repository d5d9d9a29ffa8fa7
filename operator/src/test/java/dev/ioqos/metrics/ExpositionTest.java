package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExpositionTest {

  @ParameterizedTest
  @ValueSource(
      longs = {
        0,
        1,
        9,
        10,
        4096,
        5120,
        1_048_576,
        9_999_999,
        10_000_000,
        10_000_001,
        12_345_678,
        20_971_520,
        99_999_999,
        100_000_000,
        1_000_000_000,
        67_129_344,
        5_714_739_200L,
        4_961_886_208L,
        1_000_000_000_000_000L,
        (1L << 53) - 1,
        1L << 53,
        (1L << 53) + 1,
        Long.MAX_VALUE,
        -1
      })
  void countsArePrintedAsTheRegistryPrintsTheirDouble(long value) {
    assertThat(new Exposition(4).count(value).toString())
        .isEqualTo(Double.toString((double) value));
  }

  @Test
  void randomCountsOfEveryMagnitudeAreTooPrintedAsTheirDouble() {
    Random random = new Random(1);
    Exposition out = new Exposition(16);
    for (int i = 0; i < 500_000; i++) {
      long value = random.nextLong() >>> random.nextInt(64);
      if (random.nextBoolean()) {
        // round numbers: trailing zeros
        long scale = (long) Math.pow(10, random.nextInt(12));
        value = value / scale * scale;
      }
      out.reset();
      assertThat(out.count(value).toString())
          .as("%d", value)
          .isEqualTo(Double.toString((double) value));
    }
  }

  @Test
  void aSampleLineIsNameLabelsCountAndNewline() {
    Random random = new Random(3);
    byte[] name = Exposition.ascii("ioqos_pod_io_reads_total{");
    byte[] labels = Exposition.ascii("device=\"254:0\",pod=\"p\"} ");
    Exposition out = new Exposition(8);
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      long value = i % 1000 == 0 ? Long.MAX_VALUE - i : random.nextLong() >>> random.nextInt(64);
      out.sample(name, labels, value);
      expected
          .append("ioqos_pod_io_reads_total{device=\"254:0\",pod=\"p\"} ")
          .append(Double.toString((double) value))
          .append('\n');
    }
    assertThat(out.toString()).isEqualTo(expected.toString());
  }

  @Test
  void labelValuesEscapeBackslashQuoteAndNewline() {
    assertThat(Exposition.escape("plain-name.1")).isEqualTo("plain-name.1");
    assertThat(Exposition.escape("a\\b\"c\nd")).isEqualTo("a\\\\b\\\"c\\nd");
  }

  @Test
  void growsAsItIsWritten() {
    Exposition out = new Exposition(1);
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      out.append(Exposition.ascii("x{")).count(i).append((byte) '\n');
      expected.append("x{").append((double) i).append('\n');
    }
    assertThat(out.toString()).isEqualTo(expected.toString());
    assertThat(out.size()).isEqualTo(expected.length());
  }
}
