package dev.ioqos.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * API clients of the long-running commands, configured as fabric8 finds it (in-cluster service
 * account, or KUBECONFIG) and named by a User-Agent of their own, {@code ioqos-agent/<version>} or
 * {@code ioqos-aggregator/<version>}, so that the API server's audit log and its per-client metrics
 * tell ioqos apart from everything else that runs under a similar account.
 */
final class ApiClients {
  /**
   * The first wait before an informer's watch is made again after it broke; fabric8 doubles it up
   * to 32 times this value (8 s) while the API server stays away. Its default, 1 s, grows to 32 s:
   * after a control plane restart of a minute the agents on the nodes learnt of changes 17 to 26 s
   * after the API server answered again (measured on the real node). Set the client's usual
   * KUBERNETES_WATCH_RECONNECT_INTERVAL to choose another.
   */
  static final int WATCH_RECONNECT_INTERVAL_MILLIS = 250;

  private ApiClients() {}

  static KubernetesClient forRole(String role) {
    Config config = Config.autoConfigure(null);
    config.setUserAgent(userAgent(role));
    if (System.getenv("KUBERNETES_WATCH_RECONNECT_INTERVAL") == null
        && System.getProperty("kubernetes.watch.reconnectInterval") == null) {
      config.setWatchReconnectInterval(WATCH_RECONNECT_INTERVAL_MILLIS);
    }
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  static String userAgent(String role) {
    String version = ApiClients.class.getPackage().getImplementationVersion();
    return "ioqos-" + role + "/" + (version == null ? "dev" : version);
  }
}
