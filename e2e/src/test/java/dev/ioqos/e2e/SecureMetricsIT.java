package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.agent.KubernetesMetricsAuth;
import dev.ioqos.core.IoSettings;
import dev.ioqos.metrics.AgentMetrics;
import dev.ioqos.metrics.MetricsAuth.Verdict;
import dev.ioqos.metrics.MetricsServer;
import dev.ioqos.metrics.SelfSignedCertificate;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The secure metrics port against a real API server: TokenReview and SubjectAccessReview decide,
 * over HTTPS with the certificate the agent makes at start; the ClusterRole is the chart's.
 */
class SecureMetricsIT {
  static final String NS = "secure-metrics";
  static KubernetesClient client;

  @BeforeAll
  static void accounts() {
    client = TestCluster.get().newClient();
    client
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .serverSideApply();
    for (String name : List.of("scraper", "stranger")) {
      MetricsScraper.account(client, NS, name);
    }
    // The chart's ClusterRole for scrapers (charts/ioqos/templates/metrics-rbac.yaml).
    client
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("ioqos-metrics-reader")
                .endMetadata()
                .addNewRule()
                .withNonResourceURLs("/metrics")
                .withVerbs("get")
                .endRule()
                .build())
        .serverSideApply();
    MetricsScraper.allow(client, "secure-metrics-scraper", NS, "scraper");
  }

  @AfterAll
  static void close() {
    client.rbac().clusterRoleBindings().withName("secure-metrics-scraper").delete();
    client.close();
  }

  static String token(String serviceAccount) {
    return MetricsScraper.token(client, NS, serviceAccount, 600);
  }

  KubernetesMetricsAuth auth() {
    return new KubernetesMetricsAuth(client, Clock.systemUTC(), Duration.ofMinutes(1));
  }

  @Test
  void tokenReviewAndSubjectAccessReviewDecide() {
    KubernetesMetricsAuth auth = auth();

    assertThat(auth.check(Optional.of(token("scraper")))).isEqualTo(Verdict.ALLOWED);
    assertThat(auth.check(Optional.of(token("stranger")))).isEqualTo(Verdict.FORBIDDEN);
    assertThat(auth.check(Optional.of("not-a-token"))).isEqualTo(Verdict.UNAUTHENTICATED);
    assertThat(auth.check(Optional.empty())).isEqualTo(Verdict.UNAUTHENTICATED);
  }

  @Test
  void aScraperReadsMetricsOverHttpsWithItsTokenAndNobodyElseDoes() throws Exception {
    SelfSignedCertificate certificate =
        SelfSignedCertificate.create(
            "ioqos-agent test",
            List.of("localhost"),
            List.of(InetAddress.getLoopbackAddress()),
            Duration.ofDays(1));
    char[] password = new char[0];
    KeyStore keys = certificate.keyStore("metrics", password);
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, password);
    SSLContext serverTls = SSLContext.getInstance("TLS");
    serverTls.init(keyManagers.getKeyManagers(), null, null);
    // The scraper pins the agent's certificate (Prometheus would skip verification instead).
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(keys);
    SSLContext clientTls = SSLContext.getInstance("TLS");
    clientTls.init(null, trust.getTrustManagers(), null);
    HttpClient http = HttpClient.newBuilder().sslContext(clientTls).build();

    try (AgentMetrics metrics =
            new AgentMetrics(
                () -> null,
                Optional::empty,
                uid -> IoSettings.NONE,
                Path.of("/nonexistent-sys"),
                Path.of("/proc"));
        MetricsServer server =
            MetricsServer.startSecure(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                metrics,
                MetricsServer.Health.readyWhen(() -> true),
                serverTls,
                auth())) {
      URI uri = URI.create("https://localhost:" + server.port() + "/metrics");
      HttpResponse<String> allowed =
          http.send(
              HttpRequest.newBuilder(uri)
                  .header("Authorization", "Bearer " + token("scraper"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> forbidden =
          http.send(
              HttpRequest.newBuilder(uri)
                  .header("Authorization", "Bearer " + token("stranger"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> anonymous =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> probe =
          http.send(
              HttpRequest.newBuilder(uri.resolve("/healthz")).build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(allowed.statusCode()).isEqualTo(200);
      assertThat(allowed.body()).contains("# TYPE ioqos_");
      assertThat(forbidden.statusCode()).isEqualTo(403);
      assertThat(forbidden.body()).contains("ioqos-metrics-reader");
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"ioqos\"");
      assertThat(probe.statusCode()).as("probes need no token").isEqualTo(200);
    }
  }
}
