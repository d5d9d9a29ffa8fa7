package dev.ioqos.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server on loopback, with its own config and TSDB in a temp directory, queried
 * through its HTTP API. Stopped (and waited for) on close.
 */
final class PrometheusServer implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int port;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  private PrometheusServer(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Starts Prometheus with {@code config} (prometheus.yml text) and waits until it is ready. */
  static PrometheusServer start(Path dir, String config) {
    try {
      Files.createDirectories(dir);
      Path configFile = Files.writeString(dir.resolve("prometheus.yml"), config);
      Path log = dir.resolve("prometheus.log");
      int port = freePort();
      Process process =
          new ProcessBuilder(
                  List.of(
                      PrometheusBinaries.find("prometheus").toString(),
                      "--config.file=" + configFile,
                      "--storage.tsdb.path=" + dir.resolve("data"),
                      "--web.listen-address=127.0.0.1:" + port,
                      "--log.level=info"))
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      PrometheusServer server = new PrometheusServer(process, log, port);
      server.awaitReady();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "prometheus exited with " + process.exitValue() + ":\n" + log());
      }
      try {
        if (get("/-/ready").statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      AgentTestSupport.sleep(200);
    }
    throw new IllegalStateException("prometheus did not get ready in 60 s:\n" + log());
  }

  private HttpResponse<String> get(String pathAndQuery) throws IOException {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
              .timeout(Duration.ofSeconds(10))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** GETs an API path and returns its {@code data}; fails on an error status. */
  JsonNode api(String pathAndQuery) {
    try {
      HttpResponse<String> response = get(pathAndQuery);
      JsonNode body = json.readTree(response.body());
      if (response.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
        throw new IllegalStateException(
            "prometheus answered " + response.statusCode() + " to " + pathAndQuery + ": " + body);
      }
      return body.get("data");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An instant PromQL query; the result vector. */
  JsonNode query(String promql) {
    return api("/api/v1/query?query=" + encode(promql)).get("result");
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  /** Prometheus's own log, for failure messages. */
  String log() {
    try {
      String text = Files.readString(log);
      return text.length() > 6000 ? text.substring(text.length() - 6000) : text;
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
