package dev.ioqos.agent;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * The node-local record of every value ioqos wrote, one JSON file on a hostPath. It is what makes a
 * revert possible when a policy, tier or annotation goes away, also while the agent was down. Each
 * change is written to a temporary file, synced and renamed over the old one, so a crash leaves
 * either the old or the new ledger, never half of one. Concurrent changes share a write (group
 * commit): a change returns once a write that includes it is on disk.
 */
public final class Ledger {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);
  private static final TypeReference<List<LedgerEntry>> ENTRIES = new TypeReference<>() {};

  private final Path file;
  private final ObjectMapper json =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private final Map<String, LedgerEntry> byUid = new TreeMap<>();
  private final Object persistLock = new Object();

  /** Changes made so far (guarded by this) and the last of them on disk (by persistLock). */
  private long version;

  private long persisted;

  private Ledger(Path file) {
    this.file = file;
  }

  /**
   * Opens the ledger in {@code stateDir}, creating the directory. A file that cannot be parsed is
   * moved aside (its name logged) rather than lost or trusted.
   */
  public static Ledger open(Path stateDir) {
    try {
      Files.createDirectories(stateDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the state directory " + stateDir, e);
    }
    Ledger ledger = new Ledger(stateDir.resolve("ledger.json"));
    ledger.load();
    return ledger;
  }

  private void load() {
    if (!Files.exists(file)) {
      return;
    }
    try {
      for (LedgerEntry entry : json.readValue(file.toFile(), ENTRIES)) {
        byUid.put(entry.uid(), entry);
      }
    } catch (IOException e) {
      Path aside = file.resolveSibling("ledger.json.corrupt-" + System.currentTimeMillis());
      try {
        Files.move(file, aside);
      } catch (IOException moveFailed) {
        throw new UncheckedIOException("cannot move the unreadable ledger " + file + " aside", e);
      }
      LOG.error(
          "The ledger {} could not be read ({}); it was moved to {} and ioqos starts with an"
              + " empty one: values written before cannot be reverted automatically.",
          file,
          e.getMessage(),
          aside);
    }
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
      change = ++version;
    }
    persistUpTo(change);
  }

  /** Writes the ledger unless a write that includes {@code change} already happened. */
  private void persistUpTo(long change) {
    synchronized (persistLock) {
      if (persisted >= change) {
        return;
      }
      List<LedgerEntry> snapshot;
      long upTo;
      synchronized (this) {
        snapshot = new ArrayList<>(byUid.values());
        upTo = version;
      }
      persist(snapshot);
      persisted = upTo;
    }
  }

  public Path file() {
    return file;
  }

  private void persist(List<LedgerEntry> entries) {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      byte[] data = json.writeValueAsBytes(entries);
      try (FileChannel channel =
          FileChannel.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        channel.write(java.nio.ByteBuffer.wrap(data));
        channel.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the ledger " + file, e);
    }
  }
}
