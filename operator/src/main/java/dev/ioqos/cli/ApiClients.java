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
  private ApiClients() {}

  static KubernetesClient forRole(String role) {
    Config config = Config.autoConfigure(null);
    config.setUserAgent(userAgent(role));
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  static String userAgent(String role) {
    String version = ApiClients.class.getPackage().getImplementationVersion();
    return "ioqos-" + role + "/" + (version == null ? "dev" : version);
  }
}
