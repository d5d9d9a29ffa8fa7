package dev.ioqos.metrics;

import static dev.ioqos.metrics.MetricsFixture.FIXTURE_POD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.IoSettings;
import dev.ioqos.core.QosClass;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsServerTest {
  @TempDir Path temp;
  final HttpClient http = HttpClient.newHttpClient();
  final AtomicBoolean ready = new AtomicBoolean();
  AgentMetrics metrics;
  MetricsServer server;

  @BeforeEach
  void start() throws Exception {
    MetricsFixture fixture = new MetricsFixture(temp);
    metrics =
        new AgentMetrics(
            () -> fixture.capabilities,
            () -> Optional.of(new CgroupTree(fixture.cgroupfs, "/kubepods.slice")),
            uid -> IoSettings.NONE,
            fixture.node.resolve("sys"),
            fixture.node.resolve("proc"));
    metrics
        .pods()
        .managed(
            FIXTURE_POD,
            "shop",
            "backup",
            "low",
            MetricsFixture.podPath(FIXTURE_POD, QosClass.BURSTABLE),
            TierState.APPLIED);
    server =
        MetricsServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), metrics, ready::get);
  }

  @AfterEach
  void stop() {
    server.close();
    metrics.close();
  }

  HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthzAnswersAtOnceAndReadyzOnlyWhenTheAgentIsReady() throws Exception {
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/readyz").statusCode()).isEqualTo(503);

    ready.set(true);

    assertThat(get("/readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void metricsAreThePrometheusTextFormatWithPodNodeAndJvmMeters() throws Exception {
    HttpResponse<String> response = get("/metrics");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type"))
        .contains("text/plain; version=0.0.4; charset=utf-8");
    assertThat(response.body())
        .contains("ioqos_pod_io_read_bytes_total{device=\"254:0\",device_name=\"vda\"")
        .contains("ioqos_node_capability{capability=\"psi\"} 1.0")
        .contains("ioqos_apply_total{operation=\"apply\",result=\"success\"} 0.0")
        .contains("ioqos_metrics_read_duration_seconds_count")
        .contains("jvm_memory_used_bytes")
        .contains("process_cpu_seconds_total")
        .doesNotContain("process_cpu_time_ns_total")
        .doesNotContain("system_cpu_count");
  }

  @Test
  void otherPathsAndMethodsAreRefused() throws Exception {
    assertThat(get("/").statusCode()).isEqualTo(404);
    assertThat(get("/metricsx").statusCode()).isEqualTo(404);
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
  }
}
