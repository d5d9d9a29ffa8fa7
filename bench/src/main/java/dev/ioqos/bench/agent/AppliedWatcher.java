package dev.ioqos.bench.agent;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Sees the agent's writes from outside: an inotify watch (Java's WatchService) on every pod
 * directory. When a directory reports a modification and an expectation is pending for it, the
 * directory's files are read and checked; the first time they hold what the expectation wants, the
 * expectation completes with the {@link System#nanoTime()} at which the event was taken from the
 * queue (before the check's reads). Every modification is also counted, to see rewrites.
 */
final class AppliedWatcher implements AutoCloseable {
  /** A pending expectation. */
  private record Pending(Predicate<Path> done, CompletableFuture<Long> seen) {}

  private final WatchService watch;
  private final Map<Path, Pending> pending = new ConcurrentHashMap<>();
  private final Map<Path, WatchKey> keys = new ConcurrentHashMap<>();
  private final AtomicLong modifications = new AtomicLong();
  private final Thread thread;

  AppliedWatcher() throws IOException {
    watch = FileSystems.getDefault().newWatchService();
    thread = new Thread(this::loop, "applied-watcher");
    thread.setDaemon(true);
    thread.start();
  }

  void watch(Path dir) throws IOException {
    keys.put(
        dir,
        dir.register(
            watch, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_CREATE));
  }

  void unwatch(Path dir) {
    WatchKey key = keys.remove(dir);
    if (key != null) {
      key.cancel();
    }
    Pending gone = pending.remove(dir);
    if (gone != null) {
      gone.seen().cancel(false);
    }
  }

  /**
   * Completes when {@code done} holds for {@code dir} after a modification; checked once now too,
   * in which case it completes with the current time (the caller can tell from its own clock).
   */
  CompletableFuture<Long> expect(Path dir, Predicate<Path> done) {
    CompletableFuture<Long> seen = new CompletableFuture<>();
    pending.put(dir, new Pending(done, seen));
    if (safeTest(done, dir) && pending.remove(dir) != null) {
      seen.complete(System.nanoTime());
    }
    return seen;
  }

  /** File modifications seen so far in all watched directories. */
  long modifications() {
    return modifications.get();
  }

  private void loop() {
    try {
      while (true) {
        WatchKey key = watch.take();
        long now = System.nanoTime();
        Path dir = (Path) key.watchable();
        for (WatchEvent<?> event : key.pollEvents()) {
          if (event.kind() == StandardWatchEventKinds.ENTRY_MODIFY) {
            modifications.addAndGet(event.count());
          }
        }
        key.reset();
        Pending wanted = pending.get(dir);
        if (wanted != null && safeTest(wanted.done(), dir) && pending.remove(dir, wanted)) {
          wanted.seen().complete(now);
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // Closed.
    }
  }

  private static boolean safeTest(Predicate<Path> done, Path dir) {
    try {
      return done.test(dir);
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() throws IOException {
    watch.close();
    thread.interrupt();
  }
}
