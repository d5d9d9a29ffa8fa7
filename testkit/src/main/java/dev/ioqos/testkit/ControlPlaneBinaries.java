package dev.ioqos.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * etcd, kube-apiserver and kubectl as {@code e2e/control-plane/build DIR} lays them out for
 * kube-api-test: {@code DIR/k8s/<version>-linux-<arch>/}, the version in {@code
 * DIR/k8s/ioqos-version}.
 */
public record ControlPlaneBinaries(Path directory, String version, Path binDir) {
  private static final String VERSION_FILE = "k8s/ioqos-version";

  /**
   * Finds the binaries under {@code directory}.
   *
   * @throws MissingControlPlaneException naming what is missing and how to build it
   */
  public static ControlPlaneBinaries locate(Path directory, String arch) {
    Path versionFile = directory.resolve(VERSION_FILE);
    if (!Files.isRegularFile(versionFile)) {
      throw new MissingControlPlaneException(directory, "there is no " + versionFile);
    }
    String version;
    try {
      version = Files.readString(versionFile).strip();
    } catch (IOException e) {
      throw new MissingControlPlaneException(directory, "cannot read " + versionFile);
    }
    Path binDir = directory.resolve("k8s/" + version + "-linux-" + arch);
    for (String binary : new String[] {"etcd", "kube-apiserver", "kubectl"}) {
      if (!Files.isExecutable(binDir.resolve(binary))) {
        throw new MissingControlPlaneException(
            directory, "there is no executable " + binDir.resolve(binary));
      }
    }
    return new ControlPlaneBinaries(directory, version, binDir);
  }

  /** kube-api-test's name for this JVM's architecture: amd64, arm64 or ppc64le. */
  public static String jvmArch() {
    String arch = System.getProperty("os.arch");
    if (arch.equals("aarch64")) {
      return "arm64";
    }
    if (arch.equals("ppc64")) {
      return "ppc64le";
    }
    return "amd64";
  }
}
