package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.ioqos.core.WeightRange;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The node-level record next to the pods' {@link Ledger}: for each QoS slice weight ioqos changed,
 * the value the slice held before ({@code original}, what a restore writes back) and the value
 * ioqos wrote ({@code written}, what drift is measured against). One small file, {@code
 * slices.json}, a {@link RecordFile} rewritten whole at each change, on disk before in memory: it
 * holds at most four records (two slices, two weight files).
 */
public final class SliceLedger {
  private static final String FILE = "slices.json";
  private static final TypeReference<List<Entry>> ENTRIES = new TypeReference<>() {};

  /**
   * One slice weight ioqos holds.
   *
   * @param cgroupPath the slice, relative to the cgroup mount
   * @param file {@code io.weight} or {@code io.bfq.weight}
   * @param original the slice's {@code default} weight before ioqos first wrote it
   * @param written the {@code default} weight ioqos last wrote and read back
   */
  public record Entry(String cgroupPath, String file, int original, int written) {
    public Entry {
      Objects.requireNonNull(cgroupPath, "cgroupPath");
      Objects.requireNonNull(file, "file");
    }

    String key() {
      return cgroupPath + " " + file;
    }
  }

  private final RecordFile<Entry> records;

  private SliceLedger(RecordFile<Entry> records) {
    this.records = records;
  }

  /**
   * Opens {@code slices.json} in {@code stateDir}; an unreadable file is moved aside and logged.
   */
  public static SliceLedger open(Path stateDir) {
    return new SliceLedger(
        RecordFile.open(
            stateDir,
            FILE,
            ENTRIES,
            Entry::key,
            "slice ledger",
            "the QoS slices' original weights it held cannot be restored automatically."));
  }

  /**
   * The records in {@code stateDir} for reading only ({@code explain}): nothing is created, a
   * missing or unreadable file reads as empty.
   */
  public static SliceLedger read(Path stateDir) {
    return new SliceLedger(RecordFile.read(stateDir, FILE, ENTRIES, Entry::key));
  }

  public Optional<Entry> get(String cgroupPath, WeightRange range) {
    return records.get(cgroupPath + " " + range.fileName());
  }

  public List<Entry> entries() {
    return records.entries();
  }

  /**
   * Records (or replaces) a slice weight, on disk before in memory.
   *
   * @throws LedgerWriteException when the file cannot be written (nothing changed)
   */
  public void put(Entry entry) {
    records.put(entry);
  }

  /**
   * Forgets a slice weight (restored), on disk before in memory.
   *
   * @throws LedgerWriteException when the file cannot be written (nothing changed)
   */
  public void remove(String cgroupPath, String file) {
    records.remove(cgroupPath + " " + file);
  }

  public Path file() {
    return records.file();
  }
}
