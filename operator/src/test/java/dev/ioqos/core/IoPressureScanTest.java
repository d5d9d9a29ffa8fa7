package dev.ioqos.core;

import static dev.ioqos.core.IoStatScanTest.bytes;
import static dev.ioqos.core.IoStatScanTest.pick;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The PSI byte scanner of the metrics scrape against {@link IoPressure#parse}. */
class IoPressureScanTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "some avg10=22.40 avg60=4.29 avg300=0.94 total=4480927\n"
            + "full avg10=22.40 avg60=4.29 avg300=0.94 total=4480000\n",
        "some avg10=1.44 avg60=0.26 avg300=0.05 total=187487\n"
            + "full avg10=1.44 avg60=0.26 avg300=0.05 total=185599\n",
        "some avg10=22.40 avg60=4.29 avg300=0.94 total=4480927",
        "some avg10=1.00 avg60=2.00 avg300=3.00 total=4 avg1=9.99\n",
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
            + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
      })
  void takesTheKernelsStringsWithTheParsersTotals(String text) {
    assertScansLikeTheParser(text, true);
  }

  @Test
  void takesEveryCapturedPressureFileOfTheNodeFixtures() throws IOException {
    List<Path> files = IoStatScanTest.fixtureFiles("io.pressure");
    assertThat(files).hasSizeGreaterThan(2);
    for (Path file : files) {
      assertScansLikeTheParser(Files.readString(file), true);
    }
  }

  @Test
  void readsBothTotals() {
    byte[] text =
        bytes(
            "some avg10=1.44 avg60=0.26 avg300=0.05 total=187487\n"
                + "full avg10=1.44 avg60=0.26 avg300=0.05 total=185599\n");
    IoPressureScan scan = new IoPressureScan();
    assertThat(scan.scan(text, text.length)).isTrue();
    assertThat(scan.someMicros()).isEqualTo(187487);
    assertThat(scan.hasFull()).isTrue();
    assertThat(scan.fullMicros()).isEqualTo(185599);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "some avg10=abc avg60=0.00 avg300=0.00 total=1\n",
        "some avg10=1e3 avg60=0.00 avg300=0.00 total=1\n",
        "some avg10=NaN avg60=0.00 avg300=0.00 total=1\n",
        "some avg10=-1.00 avg60=0.00 avg300=0.00 total=1\n",
        "some avg10=1. avg60=0.00 avg300=0.00 total=1\n",
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=x\n",
        "some avg10=0.00 avg60=0.00 avg300=0.00\n",
        "some\n",
        "some avg10\n",
        "half avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=126\n",
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nsome avg10=0.00 avg60=0.00 avg300=0.00"
            + " total=1\n",
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234567890123456789\n",
        "",
      })
  void declinesWhatItIsNotSureOfAndTheParserDecides(String text) {
    byte[] data = bytes(text);
    assertThat(new IoPressureScan().scan(data, data.length)).isFalse();
    assertScansLikeTheParser(text, false);
  }

  @Test
  void randomizedTextIsScannedLikeTheParserOrDeclined() {
    Random random = new Random(7);
    int scanned = 0;
    for (int i = 0; i < 200_000; i++) {
      if (assertScansLikeTheParser(randomPressure(random), false)) {
        scanned++;
      }
    }
    assertThat(scanned).as("most random files are of the common shape").isGreaterThan(20_000);
  }

  static boolean assertScansLikeTheParser(String text, boolean mustScan) {
    byte[] data = bytes(text);
    byte[] padded = new byte[data.length + 5];
    System.arraycopy(data, 0, padded, 0, data.length);
    padded[data.length] = '9';
    IoPressureScan scan = new IoPressureScan();
    boolean took = scan.scan(padded, data.length);
    if (mustScan) {
      assertThat(took).as("scans %s", text).isTrue();
    }
    if (!took) {
      return false;
    }
    IoPressure parsed = IoPressure.parse(text); // must not throw when the scanner took the text
    assertThat(scan.someMicros()).as("some of %s", text).isEqualTo(parsed.some().totalMicros());
    assertThat(scan.hasFull()).as("full of %s", text).isEqualTo(parsed.full().isPresent());
    if (scan.hasFull()) {
      assertThat(scan.fullMicros()).isEqualTo(parsed.full().get().totalMicros());
    }
    IoPressureScan loaded = new IoPressureScan();
    loaded.load(parsed);
    assertThat(loaded.someMicros()).isEqualTo(scan.someMicros());
    return true;
  }

  private static final String[] KEYS = {"avg10", "avg60", "avg300", "total", "avg1", "x"};
  private static final String[] VALUES = {
    "0.00",
    "22.40",
    "100.00",
    "1",
    "1.",
    ".5",
    "1.2.3",
    "abc",
    "",
    "-1",
    "1e3",
    "007",
    "9223372036854775807",
    "123456789012345678",
    "\u00e9"
  };

  private static String randomPressure(Random random) {
    StringBuilder text = new StringBuilder();
    int lines = random.nextInt(4);
    for (int l = 0; l < lines; l++) {
      text.append(random.nextInt(8) == 0 ? pick(random, "half", "some=1", "", " ", "\t") : "");
      text.append(l == 0 ? "some" : random.nextInt(5) == 0 ? "some" : "full");
      boolean complete = random.nextInt(3) > 0;
      if (complete) {
        text.append(" avg10=").append(random.nextInt(100)).append('.').append(random.nextInt(100));
        text.append(" avg60=1.00 avg300=0.50 total=").append(random.nextInt(10_000_000));
      }
      int tokens = random.nextInt(complete ? 3 : 6);
      for (int t = 0; t < tokens; t++) {
        text.append(random.nextInt(15) == 0 ? pick(random, "  ", "\t", " \r ") : " ");
        if (random.nextInt(25) == 0) {
          text.append(pick(random, "=1", "avg10", "total==1"));
        } else {
          text.append(pick(random, KEYS)).append('=');
          text.append(
              random.nextInt(3) == 0 ? pick(random, VALUES) : String.valueOf(random.nextInt(999)));
        }
      }
      text.append(random.nextInt(10) == 0 ? pick(random, " ", "\r") : "").append('\n');
    }
    return text.toString();
  }
}
