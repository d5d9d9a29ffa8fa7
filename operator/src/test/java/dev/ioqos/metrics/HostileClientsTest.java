package dev.ioqos.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ioqos.cgroup.CgroupTree;
import dev.ioqos.core.IoSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that open connections and never finish their request (slow headers) on the metrics port:
 * the probe port keeps answering at once, the metrics port answers again once the server dropped
 * them, and /healthz says when the agent is stuck.
 */
class HostileClientsTest {
  static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  @TempDir Path temp;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  final AtomicReference<Optional<String>> stuck = new AtomicReference<>(Optional.empty());
  final List<Socket> hostile = new ArrayList<>();
  AgentMetrics metrics;
  MetricsServer server;
  MetricsServer probes;

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
    MetricsServer.Health health =
        new MetricsServer.Health() {
          @Override
          public boolean ready() {
            return true;
          }

          @Override
          public Optional<String> stuck() {
            return stuck.get();
          }
        };
    server = MetricsServer.start(new InetSocketAddress(LOOPBACK, 0), metrics, health);
    probes = MetricsServer.startProbes(new InetSocketAddress(LOOPBACK, 0), health);
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket socket : hostile) {
      socket.close();
    }
    server.close();
    probes.close();
    metrics.close();
  }

  HttpResponse<String> get(MetricsServer on, String path, Duration timeout) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + on.port() + path))
            .timeout(timeout)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Opens connections that send half a request and then nothing. */
  void slowHeaders(MetricsServer on, int connections) throws IOException {
    for (int i = 0; i < connections; i++) {
      Socket socket = new Socket(LOOPBACK, on.port());
      OutputStream out = socket.getOutputStream();
      out.write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      hostile.add(socket);
    }
  }

  @Test
  void probesAnswerWhileSlowClientsHoldTheMetricsPortAndTheMetricsPortRecovers() throws Exception {
    slowHeaders(server, 8);
    Thread.sleep(300);

    long started = System.nanoTime();
    assertThat(get(probes, "/healthz", Duration.ofSeconds(2)).statusCode()).isEqualTo(200);
    assertThat(get(probes, "/readyz", Duration.ofSeconds(2)).statusCode()).isEqualTo(200);
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("the probe port is not queued behind the metrics port's slow clients")
        .isLessThan(Duration.ofSeconds(2));

    // The server drops each slow client after REQUEST_SECONDS; a scrape then gets through.
    HttpResponse<String> scrape =
        get(server, "/metrics", Duration.ofSeconds(MetricsServer.REQUEST_SECONDS * 4L));
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body()).contains("ioqos_");
  }

  @Test
  void theProbePortServesNoMetrics() throws Exception {
    assertThat(get(probes, "/metrics", Duration.ofSeconds(2)).statusCode()).isEqualTo(404);
  }

  @Test
  void healthzFailsWithTheReasonWhileTheAgentIsStuck() throws Exception {
    stuck.set(Optional.of("the pass of pod shop/db has run for 130s"));

    HttpResponse<String> answer = get(probes, "/healthz", Duration.ofSeconds(2));

    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.body()).contains("stuck: the pass of pod shop/db has run for 130s");
    stuck.set(Optional.empty());
    assertThat(get(probes, "/healthz", Duration.ofSeconds(2)).statusCode()).isEqualTo(200);
  }
}
