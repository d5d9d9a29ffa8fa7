package dev.ioqos.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The byte scanner of the metrics scrape against {@link IoStat#parse}: the same counters on the
 * kernel's strings (KERNEL-FACTS.md and the captured node fixtures), and on randomized text either
 * the same result or a decline, never a different one.
 */
class IoStatScanTest {
  static final String TWO_DISKS =
      "254:16 rbytes=8192 wbytes=5714739200 rios=2 wios=5450 dbytes=0 dios=0\n"
          + "254:0 rbytes=67129344 wbytes=5081153536 rios=133 wios=9472 dbytes=0 dios=0\n";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "254:0 rbytes=67129344 wbytes=67108864 rios=133 wios=64 dbytes=0 dios=0 cost.usage=752545\n",
        "254:16 \n254:0 rbytes=67129344 wbytes=4961886208 rios=133 wios=4738 dbytes=0 dios=0\n",
        "254:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6 cost.vrate=100.00 depth=max\n",
        "254:0 wbytes=4096 wios=1\n",
        "",
        "\n"
      })
  void takesTheKernelsStringsWithTheParsersCounters(String text) {
    assertScansLikeTheParser(text, true);
  }

  @Test
  void takesEveryCapturedIoStatOfTheNodeFixtures() throws IOException {
    List<Path> files = fixtureFiles("io.stat");
    assertThat(files).hasSizeGreaterThan(3);
    for (Path file : files) {
      assertScansLikeTheParser(Files.readString(file), true);
    }
  }

  @Test
  void readsTheCountersByDevice() {
    IoStatScan scan = new IoStatScan();
    assertThat(scan.scan(bytes(TWO_DISKS), bytes(TWO_DISKS).length)).isTrue();
    assertThat(scan.count()).isEqualTo(2);
    assertThat(scan.major(1)).isEqualTo(254);
    assertThat(scan.minor(1)).isZero();
    assertThat(scan.value(1, IoStatScan.WBYTES)).isEqualTo(5081153536L);
    assertThat(scan.value(0, IoStatScan.WIOS)).isEqualTo(5450);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "254:0 rbytes=abc wbytes=0\n",
        "254:0 wios=-1\n",
        "254:0 dios=\n",
        "254:0 rbytes\n",
        "vda rbytes=1\n",
        "rbytes=1\n",
        "254:0 rbytes=1\n254:0 rbytes=2\n",
        "254:0 =5\n",
        "1234567890:0 rbytes=1\n",
        "254:0 rbytes=1234567890123456789\n",
        "254:0 rbytes=\u00e9\n",
        "254:0\u00a0rbytes=1\n",
      })
  void declinesWhatItIsNotSureOfAndTheParserDecides(String text) {
    byte[] data = bytes(text);
    assertThat(new IoStatScan().scan(data, data.length)).isFalse();
    assertScansLikeTheParser(text, false);
  }

  @Test
  void randomizedTextIsScannedLikeTheParserOrDeclined() {
    Random random = new Random(42);
    int scanned = 0;
    for (int i = 0; i < 200_000; i++) {
      String text = randomIoStat(random);
      if (assertScansLikeTheParser(text, false)) {
        scanned++;
      }
    }
    assertThat(scanned).as("most random files are of the common shape").isGreaterThan(50_000);
  }

  @Test
  void aReusedScannerForgetsThePreviousFile() {
    IoStatScan scan = new IoStatScan();
    byte[] many = bytes("1:1 rbytes=1\n2:2 rbytes=2\n3:3 rbytes=3\n4:4 rbytes=4\n5:5 rbytes=5\n");
    assertThat(scan.scan(many, many.length)).isTrue();
    byte[] one = bytes("9:9 wios=7\n");
    assertThat(scan.scan(one, one.length)).isTrue();
    assertThat(scan.count()).isOne();
    assertThat(scan.value(0, IoStatScan.RBYTES)).isZero();
    assertThat(scan.value(0, IoStatScan.WIOS)).isEqualTo(7);
  }

  /**
   * Scans {@code text} (also with trailing garbage in the buffer beyond its length) and checks that
   * an accepted scan equals the parser's result. Returns whether the scanner took it.
   */
  static boolean assertScansLikeTheParser(String text, boolean mustScan) {
    byte[] data = bytes(text);
    byte[] padded = new byte[data.length + 7];
    System.arraycopy(data, 0, padded, 0, data.length);
    padded[data.length] = 'x';
    IoStatScan scan = new IoStatScan();
    boolean took = scan.scan(padded, data.length);
    if (mustScan) {
      assertThat(took).as("scans %s", text).isTrue();
    }
    if (!took) {
      return false;
    }
    Map<DeviceId, List<Long>> expected = new TreeMap<>();
    IoStat.parse(text) // must not throw when the scanner took the text
        .forEach(
            (device, entry) ->
                expected.put(
                    device,
                    List.of(
                        entry.rbytes(),
                        entry.wbytes(),
                        entry.rios(),
                        entry.wios(),
                        entry.dbytes(),
                        entry.dios())));
    Map<DeviceId, List<Long>> actual = new TreeMap<>();
    for (int d = 0; d < scan.count(); d++) {
      Long[] values = new Long[IoStatScan.FIELDS];
      for (int f = 0; f < IoStatScan.FIELDS; f++) {
        values[f] = scan.value(d, f);
      }
      actual.put(new DeviceId(scan.major(d), scan.minor(d)), List.of(values));
    }
    assertThat(actual).as("scan of %s", text).isEqualTo(expected);
    IoStatScan loaded = new IoStatScan();
    loaded.load(IoStat.parse(text));
    assertThat(loaded.count()).isEqualTo(scan.count());
    return true;
  }

  private static final String[] KEYS = {
    "rbytes", "wbytes", "rios", "wios", "dbytes", "dios", "cost.usage", "cost.vrate", "depth", "x"
  };
  private static final String[] VALUES = {
    "0",
    "1",
    "4096",
    "67129344",
    "5714739200",
    "9223372036854775807",
    "18446744073709551615",
    "100.00",
    "max",
    "",
    "-1",
    "+5",
    "007",
    "123456789012345678",
    "\u00e9"
  };

  private static String randomIoStat(Random random) {
    StringBuilder text = new StringBuilder();
    int lines = random.nextInt(4);
    for (int l = 0; l < lines; l++) {
      if (random.nextInt(20) == 0) {
        text.append(pick(random, " ", "\t", "", "\r"));
      }
      text.append(
          random.nextInt(10) == 0
              ? pick(random, "vda", "254:", ":0", "2147483648:0", "8:x")
              : random.nextInt(3) + 253 + ":" + pick(random, "0", "16", "32", "007"));
      int tokens = random.nextInt(8);
      for (int t = 0; t < tokens; t++) {
        text.append(random.nextInt(15) == 0 ? pick(random, "  ", "\t", " \r ") : " ");
        if (random.nextInt(25) == 0) {
          text.append(pick(random, "=1", "rbytes", "rbytes==1", "a=b=c"));
        } else {
          text.append(pick(random, KEYS)).append('=');
          text.append(random.nextInt(4) == 0 ? pick(random, VALUES) : random.nextInt(1_000_000));
        }
      }
      text.append(random.nextInt(10) == 0 ? pick(random, " ", "\r", "") : "").append('\n');
      if (random.nextInt(15) == 0) {
        text.append(pick(random, "\n", "  \n", "\t\n"));
      }
    }
    if (random.nextInt(10) == 0 && text.length() > 0) {
      text.setLength(text.length() - 1); // no final newline
    }
    return text.toString();
  }

  static String pick(Random random, String... options) {
    return options[random.nextInt(options.length)];
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** The files named {@code name} in the captured node fixtures. */
  static List<Path> fixtureFiles(String name) {
    try (Stream<Path> walk =
        Files.walk(Paths.get(IoStatScanTest.class.getClassLoader().getResource("node").toURI()))) {
      return walk.filter(p -> p.getFileName().toString().equals(name)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
