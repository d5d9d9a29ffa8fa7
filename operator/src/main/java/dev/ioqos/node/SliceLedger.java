package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ioqos.core.WeightRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-level record next to the pods' {@link Ledger}: for each QoS slice weight ioqos changed,
 * the value the slice held before ({@code original}, what a restore writes back) and the value
 * ioqos wrote ({@code written}, what drift is measured against). One small file, {@code
 * slices.json}, rewritten whole (temporary file, sync, rename) at each change: it holds at most
 * four records (two slices, two weight files).
 */
public final class SliceLedger {
  private static final Logger LOG = LoggerFactory.getLogger(SliceLedger.class);
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

  private final Path file;
  private final ObjectMapper json =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private final Map<String, Entry> byKey = new TreeMap<>();

  private SliceLedger(Path file) {
    this.file = file;
  }

  /**
   * Opens {@code slices.json} in {@code stateDir}; an unreadable file is moved aside and logged.
   */
  public static SliceLedger open(Path stateDir) {
    StateFiles.createDirectory(stateDir);
    SliceLedger ledger = new SliceLedger(stateDir.resolve("slices.json"));
    if (Files.exists(ledger.file)) {
      try {
        ledger.load();
      } catch (IOException | RuntimeException e) {
        Path aside = StateFiles.moveAside(ledger.file);
        LOG.error(
            "The slice ledger {} could not be read ({}); moved to {}: the QoS slices' original"
                + " weights it held cannot be restored automatically.",
            ledger.file,
            e.getMessage(),
            aside);
      }
    }
    return ledger;
  }

  /**
   * The records in {@code stateDir} for reading only ({@code explain}): nothing is created, a
   * missing or unreadable file reads as empty.
   */
  public static SliceLedger read(Path stateDir) {
    SliceLedger ledger = new SliceLedger(stateDir.resolve("slices.json"));
    if (Files.isRegularFile(ledger.file)) {
      try {
        ledger.load();
      } catch (IOException | RuntimeException e) {
        LOG.warn("cannot read the slice ledger {}: {}", ledger.file, e.getMessage());
      }
    }
    return ledger;
  }

  private void load() throws IOException {
    for (Entry entry : json.readValue(file.toFile(), ENTRIES)) {
      byKey.put(entry.key(), entry);
    }
  }

  public synchronized Optional<Entry> get(String cgroupPath, WeightRange range) {
    return Optional.ofNullable(byKey.get(cgroupPath + " " + range.fileName()));
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(byKey.values());
  }

  /** Records (or replaces) a slice weight and persists. */
  public synchronized void put(Entry entry) {
    if (!entry.equals(byKey.put(entry.key(), entry))) {
      persist();
    }
  }

  /** Forgets a slice weight (restored) and persists. */
  public synchronized void remove(String cgroupPath, String file) {
    if (byKey.remove(cgroupPath + " " + file) != null) {
      persist();
    }
  }

  public Path file() {
    return file;
  }

  private void persist() {
    try {
      StateFiles.replace(file, json.writeValueAsBytes(new ArrayList<>(byKey.values())));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the slice ledger " + file, e);
    }
  }
}
