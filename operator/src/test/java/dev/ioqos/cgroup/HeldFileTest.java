package dev.ioqos.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeldFileTest {
  @TempDir Path temp;
  CgroupDir pod;
  final CgroupFiles files = new CgroupFiles();
  final ReadBuffer buffer = new ReadBuffer(64);

  @BeforeEach
  void setUp() throws Exception {
    Path mount = Fixtures.copy("node/debian-6.12-systemd", temp).resolve("cgroup");
    pod = new CgroupTree(mount, "/kubepods.slice").below(CgroupTreeTest.POD);
  }

  @Test
  void readsTheFileFromItsStartEachTimeThroughOneDescriptor() throws Exception {
    try (HeldFile stat = new HeldFile(pod, IoFile.IO_STAT)) {
      assertThat(stat.open()).isFalse();
      files.read(stat, buffer);
      assertThat(buffer.text())
          .isEqualTo(
              "254:0 rbytes=1048576 wbytes=20971520 rios=256 wios=5120 dbytes=0 dios=0\n"
                  + "254:16 \n");
      assertThat(stat.open()).isTrue();

      // The kernel's file changes in place; the next read at offset 0 sees the new text, longer
      // and then shorter than before.
      String longer =
          "254:0 rbytes=2097152 wbytes=41943040 rios=512 wios=10240 dbytes=0 dios=0\n"
              + "254:16 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n";
      Files.writeString(pod.path().resolve("io.stat"), longer);
      files.read(stat, buffer);
      assertThat(buffer.text()).isEqualTo(longer);
      Files.writeString(pod.path().resolve("io.stat"), "254:0 rbytes=1\n");
      files.read(stat, buffer);
      assertThat(buffer.text()).isEqualTo("254:0 rbytes=1\n");
      assertThat(stat.open()).isTrue();
    }
  }

  @Test
  void aFailedReadClosesTheDescriptorAndTheNextReadOpensTheFileAgain() throws Exception {
    Path file = pod.path().resolve("io.stat");
    Files.delete(file);
    Files.createDirectory(file); // opens, but a read answers EISDIR
    HeldFile stat = new HeldFile(pod, IoFile.IO_STAT);

    assertThatThrownBy(() -> files.read(stat, buffer)).isInstanceOf(CgroupIoException.class);
    assertThat(stat.open()).isFalse();

    Files.delete(file);
    assertThatThrownBy(() -> files.read(stat, buffer))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.FILE_MISSING));
    assertThat(stat.open()).isFalse();

    Files.writeString(file, "254:0 rbytes=7\n");
    files.read(stat, buffer);
    assertThat(buffer.text()).isEqualTo("254:0 rbytes=7\n");
    assertThat(stat.open()).isTrue();
  }

  @Test
  void aSymlinkIsNeverFollowed() throws Exception {
    Path victim = temp.resolve("victim");
    Files.writeString(victim, "secret\n");
    Path file = pod.path().resolve("io.stat");
    Files.delete(file);
    Files.createSymbolicLink(file, victim);
    HeldFile stat = new HeldFile(pod, IoFile.IO_STAT);

    assertThatThrownBy(() -> files.read(stat, buffer))
        .isInstanceOfSatisfying(
            CgroupIoException.class,
            e -> assertThat(e.failure()).isEqualTo(CgroupFailure.UNSAFE_PATH));
    assertThat(buffer.length()).isZero();
    assertThat(stat.open()).isFalse();
  }

  @Test
  void aClosedFileIsNeverOpenedAgain() throws Exception {
    HeldFile stat = new HeldFile(pod, IoFile.IO_STAT);
    files.read(stat, buffer);
    stat.close();
    assertThat(stat.open()).isFalse();

    assertThatThrownBy(() -> files.read(stat, buffer)).isInstanceOf(CgroupIoException.class);
    assertThat(stat.open()).as("a read after close must not leak a descriptor").isFalse();
  }
}
