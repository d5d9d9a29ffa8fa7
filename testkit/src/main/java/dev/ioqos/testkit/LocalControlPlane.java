package dev.ioqos.testkit;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A real etcd and kube-apiserver, started from built binaries by kube-api-test in offline mode: no
 * download, certificates generated into the binaries' directory on first use, etcd data in temp
 * directories removed on {@link #close()}.
 */
public final class LocalControlPlane implements AutoCloseable {
  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);

  private final KubeAPIServer server;
  private final String kubeconfigYaml;
  private boolean closed;

  private LocalControlPlane(KubeAPIServer server) {
    this.server = server;
    this.kubeconfigYaml = server.getKubeConfigYaml();
  }

  /**
   * Starts etcd and kube-apiserver and waits until the API server is ready, calling {@code tick}
   * once a second meanwhile (it takes seconds).
   */
  public static LocalControlPlane start(ControlPlaneBinaries binaries, Runnable tick) {
    return start(binaries, Map.of(), tick);
  }

  /** As {@link #start(ControlPlaneBinaries, Runnable)}, with more kube-apiserver flags. */
  public static LocalControlPlane start(
      ControlPlaneBinaries binaries, Map<String, String> apiServerFlags, Runnable tick) {
    KubeAPIServerConfigBuilder config =
        KubeAPIServerConfigBuilder.anAPIServerConfig()
            .withOfflineMode(true)
            .withTestDir(binaries.directory().toString())
            .withApiServerVersion(binaries.version())
            .withUpdateKubeConfig(false)
            .withStartupTimeout((int) STARTUP_TIMEOUT.toMillis());
    apiServerFlags.forEach(config::withApiServerFlag);
    KubeAPIServer server = new KubeAPIServer(config.build());
    ScheduledExecutorService ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "ioqos-control-plane-progress");
              thread.setDaemon(true);
              return thread;
            });
    ticker.scheduleAtFixedRate(tick, 1, 1, TimeUnit.SECONDS);
    try {
      startServer(server, STARTUP_TIMEOUT);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "the local control plane did not start: " + e.getMessage(), e);
    } finally {
      ticker.shutdownNow();
    }
    return new LocalControlPlane(server);
  }

  /**
   * Starts a kube-api-test server configured with {@code startupTimeout} (the demo's, the e2e
   * tests' and the benchmark's): first out of the way of midnight ({@link #awaitClearOfMidnight}),
   * and stopped again when it does not come up, so that no etcd or kube-apiserver outlives the
   * failure.
   */
  public static void startServer(KubeAPIServer server, Duration startupTimeout) {
    awaitClearOfMidnight(startupTimeout);
    try {
      server.start();
    } catch (RuntimeException e) {
      try {
        server.stop();
      } catch (RuntimeException stopFailed) {
        e.addSuppressed(stopFailed);
      }
      throw e;
    }
  }

  /**
   * Waits, when needed, until a start with {@code timeout} no longer spans midnight. kube-api-test
   * (7.5.2) puts its readiness deadline in a {@link LocalTime}, which wraps at midnight: a start
   * less than the timeout before midnight fails at once ("did not start properly") and leaves its
   * processes running. Seen in a CI run that started its tests at 23:59:28.
   */
  private static void awaitClearOfMidnight(Duration timeout) {
    Duration wait = waitBeforeStart(LocalTime.now(), timeout);
    if (!wait.isZero()) {
      try {
        Thread.sleep(wait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for midnight to pass", e);
      }
    }
  }

  /** Zero when {@code now + timeout} stays on this day, else the time until just past midnight. */
  static Duration waitBeforeStart(LocalTime now, Duration timeout) {
    Duration toMidnight = Duration.ofNanos(LocalTime.MAX.toNanoOfDay() - now.toNanoOfDay() + 1);
    // The margin covers the time kube-api-test spends before its deadline is set.
    return toMidnight.compareTo(timeout.plusSeconds(10)) > 0
        ? Duration.ZERO
        : toMidnight.plusSeconds(1);
  }

  /** The admin's kubeconfig (client certificate in system:masters). */
  public String kubeconfigYaml() {
    return kubeconfigYaml;
  }

  /** A new client as the cluster admin; close it when done. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfigYaml)).build();
  }

  /** Stops kube-apiserver, then etcd, and removes etcd's data. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.stop();
    }
  }
}
