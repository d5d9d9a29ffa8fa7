package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class IoMaxTest {

  private static final DeviceId VDA = DeviceId.parse("254:0");
  private static final DeviceId VDB = DeviceId.parse("254:16");

  private static IoLimits limits(long rbps, long wbps, long riops, long wiops) {
    return new IoLimits(opt(rbps), opt(wbps), opt(riops), opt(wiops));
  }

  /** -1 stands for max in these tables. */
  private static OptionalLong opt(long value) {
    return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
  }

  /** Lines the kernel printed back (KERNEL-FACTS.md, linux-6.12 log). */
  static Stream<Arguments> kernelReadBacks() {
    return Stream.of(
        Arguments.of(
            "254:0 rbps=max wbps=20971520 riops=max wiops=max", VDA, limits(-1, 20971520, -1, -1)),
        Arguments.of(
            "254:0 rbps=1048576 wbps=20971520 riops=1000 wiops=2000",
            VDA,
            limits(1048576, 20971520, 1000, 2000)),
        Arguments.of(
            "254:0 rbps=max wbps=10485760 riops=max wiops=max", VDA, limits(-1, 10485760, -1, -1)),
        Arguments.of("254:0 rbps=max wbps=max riops=max wiops=100", VDA, limits(-1, -1, -1, 100)),
        Arguments.of(
            "254:16 rbps=max wbps=10485760 riops=max wiops=max",
            VDB,
            limits(-1, 10485760, -1, -1)));
  }

  @ParameterizedTest
  @MethodSource("kernelReadBacks")
  void parsesWhatTheKernelPrints(String line, DeviceId device, IoLimits expected) {
    assertThat(IoMaxLine.parse(line)).isEqualTo(new IoMaxLine(device, expected));
  }

  @ParameterizedTest
  @MethodSource("kernelReadBacks")
  void printsExactlyWhatTheKernelPrints(String line, DeviceId device, IoLimits limits) {
    assertThat(new IoMaxLine(device, limits).toKernelLine()).isEqualTo(line);
    assertThat(IoMaxLine.parse(line).toKernelLine()).isEqualTo(line);
  }

  /** What was written, and what the kernel read back (missing keys are max, any order). */
  @ParameterizedTest
  @MethodSource
  void writtenFormsParseToTheReadBack(String written, String readBack) {
    assertThat(IoMaxLine.parse(written).toKernelLine()).isEqualTo(readBack);
  }

  static Stream<Arguments> writtenFormsParseToTheReadBack() {
    return Stream.of(
        Arguments.of("254:0 wbps=20971520", "254:0 rbps=max wbps=20971520 riops=max wiops=max"),
        Arguments.of("254:0 wiops=100", "254:0 rbps=max wbps=max riops=max wiops=100"),
        Arguments.of(
            "254:0 riops=1000 wiops=2000 rbps=1048576",
            "254:0 rbps=1048576 wbps=max riops=1000 wiops=2000"),
        Arguments.of("254:0", "254:0 rbps=max wbps=max riops=max wiops=max"));
  }

  @Test
  void unlimitedLineIsTheKernelsRemovalLine() {
    assertThat(new IoMaxLine(VDA, IoLimits.NONE).toKernelLine())
        .isEqualTo("254:0 rbps=max wbps=max riops=max wiops=max");
  }

  @Test
  void fileReadsBackWithTrailingNewline() {
    IoMax file = IoMax.parse("254:0 rbps=max wbps=20971520 riops=max wiops=max\n");

    assertThat(file.lines())
        .containsExactly(new IoMaxLine(VDA, IoLimits.NONE.with(IoLimits.Key.WBPS, 20971520)));
    assertThat(file.forDevice(VDA)).contains(limits(-1, 20971520, -1, -1));
    assertThat(file.limitsFor(VDA).wbps()).hasValue(20971520);
    assertThat(file.forDevice(VDB)).isEmpty();
    assertThat(file.limitsFor(VDB)).isEqualTo(IoLimits.NONE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\n"})
  void removedLineReadsEmptyAndMeansUnlimited(String content) {
    IoMax file = IoMax.parse(content);

    assertThat(file).isEqualTo(IoMax.EMPTY);
    assertThat(file.lines()).isEmpty();
    assertThat(file.forDevice(VDA)).isEmpty();
    assertThat(file.limitsFor(VDA)).isEqualTo(IoLimits.NONE);
  }

  @Test
  void keepsTheKernelsLineOrder() {
    IoMax file =
        IoMax.parse(
            "254:16 rbps=max wbps=10485760 riops=max wiops=max\n"
                + "254:0 rbps=1048576 wbps=20971520 riops=1000 wiops=2000\n");

    assertThat(file.lines()).extracting(IoMaxLine::device).containsExactly(VDB, VDA);
    assertThat(file.limitsFor(VDA)).isEqualTo(limits(1048576, 20971520, 1000, 2000));
    assertThat(file.limitsFor(VDB)).isEqualTo(limits(-1, 10485760, -1, -1));
  }

  static Stream<Arguments> garbage() {
    return Stream.of(
        Arguments.of("254:0 wbps=abc", "wbps is not a number or 'max'"),
        Arguments.of("254:0 wbps=0", "wbps must be positive or 'max', was 0"),
        Arguments.of("254:0 wbps=-1", "wbps is not a number or 'max'"),
        Arguments.of("254:0 wbps=+1", "wbps is not a number or 'max'"),
        Arguments.of("254:0 wbps=", "wbps is not a number or 'max'"),
        Arguments.of("254:0 wbps=MAX", "wbps is not a number or 'max'"),
        Arguments.of("254:0 wbps=18446744073709551615", "wbps is not a number or 'max'"),
        Arguments.of("254:0 wbps", "expected key=value, got 'wbps'"),
        Arguments.of("254:0 =1", "expected key=value, got '=1'"),
        Arguments.of("254:0 idle=max", "unknown key 'idle' (expected rbps, wbps, riops or wiops)"),
        Arguments.of("254:0 wbps=1 wbps=2", "wbps appears twice"),
        Arguments.of("vda wbps=1", "not a MAJ:MIN device number: 'vda'"),
        Arguments.of("wbps=1 254:0", "not a MAJ:MIN device number: 'wbps=1'"));
  }

  @ParameterizedTest
  @MethodSource("garbage")
  void refusesGarbageNamingTheLine(String line, String reason) {
    assertThatThrownBy(() -> IoMax.parse(line + "\n"))
        .isInstanceOfSatisfying(
            KernelFormatException.class,
            e -> {
              assertThat(e.file()).isEqualTo("io.max");
              assertThat(e.line()).isEqualTo(line);
              assertThat(e.reason()).isEqualTo(reason);
              assertThat(e).hasMessage("io.max: cannot parse line '" + line + "': " + reason);
            });
  }

  @Test
  void messageMatchesTheContract() {
    assertThatThrownBy(() -> IoMaxLine.parse("254:0 wbps=abc"))
        .isInstanceOf(KernelFormatException.class)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("io.max: cannot parse line '254:0 wbps=abc': wbps is not a number or 'max'");
  }

  @Test
  void refusesTwoLinesForOneDevice() {
    assertThatThrownBy(
            () ->
                IoMax.parse(
                    "254:0 rbps=max wbps=1 riops=max wiops=max\n"
                        + "254:0 rbps=max wbps=2 riops=max wiops=max\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage(
            "io.max: cannot parse line '254:0 rbps=max wbps=2 riops=max wiops=max': "
                + "second line for device 254:0");
    IoMaxLine line = new IoMaxLine(VDA, IoLimits.NONE);
    assertThatThrownBy(() -> new IoMax(List.of(line, line)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rendersWhatTheKernelShowsOnOneLine() {
    assertThat(IoMax.parse("").toKernelText()).isEqualTo("(empty)");
    assertThat(
            IoMax.parse(
                    "254:16 rbps=max wbps=20971520 riops=max wiops=200\n"
                        + "254:0 rbps=1048576 wbps=max riops=max wiops=max\n")
                .toKernelText())
        .isEqualTo(
            "254:16 rbps=max wbps=20971520 riops=max wiops=200;"
                + " 254:0 rbps=1048576 wbps=max riops=max wiops=max");
  }
}
