package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small node-level record kept as one JSON list, rewritten whole at each change (temporary file,
 * sync, rename: {@link StateFiles}), write-ahead like the pods' {@link Ledger}: a change reaches
 * memory only once it is on disk, so a failed write ({@link LedgerWriteException}) leaves both as
 * they were and the caller writes no cgroup file the record does not hold. Used for the QoS slice
 * weights ({@link SliceLedger}) and the latency loop's dynamic caps ({@link LoopLedger}).
 *
 * @param <E> one record, a JSON-mapped record type
 */
final class RecordFile<E> {
  private static final Logger LOG = LoggerFactory.getLogger(RecordFile.class);

  private final Path file;
  private final TypeReference<List<E>> type;
  private final Function<E, String> key;
  private final ObjectMapper json =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private Map<String, E> byKey = new TreeMap<>();

  private RecordFile(Path file, TypeReference<List<E>> type, Function<E, String> key) {
    this.file = file;
    this.type = type;
    this.key = key;
  }

  /**
   * Opens {@code name} in {@code stateDir}, creating the directory; an unreadable file is moved
   * aside and logged at error level with {@code lost} (what cannot be restored now).
   */
  static <E> RecordFile<E> open(
      Path stateDir,
      String name,
      TypeReference<List<E>> type,
      Function<E, String> key,
      String what,
      String lost) {
    StateFiles.createDirectory(stateDir);
    RecordFile<E> records = new RecordFile<>(stateDir.resolve(name), type, key);
    if (Files.exists(records.file)) {
      try {
        records.load();
      } catch (IOException | RuntimeException e) {
        Path aside = StateFiles.moveAside(records.file);
        LOG.error(
            "The {} {} could not be read ({}); moved to {}: {}",
            what,
            records.file,
            e.getMessage(),
            aside,
            lost);
      }
    }
    return records;
  }

  /**
   * The records of {@code name} in {@code stateDir} for reading only: nothing is created, a missing
   * or unreadable file reads as empty.
   */
  static <E> RecordFile<E> read(
      Path stateDir, String name, TypeReference<List<E>> type, Function<E, String> key) {
    RecordFile<E> records = new RecordFile<>(stateDir.resolve(name), type, key);
    if (Files.isRegularFile(records.file)) {
      try {
        records.load();
      } catch (IOException | RuntimeException e) {
        LOG.warn("cannot read {}: {}", records.file, e.getMessage());
      }
    }
    return records;
  }

  private void load() throws IOException {
    for (E entry : json.readValue(file.toFile(), type)) {
      byKey.put(key.apply(entry), entry);
    }
  }

  synchronized Optional<E> get(String entryKey) {
    return Optional.ofNullable(byKey.get(entryKey));
  }

  synchronized List<E> entries() {
    return List.copyOf(byKey.values());
  }

  /**
   * Records (or replaces) an entry: on disk first, then in memory.
   *
   * @throws LedgerWriteException when the file cannot be written; nothing changed then
   */
  synchronized void put(E entry) {
    if (entry.equals(byKey.get(key.apply(entry)))) {
      return;
    }
    Map<String, E> next = new TreeMap<>(byKey);
    next.put(key.apply(entry), entry);
    commit(next);
  }

  /**
   * Forgets an entry: on disk first, then in memory.
   *
   * @throws LedgerWriteException when the file cannot be written; nothing changed then
   */
  synchronized void remove(String entryKey) {
    if (!byKey.containsKey(entryKey)) {
      return;
    }
    Map<String, E> next = new TreeMap<>(byKey);
    next.remove(entryKey);
    commit(next);
  }

  Path file() {
    return file;
  }

  private void commit(Map<String, E> next) {
    try {
      StateFiles.replace(file, json.writeValueAsBytes(new ArrayList<>(next.values())));
    } catch (IOException e) {
      throw new LedgerWriteException(file, e);
    }
    byKey = next;
  }
}
