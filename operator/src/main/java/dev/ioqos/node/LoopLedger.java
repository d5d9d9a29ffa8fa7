package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The latency loop's record, beside the pods' {@link Ledger} and the {@link SliceLedger}: for each
 * pod disk the loop holds below its tier's static limits, the static io.max line to restore.
 * Written before the loop lowers a cap, removed after it restored the static line, so that after a
 * crash or a restart the agent puts every pod back to its static values before anything else
 * ({@code loop.json}, rewritten whole at each change through {@link StateFiles}).
 */
public final class LoopLedger {
  private static final Logger LOG = LoggerFactory.getLogger(LoopLedger.class);
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

  private final Path file;
  private final ObjectMapper json =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private final Map<String, Entry> byKey = new TreeMap<>();

  private LoopLedger(Path file) {
    this.file = file;
  }

  /** Opens {@code loop.json} in {@code stateDir}; an unreadable file is moved aside and logged. */
  public static LoopLedger open(Path stateDir) {
    StateFiles.createDirectory(stateDir);
    LoopLedger ledger = new LoopLedger(stateDir.resolve("loop.json"));
    if (Files.exists(ledger.file)) {
      try {
        for (Entry entry : ledger.json.readValue(ledger.file.toFile(), ENTRIES)) {
          ledger.byKey.put(entry.key(), entry);
        }
      } catch (IOException | RuntimeException e) {
        Path aside = StateFiles.moveAside(ledger.file);
        LOG.error(
            "The latency loop's record {} could not be read ({}); moved to {}: pods it had"
                + " throttled keep their caps until the pod pass rewrites their tier's values.",
            ledger.file,
            e.getMessage(),
            aside);
      }
    }
    return ledger;
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(byKey.values());
  }

  /** Records (or replaces) a dynamic cap and persists. */
  public synchronized void put(Entry entry) {
    if (!entry.equals(byKey.put(entry.key(), entry))) {
      persist();
    }
  }

  /** Forgets a cap (restored) and persists. */
  public synchronized void remove(Entry entry) {
    if (byKey.remove(entry.key()) != null) {
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
      throw new UncheckedIOException("cannot write the latency loop's record " + file, e);
    }
  }
}
