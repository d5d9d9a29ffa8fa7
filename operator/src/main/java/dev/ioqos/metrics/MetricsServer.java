package dev.ioqos.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP ports, on the JDK's own HTTP server: the metrics port serves {@code /metrics}
 * (Prometheus text) and the probes, the probe port only {@code /healthz} (the agent makes progress:
 * {@link Health#stuck()}) and {@code /readyz} (the informers synced and the node was probed). Each
 * port has its own two threads, so kubelet's probes never queue behind scrapers, and the server
 * drops a connection that takes longer than {@link #REQUEST_SECONDS} to send its request or {@link
 * #RESPONSE_SECONDS} to take its answer (a slow or hostile client holds a thread for that long at
 * most).
 */
public final class MetricsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);

  /** A client must send its request line and headers within this many seconds. */
  public static final int REQUEST_SECONDS = 5;

  /** A client must read the whole answer within this many seconds. */
  public static final int RESPONSE_SECONDS = 30;

  static {
    // The JDK server reads these once, when its first instance is made; without them a client
    // that never finishes its headers holds one of the port's threads forever.
    System.setProperty(
        "sun.net.httpserver.maxReqTime",
        System.getProperty("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS)));
    System.setProperty(
        "sun.net.httpserver.maxRspTime",
        System.getProperty("sun.net.httpserver.maxRspTime", Integer.toString(RESPONSE_SECONDS)));
  }

  /** What the probes report; implemented by the agent. */
  public interface Health {
    /** Ready for traffic: informers synced, node probed. */
    boolean ready();

    /** Why the agent is stuck (the liveness probe fails), or empty while it makes progress. */
    Optional<String> stuck();

    /** A health that only knows readiness. */
    static Health readyWhen(BooleanSupplier ready) {
      return new Health() {
        @Override
        public boolean ready() {
          return ready.getAsBoolean();
        }

        @Override
        public Optional<String> stuck() {
          return Optional.empty();
        }
      };
    }
  }

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
    return start(address, metrics, Health.readyWhen(ready));
  }

  /** The metrics port: {@code /metrics}, {@code /healthz} and {@code /readyz}. */
  public static MetricsServer start(InetSocketAddress address, AgentMetrics metrics, Health health)
      throws IOException {
    return serve(address, metrics, health, "ioqos-metrics-http");
  }

  /** The probe port: {@code /healthz} and {@code /readyz} only. */
  public static MetricsServer startProbes(InetSocketAddress address, Health health)
      throws IOException {
    return serve(address, null, health, "ioqos-probes-http");
  }

  private static MetricsServer serve(
      InetSocketAddress address, AgentMetrics metrics, Health health, String threadName)
      throws IOException {
    HttpServer server = HttpServer.create(address, 0);
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread thread = new Thread(r, threadName);
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            serve(exchange, metrics, health);
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
        "serving {} on {}:{}",
        metrics == null ? "/healthz and /readyz" : "/metrics, /healthz and /readyz",
        address.getHostString(),
        server.getAddress().getPort());
    return new MetricsServer(server, executor);
  }

  private static void serve(HttpExchange exchange, AgentMetrics metrics, Health health)
      throws IOException {
    String method = exchange.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      text(exchange, 405, "only GET and HEAD\n");
      return;
    }
    switch (exchange.getRequestURI().getPath()) {
      case "/metrics" -> {
        if (metrics == null) {
          text(exchange, 404, "not found: this port serves /healthz and /readyz\n");
          return;
        }
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
      case "/healthz" -> {
        Optional<String> stuck = health.stuck();
        if (stuck.isPresent()) {
          text(exchange, 503, "stuck: " + stuck.get() + "\n");
        } else {
          text(exchange, 200, "ok\n");
        }
      }
      case "/readyz" -> {
        if (health.ready()) {
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
