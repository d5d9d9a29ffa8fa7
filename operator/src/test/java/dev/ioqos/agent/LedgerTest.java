package dev.ioqos.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
        weight,
        null,
        Map.of("254:0", Map.of("wbps", 20_971_520L)),
        Map.of());
  }

  @Test
  void survivesARestart() {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));
    ledger.put(entry("u2", 10));
    ledger.remove("u2");

    Ledger reopened = Ledger.open(state);

    assertThat(reopened.entries()).containsExactly(entry("u1", 500));
    assertThat(reopened.get("u1").orElseThrow().limits().get("254:0"))
        .containsEntry("wbps", 20_971_520L);
  }

  @Test
  void anEmptyEntryIsForgotten() {
    Ledger ledger = Ledger.open(state);
    ledger.put(entry("u1", 500));

    ledger.put(new LedgerEntry("u1", "db", "p", "/k", "p", "t", null, null, null, null));

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
}
