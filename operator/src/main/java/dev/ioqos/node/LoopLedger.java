package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The latency loop's record, beside the pods' {@link Ledger} and the {@link SliceLedger}: for each
 * pod disk the loop holds below its tier's static limits, the static io.max line to restore.
 * Written before the loop lowers a cap, removed after it restored the static line, so that after a
 * crash or a restart the agent puts every pod back to its static values before anything else
 * ({@code loop.json}, a {@link RecordFile}: on disk before in memory).
 */
public final class LoopLedger {
  private static final TypeReference<List<Entry>> ENTRIES = new TypeReference<>() {};

  /**
   * One dynamic cap.
   *
   * @param cgroupPath the pod's cgroup, relative to the cgroup mount
   * @param staticLine the io.max line of the tier's static limits (all {@code max} when none)
   * @param writtenLine the io.max line the loop wrote last
   */
  public record Entry(String uid, String cgroupPath, String staticLine, String writtenLine) {
    public Entry {
      Objects.requireNonNull(uid, "uid");
      Objects.requireNonNull(cgroupPath, "cgroupPath");
      Objects.requireNonNull(staticLine, "staticLine");
      Objects.requireNonNull(writtenLine, "writtenLine");
    }

    String key() {
      return uid + " " + staticLine.split(" ", 2)[0];
    }
  }

  private final RecordFile<Entry> records;

  private LoopLedger(RecordFile<Entry> records) {
    this.records = records;
  }

  /** Opens {@code loop.json} in {@code stateDir}; an unreadable file is moved aside and logged. */
  public static LoopLedger open(Path stateDir) {
    return new LoopLedger(
        RecordFile.open(
            stateDir,
            "loop.json",
            ENTRIES,
            Entry::key,
            "latency loop's record",
            "pods it had throttled keep their caps until the pod pass rewrites their tier's"
                + " values."));
  }

  public List<Entry> entries() {
    return records.entries();
  }

  /**
   * Records (or replaces) a dynamic cap, on disk before in memory.
   *
   * @throws LedgerWriteException when the file cannot be written (nothing changed)
   */
  public void put(Entry entry) {
    records.put(entry);
  }

  /**
   * Forgets a cap (restored), on disk before in memory.
   *
   * @throws LedgerWriteException when the file cannot be written (nothing changed)
   */
  public void remove(Entry entry) {
    records.remove(entry.key());
  }

  public Path file() {
    return records.file();
  }
}
