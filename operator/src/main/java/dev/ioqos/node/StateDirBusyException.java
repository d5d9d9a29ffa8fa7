package dev.ioqos.node;

import java.nio.file.Path;

/** Another process (an agent, another {@code ioqos reconcile}) holds the state directory. */
public final class StateDirBusyException extends RuntimeException {
  private final transient Path stateDir;

  public StateDirBusyException(Path stateDir) {
    super(
        "the state directory "
            + stateDir
            + " is held by another ioqos process (an agent runs on it?); writing its ledger too"
            + " would revert what that process applied (ioqos reconcile --ignore-lock writes it"
            + " anyway)");
    this.stateDir = stateDir;
  }

  public Path stateDir() {
    return stateDir;
  }
}
