package dev.ioqos.testkit;

import java.nio.file.Path;

/**
 * The etcd, kube-apiserver and kubectl binaries of the local control plane are not where it looks.
 */
public final class MissingControlPlaneException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient Path directory;

  public MissingControlPlaneException(Path directory, String what) {
    super(
        "no control plane to run: "
            + what
            + "; build it once with `e2e/control-plane/build "
            + directory
            + "` from the ioqos repository (about 18 minutes cold on 2 cores), or pass --binaries"
            + " DIR");
    this.directory = directory;
  }

  /** The directory that was searched. */
  public Path directory() {
    return directory;
  }
}
