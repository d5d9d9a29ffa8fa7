package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IoPressureTest {

  @Test
  void readsACgroupsIoPressure() {
    IoPressure pressure =
        IoPressure.parse(
            "some avg10=29.40 avg60=5.87 avg300=1.27 total=4549001\n"
                + "full avg10=29.40 avg60=5.87 avg300=1.27 total=4549001\n");

    PressureLine expected = new PressureLine(29.40, 5.87, 1.27, 4549001);
    assertThat(pressure).isEqualTo(new IoPressure(expected, Optional.of(expected)));
    assertThat(pressure.some().totalSeconds()).isEqualTo(4.549001);
  }

  @Test
  void readsProcPressureIoWhereSomeAndFullDiffer() {
    IoPressure pressure =
        IoPressure.parse(
            "/proc/pressure/io",
            "some avg10=1.44 avg60=0.26 avg300=0.05 total=187487\n"
                + "full avg10=1.44 avg60=0.26 avg300=0.05 total=185599\n");

    assertThat(pressure.some()).isEqualTo(new PressureLine(1.44, 0.26, 0.05, 187487));
    assertThat(pressure.full()).contains(new PressureLine(1.44, 0.26, 0.05, 185599));
  }

  @Test
  void readsTheBriefsExample() {
    IoPressure pressure = IoPressure.parse("some avg10=22.40 avg60=4.29 avg300=0.94 total=4480927");

    assertThat(pressure.some()).isEqualTo(new PressureLine(22.40, 4.29, 0.94, 4480927));
    assertThat(pressure.full()).isEmpty();
  }

  @Test
  void idleSystemReadsZeros() {
    IoPressure pressure =
        IoPressure.parse(
            "some avg10=0.00 avg60=0.00 avg300=0.00 total=126\n"
                + "full avg10=0.00 avg60=0.00 avg300=0.00 total=126\n");

    assertThat(pressure.some()).isEqualTo(new PressureLine(0, 0, 0, 126));
    assertThat(pressure.full()).contains(new PressureLine(0, 0, 0, 126));
  }

  @Test
  void skipsKeysALaterKernelMayAdd() {
    assertThat(
            IoPressure.parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=4 avg1=9.99\n").some())
        .isEqualTo(new PressureLine(1.00, 2.00, 3.00, 4));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          some avg10=abc avg60=0.00 avg300=0.00 total=1    | avg10 is not a decimal percentage
          some avg10=1e3 avg60=0.00 avg300=0.00 total=1    | avg10 is not a decimal percentage
          some avg10=NaN avg60=0.00 avg300=0.00 total=1    | avg10 is not a decimal percentage
          some avg10=-1.00 avg60=0.00 avg300=0.00 total=1  | avg10 is not a decimal percentage
          some avg10=1. avg60=0.00 avg300=0.00 total=1     | avg10 is not a decimal percentage
          some avg10=0.00 avg60=0.00 avg300=0.00 total=x   | total is not a number of microseconds
          some avg10=0.00 avg60=0.00 avg300=0.00           | expected avg10, avg60, avg300 and total
          some                                             | expected avg10, avg60, avg300 and total
          some avg10                                       | expected key=value, got 'avg10'
          half avg10=0.00 avg60=0.00 avg300=0.00 total=1   | expected one 'some' and at most one 'full' line
          """)
  void refusesGarbageNamingTheLine(String line, String reason) {
    assertThatThrownBy(() -> IoPressure.parse(line + "\n"))
        .isInstanceOfSatisfying(
            KernelFormatException.class,
            e -> {
              assertThat(e.file()).isEqualTo("io.pressure");
              assertThat(e.line()).isEqualTo(line);
              assertThat(e.reason()).isEqualTo(reason);
            });
  }

  @Test
  void refusesASecondSomeLine() {
    String some = "some avg10=0.00 avg60=0.00 avg300=0.00 total=1";

    assertThatThrownBy(() -> IoPressure.parse(some + "\n" + some + "\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage(
            "io.pressure: cannot parse line '"
                + some
                + "': expected one 'some' and at most one 'full' line");
  }

  @Test
  void refusesAFileWithoutSomeLine() {
    assertThatThrownBy(
            () ->
                IoPressure.parse(
                    "/proc/pressure/io", "full avg10=0.00 avg60=0.00 avg300=0.00 total=126\n"))
        .isInstanceOf(KernelFormatException.class)
        .hasMessage(
            "/proc/pressure/io: cannot parse 'full avg10=0.00 avg60=0.00 avg300=0.00 total=126\\n':"
                + " no 'some' line");
  }

  @Test
  void refusesNegativeValuesInTheRecord() {
    assertThatThrownBy(() -> new PressureLine(-1, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PressureLine(0, Double.NaN, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PressureLine(0, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
