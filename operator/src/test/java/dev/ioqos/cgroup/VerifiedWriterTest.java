package dev.ioqos.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoWeight;
import dev.ioqos.core.WeightRange;
import dev.ioqos.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifiedWriterTest {
  static final DeviceId VDA = new DeviceId(254, 0);
  static final DeviceId VDB = new DeviceId(254, 16);

  @TempDir Path temp;
  CgroupDir pod;
  final VerifiedWriter writer = new VerifiedWriter(new CgroupFiles());

  @BeforeEach
  void setUp() throws Exception {
    Path mount = Fixtures.copy("node/debian-6.12-systemd", temp).resolve("cgroup");
    pod = new CgroupTree(mount, "/kubepods.slice").below(CgroupTreeTest.POD);
  }

  @Test
  void capsLandAsFullKernelLinesAndReadBack() throws Exception {
    IoLimits low = IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520).with(IoLimits.Key.WIOPS, 200);
    Map<DeviceId, IoLimits> wanted = new TreeMap<>(Map.of(VDA, low, VDB, IoLimits.NONE));

    var readBack = writer.writeMax(pod, wanted);

    assertThat(readBack.limitsFor(VDA)).isEqualTo(low);
    assertThat(readBack.limitsFor(VDB)).isEqualTo(IoLimits.NONE);
    assertThat(Files.readString(pod.path().resolve("io.max")))
        .startsWith("254:0 rbps=max wbps=20971520 riops=max wiops=200\n");
  }

  @Test
  void weightsLandAndReadBack() throws Exception {
    IoWeight readBack =
        writer.writeWeight(pod, WeightRange.IO_WEIGHT, 500, Map.of(VDA, OptionalLong.of(200)));

    assertThat(readBack.defaultWeight()).isEqualTo(500);
    assertThat(readBack.effectiveWeight(VDA)).isEqualTo(200);
    assertThat(readBack.effectiveWeight(VDB)).isEqualTo(500);
  }

  @Test
  void bfqWeightsGoToTheirOwnFileAndRange() throws Exception {
    writer.writeWeight(pod, WeightRange.BFQ_WEIGHT, 1000, Map.of());

    assertThat(Files.readString(pod.path().resolve("io.bfq.weight"))).isEqualTo("default 1000\n");
    assertThatThrownBy(() -> writer.writeWeight(pod, WeightRange.BFQ_WEIGHT, 1001, Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aValueTheKernelDoesNotKeepIsAMismatchNamingBoth() {
    // Stands in for a kernel that accepts the write and keeps its old value.
    CgroupFiles forgetful =
        new CgroupFiles() {
          @Override
          public void write(CgroupDir dir, IoFile file, List<String> lines) {}
        };
    VerifiedWriter verified = new VerifiedWriter(forgetful);

    assertThatThrownBy(
            () ->
                verified.writeMax(
                    pod, Map.of(VDA, IoLimits.NONE.with(IoLimits.Key.RBPS, 1_048_576))))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> {
              assertThat(e.failure()).isEqualTo(CgroupFailure.READBACK_MISMATCH);
              assertThat(e.data()).isEqualTo("254:0 rbps=1048576 wbps=max riops=max wiops=max");
              assertThat(e.getMessage())
                  .contains("expected '254:0 rbps=1048576 wbps=max riops=max wiops=max'")
                  .contains("read back '254:0 rbps=max wbps=max riops=max wiops=max'");
            });
    assertThatThrownBy(() -> verified.writeWeight(pod, WeightRange.IO_WEIGHT, 10, Map.of()))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.getMessage()).contains("read back 'default 100'"));
  }

  @Test
  void aMissingIoLatencyFileIsReportedAsSuch() {
    assertThatThrownBy(() -> writer.writeLatency(pod, Map.of(VDA, OptionalLong.of(5000))))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.FILE_MISSING));
  }

  @Test
  void latencyTargetsLandAndReset() throws Exception {
    Files.writeString(pod.path().resolve("io.latency"), "");

    assertThat(writer.writeLatency(pod, Map.of(VDA, OptionalLong.of(5000))).targetMicros(VDA))
        .hasValue(5000);
    assertThat(writer.writeLatency(pod, Map.of(VDA, OptionalLong.empty())).targetMicros(VDA))
        .isEmpty();
  }

  /**
   * io.latency as Linux 6.12 with CONFIG_BLK_CGROUP_IOLATENCY answered in the kernel tests
   * (Kernel612IoLatencyIT): one device per write, {@code target=<us>} kept per device and printed
   * back as {@code MAJ:MIN target=<us>} only for devices that have one, newest device first (the
   * cgroup's list of block groups), {@code target=max} removing the device's line.
   */
  @Test
  void latencyTargetsAsTheKernelKeepsAndPrintsThem() throws Exception {
    Map<DeviceId, String> kept = new java.util.LinkedHashMap<>();
    CgroupFiles kernel =
        new CgroupFiles() {
          @Override
          public void write(CgroupDir dir, IoFile file, List<String> lines)
              throws CgroupIoException {
            for (String line : lines) {
              String[] words = line.split(" ");
              String[] majMin = words[0].split(":");
              DeviceId device =
                  new DeviceId(Integer.parseInt(majMin[0]), Integer.parseInt(majMin[1]));
              String target = words[1].substring("target=".length());
              kept.remove(device);
              if (!target.equals("max")) {
                // Printed newest block group first.
                Map<DeviceId, String> older = new java.util.LinkedHashMap<>(kept);
                kept.clear();
                kept.put(device, target);
                kept.putAll(older);
              }
            }
          }

          @Override
          public String read(CgroupDir dir, IoFile file) {
            StringBuilder text = new StringBuilder();
            kept.forEach((device, micros) -> text.append(device + " target=" + micros + "\n"));
            return text.toString();
          }
        };
    VerifiedWriter verified = new VerifiedWriter(kernel);

    assertThat(verified.writeLatency(pod, Map.of(VDA, OptionalLong.of(250))).targetMicros(VDA))
        .hasValue(250);
    var both = verified.writeLatency(pod, Map.of(VDB, OptionalLong.of(10_000)));
    assertThat(kernel.read(pod, IoFile.IO_LATENCY))
        .isEqualTo("254:16 target=10000\n254:0 target=250\n");
    assertThat(both.targetMicros(VDA)).hasValue(250);
    assertThat(both.targetMicros(VDB)).hasValue(10_000);
    var reset = verified.writeLatency(pod, Map.of(VDA, OptionalLong.empty()));
    assertThat(reset.targetMicros(VDA)).isEmpty();
    assertThat(reset.targetMicros(VDB)).hasValue(10_000);
    verified.writeLatency(pod, Map.of(VDB, OptionalLong.empty()));
    assertThat(kernel.read(pod, IoFile.IO_LATENCY)).isEmpty();
  }

  @Test
  void garbageInTheFileIsAnErrorNotACrash() throws Exception {
    Files.writeString(pod.path().resolve("io.max"), "254:0 wbps=abc\n");

    assertThatThrownBy(() -> writer.readMax(pod))
        .isInstanceOfSatisfying(
            CgroupIoException.class, e -> assertThat(e.getMessage()).contains("254:0 wbps=abc"));
  }
}
