package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IoStatTest {

  private static final DeviceId VDA = DeviceId.parse("254:0");
  private static final DeviceId VDB = DeviceId.parse("254:16");

  @Test
  void readsCountersAndIocostUsage() {
    SortedMap<DeviceId, IoStatEntry> stat =
        IoStat.parse(
            "254:0 rbytes=67129344 wbytes=67108864 rios=133 wios=64 dbytes=0 dios=0"
                + " cost.usage=764598\n");

    assertThat(stat)
        .containsExactly(
            Map.entry(
                VDA,
                new IoStatEntry(
                    VDA, 67129344, 67108864, 133, 64, 0, 0, Map.of("cost.usage", 764598L))));
  }

  /** A device with no I/O yet prints a bare "254:16 " line; entries come out sorted by device. */
  @Test
  void bareDeviceLineIsAllZeros() {
    SortedMap<DeviceId, IoStatEntry> stat =
        IoStat.parse(
            "254:16 \n254:0 rbytes=67129344 wbytes=4961886208 rios=133 wios=4738 dbytes=0 dios=0\n");

    assertThat(stat.keySet()).containsExactly(VDA, VDB);
    assertThat(stat.get(VDB)).isEqualTo(IoStatEntry.idle(VDB));
    assertThat(stat.get(VDB).extra()).isEmpty();
    assertThat(stat.get(VDA))
        .isEqualTo(new IoStatEntry(VDA, 67129344, 4961886208L, 133, 4738, 0, 0, Map.of()));
  }

  @Test
  void readsTwoDevices() {
    SortedMap<DeviceId, IoStatEntry> stat =
        IoStat.parse(
            "254:16 rbytes=8192 wbytes=5714739200 rios=2 wios=5450 dbytes=0 dios=0\n"
                + "254:0 rbytes=67129344 wbytes=5081153536 rios=133 wios=9472 dbytes=0 dios=0\n");

    assertThat(stat.get(VDB).rbytes()).isEqualTo(8192);
    assertThat(stat.get(VDB).wbytes()).isEqualTo(5714739200L);
    assertThat(stat.get(VDB).rios()).isEqualTo(2);
    assertThat(stat.get(VDB).wios()).isEqualTo(5450);
    assertThat(stat.get(VDA).wbytes()).isEqualTo(5081153536L);
    assertThat(stat.get(VDA).wios()).isEqualTo(9472);
  }

  /**
   * Debug-flag keys are kept when numeric; the root's cost.vrate and io.latency's depth=max are
   * skipped.
   */
  @Test
  void keepsNumericUnknownKeysAndSkipsOthers() {
    IoStatEntry entry =
        IoStat.parse(
                "254:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6 cost.vrate=100.00"
                    + " cost.usage=752545 cost.wait=10 cost.indebt=0 cost.indelay=0"
                    + " depth=max avg_lat=1234 win=500 future=abc\n")
            .get(VDA);

    assertThat(entry)
        .isEqualTo(
            new IoStatEntry(
                VDA,
                1,
                2,
                3,
                4,
                5,
                6,
                Map.of(
                    "cost.usage", 752545L,
                    "cost.wait", 10L,
                    "cost.indebt", 0L,
                    "cost.indelay", 0L,
                    "avg_lat", 1234L,
                    "win", 500L)));
  }

  @Test
  void missingKnownKeysAreZero() {
    assertThat(IoStat.parse("254:0 wbytes=4096 wios=1\n").get(VDA))
        .isEqualTo(new IoStatEntry(VDA, 0, 4096, 0, 1, 0, 0, Map.of()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\n"})
  void emptyFileHasNoEntries(String content) {
    assertThat(IoStat.parse(content)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          254:0 rbytes=abc wbytes=0  | rbytes is not a counter
          254:0 wios=-1              | wios is not a counter
          254:0 dios=                | dios is not a counter
          254:0 rbytes               | expected key=value, got 'rbytes'
          vda rbytes=1               | not a MAJ:MIN device number: 'vda'
          rbytes=1                   | not a MAJ:MIN device number: 'rbytes=1'
          """)
  void refusesGarbageNamingTheLine(String line, String reason) {
    assertThatThrownBy(() -> IoStat.parse(line + "\n"))
        .isInstanceOfSatisfying(
            KernelFormatException.class,
            e -> {
              assertThat(e.file()).isEqualTo("io.stat");
              assertThat(e.line()).isEqualTo(line);
              assertThat(e.reason()).isEqualTo(reason);
            });
  }

  @Test
  void refusesTwoLinesForOneDevice() {
    assertThatThrownBy(() -> IoStat.parse("254:0 rbytes=1\n254:0 rbytes=2\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage("io.stat: cannot parse line '254:0 rbytes=2': second line for device 254:0");
  }

  @Test
  void resultIsImmutable() {
    SortedMap<DeviceId, IoStatEntry> stat = IoStat.parse("254:0 cost.usage=1\n");

    assertThatThrownBy(() -> stat.remove(VDA)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> stat.get(VDA).extra().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
