package dev.ioqos.cli;

import dev.ioqos.agent.Agent;
import dev.ioqos.agent.AgentConfig;
import dev.ioqos.agent.KubernetesMetricsAuth;
import dev.ioqos.metrics.MetricsServer;
import dev.ioqos.metrics.SelfSignedCertificate;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ioqos run}: the node agent. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = "Run the node agent (one per node, as a DaemonSet).")
final class RunCommand implements Callable<Integer> {
  @Mixin NodeOptions node;

  @Option(
      names = "--node-name",
      defaultValue = "${env:NODE_NAME}",
      description = "this node's name (default: $NODE_NAME, from the downward API)")
  String nodeName;

  @Option(
      names = "--state-dir",
      defaultValue = "/var/lib/ioqos",
      description =
          "where the ledger of written values lives, a hostPath (default: ${DEFAULT-VALUE})")
  Path stateDir;

  @Option(names = "--dry-run", description = "compute and report, write nothing")
  boolean dryRun;

  @Option(
      names = "--enable-iocost",
      description =
          "turn iocost on for every disk (io.cost.qos enable=1) so weights are enforced;"
              + " changes how the whole node shares its disks, off by default")
  boolean enableIocost;

  @Option(
      names = "--resync",
      defaultValue = "PT60S",
      description =
          "how often every pod is checked again for drift, ISO-8601 (default: ${DEFAULT-VALUE})")
  Duration resync;

  @Option(
      names = "--metrics-port",
      defaultValue = "8080",
      description =
          "port of /metrics, /healthz and /readyz on all interfaces; 0 turns the endpoint off"
              + " (default: ${DEFAULT-VALUE})")
  int metricsPort;

  @Option(
      names = "--metrics-secure",
      description =
          "serve /metrics over HTTPS (a self-signed certificate made at start) and only to"
              + " requests whose bearer token the API server authenticates (TokenReview) and"
              + " allows to get /metrics (SubjectAccessReview); the chart's default")
  boolean metricsSecure;

  @Option(
      names = "--health-port",
      defaultValue = "8081",
      description =
          "port of /healthz and /readyz alone on all interfaces, for kubelet's probes, so that"
              + " scrapers never delay them; 0 turns it off (default: ${DEFAULT-VALUE})")
  int healthPort;

  @Override
  public Integer call() throws Exception {
    if (metricsPort < 0 || metricsPort > 65_535) {
      throw new IllegalArgumentException(
          "--metrics-port must be a port number (1..65535) or 0 for none, not " + metricsPort);
    }
    if (healthPort < 0 || healthPort > 65_535) {
      throw new IllegalArgumentException(
          "--health-port must be a port number (1..65535) or 0 for none, not " + healthPort);
    }
    if (healthPort != 0 && healthPort == metricsPort) {
      throw new IllegalArgumentException(
          "--health-port and --metrics-port must differ (both " + healthPort + ")");
    }
    AgentConfig config =
        new AgentConfig(nodeName, node.config(), stateDir, dryRun, resync, enableIocost);
    KubernetesClient client = ApiClients.forRole("agent");
    CountDownLatch stopped = new CountDownLatch(1);
    try (Agent agent = new Agent(config, client);
        MetricsServer metrics = metricsServer(agent, client);
        MetricsServer probes = probeServer(agent)) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    if (metrics != null) {
                      metrics.close();
                    }
                    if (probes != null) {
                      probes.close();
                    }
                    agent.close();
                    stopped.countDown();
                  },
                  "ioqos-shutdown"));
      agent.start();
      stopped.await();
    } finally {
      client.close();
    }
    return 0;
  }

  /** Started before the informers sync, so that /healthz answers and /readyz says 503 meanwhile. */
  private MetricsServer metricsServer(Agent agent, KubernetesClient client) throws IOException {
    if (metricsPort == 0) {
      return null;
    }
    try {
      if (metricsSecure) {
        return MetricsServer.startSecure(
            new InetSocketAddress(metricsPort),
            agent.metrics(),
            health(agent),
            selfSignedTls(),
            new KubernetesMetricsAuth(client, Clock.systemUTC(), Duration.ofMinutes(1)));
      }
      return MetricsServer.start(
          new InetSocketAddress(metricsPort), agent.metrics(), health(agent));
    } catch (IOException e) {
      throw new IOException(
          "cannot serve metrics on port " + metricsPort + ": " + e.getMessage(), e);
    }
  }

  /** TLS with a certificate made now: the scraper's token, not the server, is authenticated. */
  private SSLContext selfSignedTls() throws IOException {
    try {
      String host = InetAddress.getLocalHost().getHostName();
      SelfSignedCertificate certificate =
          SelfSignedCertificate.create(
              "ioqos-agent " + nodeName,
              List.of("localhost", host),
              List.of(InetAddress.getLoopbackAddress()),
              Duration.ofDays(3650));
      char[] password = new char[0];
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(certificate.keyStore("metrics", password), password);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keys.getKeyManagers(), null, null);
      return tls;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot make the metrics port's TLS certificate: " + e.getMessage(), e);
    }
  }

  /** The probe port, started with the metrics port. */
  private MetricsServer probeServer(Agent agent) throws IOException {
    if (healthPort == 0) {
      return null;
    }
    try {
      return MetricsServer.startProbes(new InetSocketAddress(healthPort), health(agent));
    } catch (IOException e) {
      throw new IOException("cannot serve probes on port " + healthPort + ": " + e.getMessage(), e);
    }
  }

  private static MetricsServer.Health health(Agent agent) {
    return new MetricsServer.Health() {
      @Override
      public boolean ready() {
        return agent.ready();
      }

      @Override
      public Optional<String> stuck() {
        return agent.stuck();
      }
    };
  }
}
