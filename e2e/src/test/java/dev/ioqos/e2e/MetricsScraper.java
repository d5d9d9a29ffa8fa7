package dev.ioqos.e2e;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A scraper's identity as the install expects one: a ServiceAccount, optionally bound to the
 * ClusterRole {@code ioqos-metrics-reader} (get on the non-resource URL /metrics), and its token.
 */
final class MetricsScraper {
  private MetricsScraper() {}

  /** Creates (or keeps) the ServiceAccount {@code namespace/name}. */
  static void account(KubernetesClient client, String namespace, String name) {
    client
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .serverSideApply();
  }

  /**
   * Binds {@code namespace/name} to ioqos-metrics-reader with the ClusterRoleBinding {@code
   * binding}.
   */
  static void allow(KubernetesClient client, String binding, String namespace, String name) {
    client
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(binding)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "ioqos-metrics-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(name)
                .withNamespace(namespace)
                .endSubject()
                .build())
        .serverSideApply();
  }

  /** A token of {@code namespace/name} valid for {@code seconds}. */
  static String token(KubernetesClient client, String namespace, String name, long seconds) {
    return client
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder()
                .withNewSpec()
                .withExpirationSeconds(seconds)
                .endSpec()
                .build())
        .getStatus()
        .getToken();
  }
}
