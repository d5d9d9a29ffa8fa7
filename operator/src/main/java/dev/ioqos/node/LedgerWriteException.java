package dev.ioqos.node;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A ledger change could not be made durable (disk full, read-only, I/O error). The ledger's memory
 * was left as it was before the change, so the caller must not write the cgroup it was about to
 * write: the kernel then never holds a value the ledger does not know.
 */
public final class LedgerWriteException extends RuntimeException {
  private final transient Path file;

  public LedgerWriteException(Path file, IOException cause) {
    super("cannot write the ledger " + file + ": " + describe(cause), cause);
    this.file = file;
  }

  /** The file that could not be written. */
  public Path file() {
    return file;
  }

  @Override
  public synchronized IOException getCause() {
    return (IOException) super.getCause();
  }

  private static String describe(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
