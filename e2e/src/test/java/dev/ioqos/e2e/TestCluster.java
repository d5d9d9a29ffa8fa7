package dev.ioqos.e2e;

import dev.ioqos.testkit.ControlPlaneBinaries;
import dev.ioqos.testkit.LocalControlPlane;
import dev.ioqos.testkit.MissingControlPlaneException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The one way every e2e test gets a real Kubernetes API server, chosen once per JVM:
 *
 * <ol>
 *   <li>the user's cluster, when {@code IOQOS_E2E_KUBECONFIG} (or system property {@code
 *       ioqos.e2e.kubeconfig}) names a kubeconfig file;
 *   <li>else K3s in Testcontainers, when a Docker engine answers;
 *   <li>else kube-apiserver + etcd built by {@code e2e/control-plane/build}, run by the test kit's
 *       {@link LocalControlPlane} (kube-api-test).
 * </ol>
 *
 * If none is possible the suite fails with a message that says how to build the binaries.
 */
public final class TestCluster {
  public static final String K3S_IMAGE = "rancher/k3s:v1.34.1-k3s1";

  private static TestCluster shared;

  private final String kind;
  private final String kubeconfigYaml;
  private final Optional<Path> kubectl;
  private final Runnable stop;

  private TestCluster(String kind, String kubeconfigYaml, Optional<Path> kubectl, Runnable stop) {
    this.kind = kind;
    this.kubeconfigYaml = kubeconfigYaml;
    this.kubectl = kubectl;
    this.stop = stop;
  }

  /** The cluster of this test JVM, started on first use and stopped when the JVM exits. */
  public static synchronized TestCluster get() {
    if (shared == null) {
      shared = start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared.stop, "stop-test-cluster"));
    }
    return shared;
  }

  private static TestCluster start() {
    String given =
        Optional.ofNullable(System.getProperty("ioqos.e2e.kubeconfig"))
            .orElse(System.getenv("IOQOS_E2E_KUBECONFIG"));
    if (given != null && !given.isBlank()) {
      return new TestCluster(
          "existing cluster (" + given + ")", read(Paths.get(given)), onPath(), () -> {});
    }
    if (dockerAvailable()) {
      K3sContainer k3s = new K3sContainer(DockerImageName.parse(K3S_IMAGE));
      k3s.start();
      return new TestCluster("K3s " + K3S_IMAGE, k3s.getKubeConfigYaml(), onPath(), k3s::stop);
    }
    return startLocalControlPlane();
  }

  private static TestCluster startLocalControlPlane() {
    Path dir =
        Paths.get(
            Optional.ofNullable(System.getProperty("ioqos.kubeapitest.dir"))
                .orElse(System.getProperty("user.home") + "/.kubeapitest"));
    ControlPlaneBinaries binaries;
    try {
      binaries = ControlPlaneBinaries.locate(dir, "amd64");
    } catch (MissingControlPlaneException e) {
      throw new IllegalStateException(
          "No Kubernetes API server for the e2e tests: no IOQOS_E2E_KUBECONFIG, no Docker engine,"
              + " and no control-plane binaries under "
              + dir
              + "/k8s. Build them with `e2e/control-plane/build "
              + dir
              + "` (about 18 minutes cold on 2 cores; `./mvnw verify` runs it for you), or set"
              + " IOQOS_E2E_KUBECONFIG to a kubeconfig file of a cluster you own.",
          e);
    }
    LocalControlPlane controlPlane = LocalControlPlane.start(binaries, () -> {});
    return new TestCluster(
        "local kube-apiserver " + binaries.version() + " (kube-api-test)",
        controlPlane.kubeconfigYaml(),
        Optional.of(binaries.binDir().resolve("kubectl")),
        controlPlane::close);
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static Optional<Path> onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(":")) {
      Path candidate = Paths.get(dir, "kubectl");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** What this cluster is, for logs and reports. */
  public String kind() {
    return kind;
  }

  public String kubeconfigYaml() {
    return kubeconfigYaml;
  }

  /** The client configuration as the cluster admin. */
  public Config config() {
    return Config.fromKubeconfig(kubeconfigYaml);
  }

  /** A new admin client; close it when done. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /** A new client that impersonates {@code user} (with optional groups); close it when done. */
  public KubernetesClient impersonating(String user, String... groups) {
    Config config = config();
    config.setImpersonateUsername(user);
    config.setImpersonateGroups(groups);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** A kubectl binary matching the cluster, when one is known. */
  public Optional<Path> kubectl() {
    return kubectl;
  }

  /** Writes the kubeconfig to a file, for kubectl. */
  public Path writeKubeconfig(Path dir) {
    try {
      return Files.writeString(dir.resolve("kubeconfig"), kubeconfigYaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
