package dev.ioqos.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CgroupFilesTest {
  @TempDir Path temp;
  CgroupDir pod;
  final CgroupFiles files = new CgroupFiles();

  @BeforeEach
  void setUp() throws Exception {
    Path mount = Fixtures.copy("node/debian-6.12-systemd", temp).resolve("cgroup");
    pod = new CgroupTree(mount, "/kubepods.slice").below(CgroupTreeTest.POD);
  }

  @Test
  void readsWhatTheKernelPrinted() throws Exception {
    assertThat(files.read(pod, IoFile.IO_STAT))
        .isEqualTo(
            "254:0 rbytes=1048576 wbytes=20971520 rios=256 wios=5120 dbytes=0 dios=0\n254:16 \n");
  }

  @Test
  void aReusedBufferHoldsEachFileWholeWhetherLargerOrSmallerThanBefore() throws Exception {
    // A node with many disks prints an io.stat longer than the buffer: it grows while reading.
    StringBuilder many = new StringBuilder();
    for (int minor = 0; minor < 200; minor++) {
      many.append("8:")
          .append(minor)
          .append(" rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n");
    }
    files.write(pod, IoFile.IO_STAT, List.of(many.toString().strip()));
    ReadBuffer buffer = new ReadBuffer(64);

    files.read(pod, IoFile.IO_STAT, buffer);
    assertThat(buffer.text()).isEqualTo(many.toString());

    files.write(
        pod, IoFile.IO_STAT, List.of("254:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0"));
    files.read(pod, IoFile.IO_STAT, buffer);
    assertThat(buffer.text()).isEqualTo("254:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n");
    assertThat(buffer.length()).isEqualTo(buffer.text().length());
  }

  @Test
  void writesEachLineAndReplacesTheFixtureContent() throws Exception {
    files.write(pod, IoFile.IO_WEIGHT, List.of("default 500", "254:0 200"));

    assertThat(files.read(pod, IoFile.IO_WEIGHT)).isEqualTo("default 500\n254:0 200\n");
  }

  @Test
  void aMissingFileIsFileMissingWithPathAndData() throws Exception {
    assertThatThrownBy(() -> files.write(pod, IoFile.IO_LATENCY, List.of("254:0 target=5000")))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> {
              assertThat(e.failure()).isEqualTo(CgroupFailure.FILE_MISSING);
              assertThat(e.file()).isEqualTo(pod.path().resolve("io.latency"));
              assertThat(e.data()).isEqualTo("254:0 target=5000");
              assertThat(e.getMessage())
                  .startsWith("writing '254:0 target=5000' to " + pod.path().resolve("io.latency"));
            });
  }

  @Test
  void aRemovedCgroupIsGone() throws Exception {
    deleteTree(pod.path());

    assertThatThrownBy(() -> files.write(pod, IoFile.IO_MAX, List.of("254:0 wbps=1")))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.CGROUP_GONE));
    assertThatThrownBy(() -> files.read(pod, IoFile.IO_STAT))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.CGROUP_GONE));
  }

  @Test
  void aSymlinkedFileIsNeverWritten() throws Exception {
    Path victim = Files.writeString(temp.resolve("victim"), "untouched");
    Files.delete(pod.path().resolve("io.max"));
    Files.createSymbolicLink(pod.path().resolve("io.max"), victim);

    assertThatThrownBy(() -> files.write(pod, IoFile.IO_MAX, List.of("254:0 wbps=1")))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.UNSAFE_PATH));
    assertThat(Files.readString(victim)).isEqualTo("untouched");
  }

  /** The strerror texts glibc prints for the errnos KERNEL-FACTS.md recorded. */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "No such device, NO_SUCH_DEVICE",
    "Operation not supported, NOT_SUPPORTED",
    "Invalid argument, INVALID",
    "Numerical result out of range, OUT_OF_RANGE",
    "Device or resource busy, BUSY",
    "No such file or directory, CGROUP_GONE",
    "Permission denied, PERMISSION_DENIED",
    "Operation not permitted, PERMISSION_DENIED",
    "Too many levels of symbolic links, UNSAFE_PATH",
    "Input/output error, IO_ERROR",
  })
  void classifiesTheKernelsAnswers(String strerror, CgroupFailure expected) {
    assertThat(KernelAnswers.failureOfErrnoText(strerror)).isEqualTo(expected);
    assertThat(KernelAnswers.classify(new IOException(strerror), pod.path(), "x").failure())
        .isEqualTo(expected);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
