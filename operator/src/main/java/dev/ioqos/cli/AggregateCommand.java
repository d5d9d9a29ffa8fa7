package dev.ioqos.cli;

import dev.ioqos.aggregator.Aggregator;
import dev.ioqos.aggregator.AggregatorConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ioqos aggregate}: the leader-elected controller folding IoNodeStates into IoPolicies. */
@Command(
    name = "aggregate",
    mixinStandardHelpOptions = true,
    description =
        "Fold every node's IoNodeState into IoPolicy status (nodes selected/applied/failed,"
            + " Ready and Conflict conditions). Run as a Deployment; replicas elect one leader"
            + " through a Lease and only the leader writes.")
final class AggregateCommand implements Callable<Integer> {
  @Option(
      names = "--lease-namespace",
      defaultValue = "${env:POD_NAMESPACE:-" + AggregatorConfig.DEFAULT_LEASE_NAMESPACE + "}",
      description =
          "namespace of the leader-election Lease (default: $POD_NAMESPACE, else ${DEFAULT-VALUE})")
  String leaseNamespace;

  @Option(
      names = "--lease-name",
      defaultValue = AggregatorConfig.DEFAULT_LEASE_NAME,
      description = "name of the leader-election Lease (default: ${DEFAULT-VALUE})")
  String leaseName;

  @Option(
      names = "--identity",
      defaultValue = "${env:POD_NAME}",
      description =
          "this replica's name in the Lease, unique per replica (default: $POD_NAME, else"
              + " the host name)")
  String identity;

  @Option(
      names = "--lease-duration",
      defaultValue = "PT15S",
      description =
          "how long followers wait after the leader's last renewal before taking over, ISO-8601"
              + " (default: ${DEFAULT-VALUE})")
  Duration leaseDuration;

  @Option(
      names = "--renew-deadline",
      defaultValue = "PT10S",
      description =
          "how long the leader keeps trying to renew before it stops writing, ISO-8601 (default:"
              + " ${DEFAULT-VALUE})")
  Duration renewDeadline;

  @Option(
      names = "--retry-period",
      defaultValue = "PT2S",
      description =
          "how often the lease is renewed or tried for, ISO-8601 (default: ${DEFAULT-VALUE})")
  Duration retryPeriod;

  @Override
  public Integer call() throws Exception {
    AggregatorConfig config =
        new AggregatorConfig(
            leaseNamespace, leaseName, identity(), leaseDuration, renewDeadline, retryPeriod);
    KubernetesClient client = ApiClients.forRole("aggregator");
    CountDownLatch stopped = new CountDownLatch(1);
    try (Aggregator aggregator = new Aggregator(config, client)) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    aggregator.close();
                    stopped.countDown();
                  },
                  "ioqos-shutdown"));
      aggregator.start();
      stopped.await();
    } finally {
      client.close();
    }
    return 0;
  }

  private String identity() {
    if (identity != null && !identity.isBlank()) {
      return identity;
    }
    String host = System.getenv("HOSTNAME");
    if (host != null && !host.isBlank()) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "cannot tell this replica's identity: set --identity or POD_NAME", e);
    }
  }
}
