package dev.ioqos.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's one HTTP port: {@code /metrics} (Prometheus text), {@code /healthz} (the process
 * answers) and {@code /readyz} (the informers synced and the node was probed). The JDK's own HTTP
 * server, two threads, so that a probe is not queued behind a slow scrape.
 */
public final class MetricsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicBoolean closed = new AtomicBoolean();

  private MetricsServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Binds {@code address} (port 0: any free port) and serves until closed.
   *
   * @param ready true once the agent may be sent traffic; {@code /readyz} answers 503 before
   */
  public static MetricsServer start(
      InetSocketAddress address, AgentMetrics metrics, BooleanSupplier ready) throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread thread = new Thread(r, "ioqos-metrics-http");
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            serve(exchange, metrics, ready);
          } catch (IOException e) {
            // The client hung up before the answer was written: kubelet's probe after its
            // timeout on a slow node (the real-node test saw bursts of these while the JVM
            // started), or a scraper that gave up. Nothing to repair here.
            LOG.debug(
                "{} {}: the client went away: {}",
                exchange.getRequestMethod(),
                exchange.getRequestURI(),
                e.toString());
          } catch (RuntimeException e) {
            LOG.warn("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
          }
        });
    server.start();
    LOG.info(
        "serving /metrics, /healthz and /readyz on {}:{}",
        address.getHostString(),
        server.getAddress().getPort());
    return new MetricsServer(server, executor);
  }

  private static void serve(HttpExchange exchange, AgentMetrics metrics, BooleanSupplier ready)
      throws IOException {
    String method = exchange.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      text(exchange, 405, "only GET and HEAD\n");
      return;
    }
    switch (exchange.getRequestURI().getPath()) {
      case "/metrics" -> {
        exchange.getResponseHeaders().set("Content-Type", AgentMetrics.CONTENT_TYPE);
        if (method.equals("HEAD")) {
          exchange.sendResponseHeaders(200, -1);
          return;
        }
        // Rendered whole into a reused buffer first, then sent with its length in one write.
        metrics.scrape(
            length -> {
              exchange.sendResponseHeaders(200, length == 0 ? -1 : length);
              return exchange.getResponseBody();
            });
      }
      case "/healthz" -> text(exchange, 200, "ok\n");
      case "/readyz" -> {
        if (ready.getAsBoolean()) {
          text(exchange, 200, "ready\n");
        } else {
          text(exchange, 503, "not ready: informers not synced or node not probed yet\n");
        }
      }
      default -> text(exchange, 404, "not found; try /metrics, /healthz or /readyz\n");
    }
  }

  private static void text(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** The port bound, useful when started on port 0. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Stops serving; closing twice (shutdown hook and try block) is harmless. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      server.stop(0);
      executor.shutdownNow();
    }
  }
}
