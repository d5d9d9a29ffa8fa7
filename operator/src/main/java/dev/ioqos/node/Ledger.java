package dev.ioqos.node;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
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
 * replaces, a remove removes), so a crash between the two steps loses nothing.
 *
 * <p>Write-ahead: a change reaches memory only once it is on disk. When the write fails (disk full,
 * read-only, I/O error) the change throws {@link LedgerWriteException} and the ledger stays as it
 * was, so the caller writes no cgroup the ledger does not hold; the journal is cut back to its last
 * whole line. Each journal line carries a CRC-32C of its JSON ({@code "crc"}, which readers without
 * it ignore); a line that is cut short or fails its check is skipped on replay and the lines after
 * it are kept. A fold that cannot be written (full disk) is not fatal: the journal goes on growing
 * and the fold is tried again with the next change. Concurrent changes share a write (group
 * commit): a change returns once a write that includes it is on disk, or throws when that write
 * failed.
 */
public final class Ledger {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);
  private static final TypeReference<List<LedgerRecord>> ENTRIES = new TypeReference<>() {};
  static final int MIN_JOURNAL = 64;
  private static final String CRC_FIELD = ",\"crc\":\"";

  /** One journal line: a put of {@code entry}, or the removal of {@code uid}. */
  record Change(String uid, LedgerRecord entry) {
    static Change put(LedgerEntry entry) {
      return new Change(entry.uid(), LedgerRecord.of(entry));
    }

    static Change remove(String uid) {
      return new Change(uid, null);
    }

    /** The entry after this change, null for a removal. */
    LedgerEntry after() {
      return entry == null ? null : entry.entry();
    }
  }

  /** A change waiting for a write, and how that write ended (both by persistLock). */
  private static final class Staged {
    final Change change;
    final LedgerEntry after;
    boolean done;
    LedgerWriteException failure;

    Staged(Change change, LedgerEntry after) {
      this.change = change;
      this.after = after;
    }
  }

  private final Path file;
  private final Path journal;
  private final ObjectMapper json =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** What is on disk (guarded by this). */
  private final Map<String, LedgerEntry> byUid = new TreeMap<>();

  /** Changes not yet written, in order (guarded by this). */
  private final List<Staged> pending = new ArrayList<>();

  private final Object persistLock = new Object();

  /** The journal's whole lines and bytes, and whether a snapshot exists (by persistLock). */
  private int journalLines;

  private long journalBytes;
  private boolean snapshotOnDisk;
  private boolean foldWanted;

  private volatile LedgerWriteException lastFailure;
  private final AtomicLong writeFailures = new AtomicLong();

  private Ledger(Path file) {
    this.file = file;
    this.journal = file.resolveSibling("ledger.journal");
  }

  /**
   * Opens the ledger in {@code stateDir}, creating the directory. A file that cannot be parsed is
   * moved aside (its name logged) rather than lost or trusted; a journal that cannot be folded
   * (disk full) is kept and folded later.
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
        try {
          writeSnapshot(new ArrayList<>(byUid.values()));
        } catch (IOException e) {
          // A full disk must not stop the agent at start (a crash loop): the journal read above
          // stays the record, and the next change tries the fold again.
          foldWanted = true;
          failed(new LedgerWriteException(file, e));
          LOG.warn("could not fold the ledger journal into {} (kept the journal): {}", file, e);
        }
      }
    }
  }

  private void replayJournal() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(journal);
    } catch (IOException e) {
      moveAside(journal, e);
      return;
    }
    int start = 0;
    int lineNumber = 0;
    while (start < bytes.length) {
      int end = start;
      while (end < bytes.length && bytes[end] != '\n') {
        end++;
      }
      lineNumber++;
      String line = new String(bytes, start, end - start, StandardCharsets.UTF_8);
      if (end == bytes.length) {
        // No newline: the last write was cut short (a crash); the next append starts after the
        // last whole line.
        if (!line.isBlank()) {
          LOG.warn("dropped the ledger journal's last line, cut short: {}", line);
        }
        break;
      }
      start = end + 1;
      journalLines++;
      journalBytes = start;
      if (line.isBlank()) {
        continue;
      }
      Optional<Change> change = parseLine(line);
      if (change.isEmpty()) {
        // One bad line must not cost the lines after it.
        LOG.error(
            "skipped line {} of the ledger journal {}, unreadable or failing its checksum: {}",
            lineNumber,
            journal,
            line);
        continue;
      }
      LedgerEntry entry = change.get().after();
      if (entry == null) {
        byUid.remove(change.get().uid());
      } else {
        byUid.put(change.get().uid(), entry);
      }
    }
  }

  /** A journal line, checked against its CRC when it has one (lines of earlier versions do not). */
  private Optional<Change> parseLine(String line) {
    try {
      int crcAt = line.lastIndexOf(CRC_FIELD);
      if (crcAt > 0 && line.endsWith("\"}")) {
        String body = line.substring(0, crcAt) + "}";
        String crc = line.substring(crcAt + CRC_FIELD.length(), line.length() - 2);
        if (!crc.equals(crc(body))) {
          return Optional.empty();
        }
      }
      Change change = json.readValue(line, Change.class);
      if (change.uid() == null) {
        return Optional.empty();
      }
      change.after(); // throws on a device or key it cannot parse
      return Optional.of(change);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String crc(String body) {
    CRC32C crc = new CRC32C();
    crc.update(body.getBytes(StandardCharsets.UTF_8));
    return String.format(Locale.ROOT, "%08x", crc.getValue());
  }

  /** One journal line with its checksum, newline included. */
  private String line(Change change) throws IOException {
    String body = json.writeValueAsString(change);
    return body.substring(0, body.length() - 1) + CRC_FIELD + crc(body) + "\"}\n";
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

  /**
   * Records an entry (replacing the pod's previous one) and persists; empty entries remove it.
   *
   * @throws LedgerWriteException when the change could not be written: the ledger is unchanged
   */
  public void put(LedgerEntry entry) {
    if (entry.isEmpty()) {
      remove(entry.uid());
      return;
    }
    Staged staged;
    synchronized (this) {
      Staged waiting = pendingFor(entry.uid());
      LedgerEntry latest = waiting != null ? waiting.after : byUid.get(entry.uid());
      if (entry.equals(latest)) {
        if (waiting != null) {
          // The same change is on its way to disk: it counts once it is there.
          staged = waiting;
        } else {
          return;
        }
      } else {
        staged = new Staged(Change.put(entry), entry);
        pending.add(staged);
      }
    }
    persist(staged);
  }

  /**
   * Forgets a pod and persists.
   *
   * @throws LedgerWriteException when the removal could not be written: the entry stays
   */
  public void remove(String uid) {
    Staged staged;
    synchronized (this) {
      Staged waiting = pendingFor(uid);
      LedgerEntry latest = waiting != null ? waiting.after : byUid.get(uid);
      if (latest == null) {
        if (waiting != null) {
          staged = waiting;
        } else {
          return;
        }
      } else {
        staged = new Staged(Change.remove(uid), null);
        pending.add(staged);
      }
    }
    persist(staged);
  }

  /** The pod's last change not yet written, or null. Holds this. */
  private Staged pendingFor(String uid) {
    for (int i = pending.size() - 1; i >= 0; i--) {
      if (pending.get(i).change.uid().equals(uid)) {
        return pending.get(i);
      }
    }
    return null;
  }

  /** The last write that failed, until one succeeds: for the node's state and metrics. */
  public Optional<LedgerWriteException> problem() {
    return Optional.ofNullable(lastFailure);
  }

  /** How many writes failed since the ledger was opened. */
  public long writeFailures() {
    return writeFailures.get();
  }

  private void failed(LedgerWriteException e) {
    lastFailure = e;
    writeFailures.incrementAndGet();
  }

  /** Writes the pending changes unless a write that includes {@code staged} already happened. */
  private void persist(Staged staged) {
    synchronized (persistLock) {
      if (!staged.done) {
        writePending();
      }
      if (staged.failure != null) {
        throw staged.failure;
      }
    }
  }

  /** One write of every pending change; memory follows only when it is on disk. */
  private void writePending() {
    List<Staged> batch;
    Map<String, LedgerEntry> after;
    synchronized (this) {
      batch = new ArrayList<>(pending);
      pending.clear();
      after = new TreeMap<>(byUid);
    }
    for (Staged staged : batch) {
      if (staged.after == null) {
        after.remove(staged.change.uid());
      } else {
        after.put(staged.change.uid(), staged.after);
      }
    }
    LedgerWriteException failure = null;
    try {
      boolean fold =
          !snapshotOnDisk
              || foldWanted
              || journalShrunk()
              || journalLines + batch.size() > Math.max(MIN_JOURNAL, after.size());
      if (!fold || !tryFold(after)) {
        append(batch);
      }
      lastFailure = null;
    } catch (IOException e) {
      failure = new LedgerWriteException(journal, e);
      failed(failure);
      LOG.warn(
          "{} (the change was not recorded, so its cgroup is not written)", failure.getMessage());
    }
    synchronized (this) {
      if (failure == null) {
        byUid.clear();
        byUid.putAll(after);
      }
    }
    for (Staged staged : batch) {
      staged.done = true;
      staged.failure = failure;
    }
  }

  /**
   * True when the journal lost lines behind the ledger's back (deleted or cut by hand): appending
   * after it would leave a gap, so the whole ledger goes to a new snapshot.
   */
  private boolean journalShrunk() {
    try {
      return (Files.exists(journal) ? Files.size(journal) : 0) < journalBytes;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * A new snapshot; false when it could not be written but the journal can still take the change (a
   * snapshot needs room for the whole ledger, a journal line only for itself).
   */
  private boolean tryFold(Map<String, LedgerEntry> after) {
    try {
      writeSnapshot(new ArrayList<>(after.values()));
      foldWanted = false;
      return true;
    } catch (IOException e) {
      // A journal alone (or after an older snapshot) is a whole record too.
      foldWanted = true;
      LOG.warn("could not fold the ledger journal into {}, appending instead: {}", file, e);
      return false;
    }
  }

  public Path file() {
    return file;
  }

  /** The whole ledger to a new snapshot; the journal it replaces goes. Holds persistLock. */
  private void writeSnapshot(List<LedgerEntry> entries) throws IOException {
    StateFiles.replace(
        file, json.writeValueAsBytes(entries.stream().map(LedgerRecord::of).toList()));
    snapshotOnDisk = true;
    Files.deleteIfExists(journal);
    journalLines = 0;
    journalBytes = 0;
  }

  /**
   * The changes as journal lines, in one write, synced. A write that fails is cut back to the last
   * whole line, so the next one does not follow a torn line. Holds persistLock.
   */
  private void append(List<Staged> batch) throws IOException {
    StringBuilder lines = new StringBuilder();
    for (Staged staged : batch) {
      lines.append(line(staged.change));
    }
    try (FileChannel channel =
        FileChannel.open(journal, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      if (channel.size() != journalBytes) {
        // A torn line from a failed write or a crash: cut it off before writing after it.
        channel.truncate(journalBytes);
      }
      channel.position(journalBytes);
      byte[] data = lines.toString().getBytes(StandardCharsets.UTF_8);
      try {
        StateFiles.write(channel, data);
        channel.force(false);
      } catch (IOException e) {
        try {
          channel.truncate(journalBytes);
        } catch (IOException truncateFailed) {
          e.addSuppressed(truncateFailed);
        }
        throw e;
      }
      journalBytes += data.length;
      journalLines += batch.size();
    }
  }
}
