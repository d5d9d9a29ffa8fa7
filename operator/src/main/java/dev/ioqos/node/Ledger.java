package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-local record of every value ioqos wrote, on a hostPath. It is what makes a revert
 * possible when a policy, tier or annotation goes away, also while the agent was down.
 *
 * <p>Two files: {@code ledger.json}, a snapshot of every entry, written to a temporary file, synced
 * and renamed over the old one (a crash leaves the old or the new snapshot, never half of one); and
 * {@code ledger.journal}, the changes since, one JSON line each, appended and synced. A change
 * costs one line, not the whole ledger again (on a node with 250 managed pods a tier change took
 * 1.1 ms, most of it rewriting the other 249 entries). The journal is folded into a new snapshot
 * when it holds more lines than the ledger has entries (at least {@value #MIN_JOURNAL} lines), and
 * at open. Replaying a journal over a snapshot that already holds its changes is harmless (a put
 * replaces, a remove removes), so a crash between the two steps loses nothing; a last line cut
 * short by a crash is dropped. Concurrent changes share a write (group commit): a change returns
 * once a write that includes it is on disk.
 */
public final class Ledger {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);
  private static final TypeReference<List<LedgerRecord>> ENTRIES = new TypeReference<>() {};
  static final int MIN_JOURNAL = 64;

  /** One journal line: a put of {@code entry}, or the removal of {@code uid}. */
  record Change(String uid, LedgerRecord entry) {
    static Change put(LedgerEntry entry) {
      return new Change(entry.uid(), LedgerRecord.of(entry));
    }

    static Change remove(String uid) {
      return new Change(uid, null);
    }
  }

  private final Path file;
  private final Path journal;
  private final ObjectMapper json =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private final Map<String, LedgerEntry> byUid = new TreeMap<>();
  private final Object persistLock = new Object();

  /** Changes made so far and those not yet written (guarded by this). */
  private long version;

  private final List<Change> pending = new ArrayList<>();

  /** The last change on disk, the journal's lines, whether a snapshot exists (by persistLock). */
  private long persisted;

  private int journalLines;

  private boolean snapshotOnDisk;

  private Ledger(Path file) {
    this.file = file;
    this.journal = file.resolveSibling("ledger.journal");
  }

  /**
   * Opens the ledger in {@code stateDir}, creating the directory. A file that cannot be parsed is
   * moved aside (its name logged) rather than lost or trusted.
   */
  public static Ledger open(Path stateDir) {
    StateFiles.createDirectory(stateDir);
    Ledger ledger = new Ledger(stateDir.resolve("ledger.json"));
    ledger.load();
    return ledger;
  }

  private void load() {
    if (Files.exists(file)) {
      try {
        Map<String, LedgerEntry> read = new TreeMap<>();
        for (LedgerRecord entry : json.readValue(file.toFile(), ENTRIES)) {
          read.put(entry.uid(), entry.entry());
        }
        byUid.putAll(read);
        snapshotOnDisk = true;
      } catch (IOException | RuntimeException e) {
        moveAside(file, e);
      }
    }
    if (Files.exists(journal)) {
      replayJournal();
      // Folded now: a restart starts from one snapshot and an empty journal.
      synchronized (persistLock) {
        writeSnapshot(new ArrayList<>(byUid.values()));
      }
    }
  }

  private void replayJournal() {
    List<String> lines;
    try {
      lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
    } catch (IOException e) {
      moveAside(journal, e);
      return;
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      Change change;
      LedgerEntry entry;
      try {
        change = json.readValue(line, Change.class);
        entry = change.entry() == null ? null : change.entry().entry();
      } catch (IOException | RuntimeException e) {
        if (i == lines.size() - 1) {
          LOG.warn("dropped the ledger journal's last line, cut short by a crash: {}", line);
          return;
        }
        moveAside(journal, e);
        return;
      }
      if (entry == null) {
        byUid.remove(change.uid());
      } else {
        byUid.put(change.uid(), entry);
      }
    }
  }

  private void moveAside(Path unreadable, Exception e) {
    Path aside = StateFiles.moveAside(unreadable);
    LOG.error(
        "The ledger file {} could not be read ({}); it was moved to {} and ioqos goes on without"
            + " what it held: values recorded there cannot be reverted automatically.",
        unreadable,
        e.getMessage(),
        aside);
  }

  public synchronized Optional<LedgerEntry> get(String uid) {
    return Optional.ofNullable(byUid.get(uid));
  }

  public synchronized Collection<LedgerEntry> entries() {
    return List.copyOf(byUid.values());
  }

  /** Records an entry (replacing the pod's previous one) and persists; empty entries remove it. */
  public void put(LedgerEntry entry) {
    if (entry.isEmpty()) {
      remove(entry.uid());
      return;
    }
    long change;
    synchronized (this) {
      if (entry.equals(byUid.put(entry.uid(), entry))) {
        return;
      }
      pending.add(Change.put(entry));
      change = ++version;
    }
    persistUpTo(change);
  }

  /** Forgets a pod and persists. */
  public void remove(String uid) {
    long change;
    synchronized (this) {
      if (byUid.remove(uid) == null) {
        return;
      }
      pending.add(Change.remove(uid));
      change = ++version;
    }
    persistUpTo(change);
  }

  /** Writes the changes unless a write that includes {@code change} already happened. */
  private void persistUpTo(long change) {
    synchronized (persistLock) {
      if (persisted >= change) {
        return;
      }
      List<Change> batch;
      List<LedgerEntry> snapshot = null;
      long upTo;
      synchronized (this) {
        batch = new ArrayList<>(pending);
        pending.clear();
        upTo = version;
        if (!snapshotOnDisk || journalLines + batch.size() > Math.max(MIN_JOURNAL, byUid.size())) {
          snapshot = new ArrayList<>(byUid.values());
        }
      }
      if (snapshot != null) {
        writeSnapshot(snapshot);
      } else {
        append(batch);
      }
      persisted = upTo;
    }
  }

  public Path file() {
    return file;
  }

  /** The whole ledger to a new snapshot; the journal it replaces goes. Holds persistLock. */
  private void writeSnapshot(List<LedgerEntry> entries) {
    try {
      StateFiles.replace(
          file, json.writeValueAsBytes(entries.stream().map(LedgerRecord::of).toList()));
      snapshotOnDisk = true;
      Files.deleteIfExists(journal);
      journalLines = 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the ledger " + file, e);
    }
  }

  /** The changes as journal lines, in one write, synced. Holds persistLock. */
  private void append(List<Change> batch) {
    try {
      StringBuilder lines = new StringBuilder();
      for (Change change : batch) {
        lines.append(json.writeValueAsString(change)).append('\n');
      }
      try (FileChannel channel =
          FileChannel.open(
              journal,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND,
              StandardOpenOption.WRITE)) {
        StateFiles.write(channel, lines.toString().getBytes(StandardCharsets.UTF_8));
        channel.force(false);
      }
      journalLines += batch.size();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to the ledger journal " + journal, e);
    }
  }
}
