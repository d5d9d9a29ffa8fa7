package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.WeightRange;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node-level records (slice weights, the latency loop's caps): on disk before in memory. */
class RecordFileTest {
  @TempDir Path state;

  private static final SliceLedger.Entry BURSTABLE =
      new SliceLedger.Entry("/kubepods/burstable", "io.weight", 100, 300);

  @Test
  void aSliceWeightIsOnDiskAndReadBackByTheNextAgent() {
    SliceLedger.open(state).put(BURSTABLE);

    SliceLedger again = SliceLedger.open(state);
    assertThat(again.get("/kubepods/burstable", WeightRange.IO_WEIGHT)).contains(BURSTABLE);
    assertThat(SliceLedger.read(state).entries()).containsExactly(BURSTABLE);
  }

  @Test
  void aFailedWriteChangesNeitherTheFileNorMemory() throws Exception {
    SliceLedger slices = SliceLedger.open(state);
    slices.put(BURSTABLE);
    String before = Files.readString(slices.file());
    // The rename over the file fails now, also for root: a non-empty directory in its place.
    Path file = slices.file();
    Files.delete(file);
    Files.createDirectories(file.resolve("blocker"));

    SliceLedger.Entry changed = new SliceLedger.Entry("/kubepods/burstable", "io.weight", 100, 50);
    assertThatThrownBy(() -> slices.put(changed))
        .isInstanceOf(LedgerWriteException.class)
        .hasMessageContaining("slices.json");
    assertThatThrownBy(() -> slices.remove("/kubepods/burstable", "io.weight"))
        .isInstanceOf(LedgerWriteException.class);
    assertThat(slices.entries()).containsExactly(BURSTABLE);

    Files.delete(file.resolve("blocker"));
    Files.delete(file);
    slices.put(changed); // space back: the next write lands
    assertThat(SliceLedger.open(state).entries()).containsExactly(changed);
    assertThat(before).contains("\"written\":300");
  }

  @Test
  void aLoopCapFailedToRecordIsNotKept() throws Exception {
    LoopLedger loop = LoopLedger.open(state);
    Files.createDirectories(loop.file().resolve("blocker"));
    LoopLedger.Entry cap =
        new LoopLedger.Entry("u1", "/kubepods/pod-u1", "8:16 rbps=max", "8:16 rbps=1048576");

    assertThatThrownBy(() -> loop.put(cap)).isInstanceOf(LedgerWriteException.class);
    assertThat(loop.entries()).isEmpty();
  }

  @Test
  void anUnreadableFileIsMovedAsideAndTheRecordStartsEmpty() throws Exception {
    Files.writeString(state.resolve("loop.json"), "[{not json");

    assertThat(LoopLedger.open(state).entries()).isEmpty();
    try (var files = Files.list(state)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(name -> name.startsWith("loop.json.corrupt-"));
    }
  }
}
