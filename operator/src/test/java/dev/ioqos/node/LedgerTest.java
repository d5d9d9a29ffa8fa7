package dev.ioqos.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ioqos.core.DeviceId;
import dev.ioqos.core.IoLimits;
import dev.ioqos.core.IoSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerTest {
  @TempDir Path state;

  static LedgerEntry entry(String uid, Integer weight) {
    return new LedgerEntry(
        uid,
        "db",
        "postgres-0",
        "/kubepods.slice/x.slice",
        "storage",
        "high",
        new IoSettings(
            weight == null ? OptionalInt.empty() : OptionalInt.of(weight),
            OptionalInt.empty(),
            Map.of(DeviceId.parse("254:0"), IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520L)),
            Map.of()));
  }

  @Test
  void survivesARestart() {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    ledger.remove("u2");

    Ledger reopened = Ledger.open(state);

    assertThat(reopened.entries()).containsExactly(entry("u1", 500));
    assertThat(reopened.get("u1").orElseThrow().held().limits().get(DeviceId.parse("254:0")))
        .isEqualTo(IoLimits.NONE.with(IoLimits.Key.WBPS, 20_971_520L));
  }

  @Test
  void readsTheFileFormatOfEarlierVersions() throws Exception {
    // The file form is plain JSON keyed by MAJ:MIN and io.max key; earlier versions also wrote an
    // "empty" field. A node upgraded in place must still revert what the old agent wrote.
    Files.writeString(
        state.resolve("ledger.json"),
        """
        [{"uid":"u1","namespace":"db","name":"p","cgroupPath":"/k/p","policy":"storage",\
        "tier":"low","bfqWeight":10,"limits":{"254:16":{"wbps":10485760,"wiops":100}},\
        "latencyTargetsMicros":{"254:0":5000},"empty":false}]
        """);

    LedgerEntry entry = Ledger.open(state).get("u1").orElseThrow();

    assertThat(entry.held().ioWeight()).isEmpty();
    assertThat(entry.held().bfqWeight()).hasValue(10);
    assertThat(entry.held().kernelLines())
        .containsExactly(
            "io.bfq.weight default 10",
            "io.max 254:16 rbps=max wbps=10485760 riops=max wiops=100",
            "io.latency 254:0 target=5000");
  }

  @Test
  void anEmptyEntryIsForgotten() {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));

    ledger.put(new LedgerEntry("u1", "db", "p", "/k", "p", "t", IoSettings.NONE));

    assertThat(Ledger.open(state).get("u1")).isEmpty();
  }

  @Test
  void leavesNoTemporaryFileBehind() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));

    try (var files = Files.list(state)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("ledger.json");
    }
  }

  @Test
  void theSnapshotIsReadableByAllAndWrittenByRootOnly() throws Exception {
    Ledger ledger = Ledger.open(state);
    for (int i = 0; i <= Ledger.MIN_JOURNAL; i++) {
      ledger.put(entry("u" + i, i + 1)); // the first write and a fold are snapshots
    }

    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(state.resolve("ledger.json"))))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void anUnreadableLedgerIsMovedAsideNotTrusted() throws Exception {
    Files.writeString(state.resolve("ledger.json"), "{not json");

    Ledger ledger = Ledger.open(state);

    assertThat(ledger.entries()).isEmpty();
    try (var files = Files.list(state)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(name -> name.startsWith("ledger.json.corrupt-"));
    }
    ledger.put(entry("u1", 1));
    assertThat(Ledger.open(state).entries()).hasSize(1);
  }

  @Test
  void aChangeAppendsOneJournalLineAndLeavesTheSnapshotAlone() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    String snapshot = Files.readString(state.resolve("ledger.json"));

    ledger.put(entry("u2", 10));
    ledger.remove("u1");

    assertThat(Files.readString(state.resolve("ledger.json"))).isEqualTo(snapshot);
    List<String> lines = Files.readAllLines(state.resolve("ledger.journal"));
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).contains("\"uid\":\"u2\"").contains("\"weight\":10");
    assertThat(lines.get(1)).startsWith("{\"uid\":\"u1\",\"entry\":null,\"crc\":\"");
  }

  @Test
  void reopeningReplaysTheJournalAndFoldsItIntoTheSnapshot() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    ledger.put(entry("u1", 100));
    ledger.remove("u2");

    Ledger reopened = Ledger.open(state);

    assertThat(reopened.entries()).containsExactly(entry("u1", 100));
    assertThat(state.resolve("ledger.journal")).doesNotExist();
    assertThat(Ledger.open(state).entries()).containsExactly(entry("u1", 100));
  }

  @Test
  void aLastLineCutShortByACrashIsDroppedAndTheRestKept() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    Files.writeString(
        state.resolve("ledger.journal"),
        "{\"uid\":\"u3\",\"entry\":{\"uid\":\"u3\",\"wei",
        java.nio.file.StandardOpenOption.APPEND);

    assertThat(Ledger.open(state).entries()).containsExactly(entry("u1", 500), entry("u2", 10));
  }

  @Test
  void aJournalReplayedOverASnapshotThatHoldsItChangesNothing() throws Exception {
    // A crash after the new snapshot was renamed in and before the journal was deleted.
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    ledger.remove("u1");
    String journal = Files.readString(state.resolve("ledger.journal"));
    Ledger.open(state); // folds the journal into the snapshot
    Files.writeString(state.resolve("ledger.journal"), journal);

    assertThat(Ledger.open(state).entries()).containsExactly(entry("u2", 10));
  }

  @Test
  void theJournalIsFoldedOnceItOutgrowsTheLedger() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 1));
    for (int i = 2; i <= Ledger.MIN_JOURNAL + 1; i++) {
      ledger.put(entry("u1", i));
    }
    assertThat(Files.readAllLines(state.resolve("ledger.journal"))).hasSize(Ledger.MIN_JOURNAL);

    ledger.put(entry("u1", 1000));

    assertThat(state.resolve("ledger.journal")).doesNotExist();
    assertThat(Files.readString(state.resolve("ledger.json"))).contains("\"weight\":1000");
    assertThat(Ledger.open(state).entries()).containsExactly(entry("u1", 1000));
  }

  @Test
  void concurrentChangesAllLand() throws Exception {
    Ledger ledger = Ledger.open(state);
    List<Thread> threads = new java.util.ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int base = t * 100;
      threads.add(
          new Thread(
              () -> {
                for (int i = 0; i < 100; i++) {
                  ledger.put(entry("u" + (base + i), i + 1));
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(Ledger.open(state).entries()).hasSize(400);
  }

  @Test
  void aFailedWriteLeavesTheLedgerAsItWasAndALaterOneLands() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10)); // the journal exists now
    Path journal = state.resolve("ledger.journal");
    Files.delete(journal);
    Files.createDirectory(journal); // every append fails now, also for root

    assertThatThrownBy(() -> ledger.put(entry("u3", 20)))
        .isInstanceOf(LedgerWriteException.class)
        .hasMessageContaining("ledger.journal");
    assertThatThrownBy(() -> ledger.remove("u1")).isInstanceOf(LedgerWriteException.class);

    assertThat(ledger.get("u3")).isEmpty();
    assertThat(ledger.get("u1")).contains(entry("u1", 500));
    assertThat(ledger.problem()).isPresent();
    assertThat(ledger.writeFailures()).isEqualTo(2);

    Files.delete(journal); // u2's line goes with it: the next write must be a whole snapshot
    ledger.put(entry("u3", 20));
    assertThat(ledger.problem()).isEmpty();
    assertThat(Ledger.open(state).entries())
        .containsExactly(entry("u1", 500), entry("u2", 10), entry("u3", 20));
  }

  @Test
  void aTornLineInTheMiddleCostsOnlyItself() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    ledger.put(entry("u3", 30));
    Path journal = state.resolve("ledger.journal");
    List<String> lines = Files.readAllLines(journal);
    String torn = lines.get(0).substring(0, 40);
    Files.writeString(journal, torn + "\n" + lines.get(1) + "\n");

    assertThat(Ledger.open(state).entries()).containsExactly(entry("u1", 500), entry("u3", 30));
  }

  @Test
  void aLineFailingItsChecksumIsSkippedAndTheLinesAfterItKept() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    ledger.put(entry("u3", 30));
    Path journal = state.resolve("ledger.journal");
    List<String> lines = Files.readAllLines(journal);
    // Still valid JSON, one digit changed: only the checksum tells.
    String flipped = lines.get(0).replace("\"weight\":10", "\"weight\":90");
    assertThat(flipped).isNotEqualTo(lines.get(0));
    Files.writeString(journal, flipped + "\n" + lines.get(1) + "\n");

    assertThat(Ledger.open(state).entries()).containsExactly(entry("u1", 500), entry("u3", 30));
  }

  @Test
  void journalLinesOfEarlierVersionsWithoutAChecksumAreRead() throws Exception {
    Ledger.open(state).put(entry("u1", 500));
    Files.writeString(
        state.resolve("ledger.journal"),
        "{\"uid\":\"u1\",\"entry\":null}\n"
            + "{\"uid\":\"u2\",\"entry\":{\"uid\":\"u2\",\"namespace\":\"db\",\"name\":\"p\","
            + "\"weight\":10}}\n");

    assertThat(Ledger.open(state).entries()).extracting(LedgerEntry::uid).containsExactly("u2");
  }

  @Test
  void anAppendAfterATornTailStartsOnAWholeLine() throws Exception {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    Path journal = state.resolve("ledger.journal");
    Files.writeString(journal, "{\"uid\":\"u9\",\"ent", java.nio.file.StandardOpenOption.APPEND);

    ledger.put(entry("u3", 30));

    assertThat(Files.readAllLines(journal)).hasSize(2).allMatch(line -> line.contains("\"crc\""));
    assertThat(Ledger.open(state).entries())
        .containsExactly(entry("u1", 500), entry("u2", 10), entry("u3", 30));
  }

  @Test
  void aStateDirectoryIsLockedOnceAndFreeAfterClose() {
    try (StateDirLock held = StateDirLock.acquire(state)) {
      assertThat(held).isNotNull();
      assertThatThrownBy(() -> StateDirLock.acquire(state))
          .isInstanceOf(StateDirBusyException.class)
          .hasMessageContaining(state.toString());
    }
    StateDirLock.acquire(state).close();
  }
}
