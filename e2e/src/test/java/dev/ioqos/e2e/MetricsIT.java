package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ioqos.agent.Agent;
import dev.ioqos.agent.AgentConfig;
import dev.ioqos.core.QosClass;
import dev.ioqos.metrics.MetricsServer;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Prometheus as the consumer: a real Prometheus server scrapes the agent (real API server, node
 * tree in a temp directory) every second while the test advances the pods' io.stat counters as a
 * kernel would, and answers per-pod and per-tier rate() queries through its HTTP API. The same
 * scrape passes {@code promtool check metrics}, and every query of the shipped alerts and dashboard
 * runs against it.
 */
class MetricsIT extends AgentTestSupport {
  static final long MIB = 1024 * 1024;
  static final Path MONITORING =
      Path.of(System.getProperty("user.dir")).resolve("../deploy/monitoring").normalize();

  final HttpClient http = HttpClient.newHttpClient();
  final ScheduledExecutorService kernel = Executors.newSingleThreadScheduledExecutor();
  MetricsServer server;
  PrometheusServer prometheus;

  @AfterEach
  void stopServers() {
    kernel.shutdownNow();
    if (prometheus != null) {
      prometheus.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void prometheusScrapesTheAgentAndAnswersWriteRatesPerPodAndTier() throws Exception {
    policy("rates", "");
    agent =
        new Agent(
            new AgentConfig(
                nodeName, node.config(), temp.resolve("state"), false, Duration.ofSeconds(2)),
            TestCluster.get().newClient());
    server =
        MetricsServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            agent.metrics(),
            agent::ready);
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/readyz").statusCode())
        .as("not ready before the informers synced")
        .isEqualTo(503);
    agent.start();
    assertThat(get("/readyz").statusCode()).isEqualTo(200);

    Pod fast = pod("fast", "high", nodeName);
    Pod slow = pod("slow", "low", nodeName);
    node.createPod(uid(fast), QosClass.BURSTABLE);
    node.createPod(uid(slow), QosClass.BURSTABLE);
    awaitCap(slow, LOW_CAP);
    eventually(() -> file(fast, "io.bfq.weight"), "default 136\n"::equals, "fast is applied");

    // The "kernel": fast writes 4 MiB/s and slow 1 MiB/s to vdb (254:16), in 100 ms steps.
    Map<Pod, Long> rates = Map.of(fast, 4 * MIB, slow, MIB);
    Map<Pod, long[]> written = new HashMap<>();
    rates.keySet().forEach(p -> written.put(p, new long[1]));
    kernel.scheduleAtFixedRate(
        () ->
            rates.forEach(
                (pod, perSecond) -> {
                  long bytes = written.get(pod)[0] += perSecond / 10;
                  ioStat(pod, bytes);
                }),
        0,
        100,
        TimeUnit.MILLISECONDS);

    prometheus =
        PrometheusServer.start(
            temp.resolve("prometheus"),
            "global:\n"
                + "  scrape_interval: 1s\n"
                + "  scrape_timeout: 1s\n"
                + "  evaluation_interval: 1s\n"
                + "rule_files:\n"
                + "  - "
                + MONITORING.resolve("ioqos-alerts.rules.yml")
                + "\n"
                + "scrape_configs:\n"
                + "  - job_name: ioqos-agent\n"
                + "    honor_labels: true\n"
                + "    static_configs:\n"
                + "      - targets: ['127.0.0.1:"
                + server.port()
                + "']\n"
                // What the PodMonitor's relabeling adds in a cluster.
                + "        labels: {node: "
                + nodeName
                + "}\n");

    // rate() extrapolates less for a series younger than its window: wait for 10 s of samples.
    String writtenSeries =
        "ioqos_pod_io_written_bytes_total{namespace=\""
            + namespace
            + "\", device=\"254:16\", device_name=\"vdb\"}";
    awaitSamples("count_over_time(" + writtenSeries + "[10s])", 2, 9);
    Map<String, Double> perPod =
        vector(
            prometheus.query("sum by (pod, tier) (rate(" + writtenSeries + "[10s]))"),
            "pod",
            "tier");
    assertThat(perPod).containsOnlyKeys("fast/high", "slow/low");
    assertThat(perPod.get("fast/high")).isCloseTo(4.0 * MIB, within(0.8 * MIB));
    assertThat(perPod.get("slow/low")).isCloseTo(1.0 * MIB, within(0.2 * MIB));

    Map<String, Double> perTier =
        vector(
            prometheus.query(
                "sum by (tier) (rate(ioqos_pod_io_written_bytes_total{namespace=\""
                    + namespace
                    + "\"}[10s]))"),
            "tier");
    assertThat(perTier.get("high")).isCloseTo(4.0 * MIB, within(0.8 * MIB));
    assertThat(perTier.get("low")).isCloseTo(1.0 * MIB, within(0.2 * MIB));
    assertThat(
            vector(
                prometheus.query(
                    "ioqos_pod_io_max_bytes_per_second{namespace=\""
                        + namespace
                        + "\", direction=\"write\"}"),
                "pod"))
        .containsExactly(Map.entry("slow", 20.0 * MIB));
    assertThat(vector(prometheus.query("ioqos_pod_tier_applied{node=\"" + nodeName + "\"}"), "pod"))
        .containsEntry("fast", 1.0)
        .containsEntry("slow", 1.0);

    String scrape = get("/metrics").body();
    System.out.println(scrape);
    PrometheusBinaries.Result lint = PrometheusBinaries.promtool(temp, scrape, "check", "metrics");
    assertThat(lint.exit()).as("promtool check metrics:\n" + lint.output()).isZero();
    assertThat(lint.output()).as("promtool check metrics").isBlank();

    assertEveryShippedQueryRuns(scrape);

    // The pod goes: after the agent's resync (2 s here) its series go too.
    client.resource(slow).withGracePeriod(0).delete();
    eventually(
        () -> get("/metrics").body(), text -> !text.contains("pod=\"slow\""), "slow's series gone");
    assertThat(get("/metrics").body()).contains("pod=\"fast\"");
  }

  /** Every metric the alerts and the dashboard name exists, and every query evaluates. */
  private void assertEveryShippedQueryRuns(String scrape) throws IOException {
    String rules = Files.readString(MONITORING.resolve("ioqos-alerts.rules.yml"));
    String dashboard = Files.readString(MONITORING.resolve("grafana-dashboard.json"));
    Set<String> named = new TreeSet<>();
    Matcher metric = Pattern.compile("ioqos_[a-z_]+").matcher(rules + dashboard);
    while (metric.find()) {
      named.add(metric.group());
    }
    assertThat(named).hasSizeGreaterThan(8);
    for (String name : named) {
      if (name.startsWith("ioqos_latency_loop_")) {
        // The latency loop's series exist only on disks where it runs (a protected pod on a
        // kernel without io.latency); this node has none. KernelLatencyLoopIT runs the loop.
        continue;
      }
      assertThat(scrape).as("the scrape has " + name).containsPattern("(?m)^" + name + "[{ ]");
    }

    JsonNode groups =
        eventually(
            () -> prometheus.api("/api/v1/rules").get("groups"),
            g -> g.size() == 1 && g.get(0).path("rules").get(0).has("lastEvaluation"),
            "prometheus loaded and evaluated the alert rules");
    for (JsonNode rule : groups.get(0).get("rules")) {
      assertThat(rule.path("health").asText())
          .as(rule.path("name").asText() + ": " + rule.path("lastError").asText())
          .isEqualTo("ok");
    }

    for (JsonNode panel :
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(dashboard).get("panels")) {
      for (JsonNode target : panel.get("targets")) {
        String expr =
            target
                .get("expr")
                .asText()
                .replace("$__rate_interval", "5s")
                .replace("$__range", "30s")
                .replace("$node", ".*")
                .replace("$namespace", ".*")
                .replace("$tier", ".*");
        JsonNode result = prometheus.query(expr);
        assertThat(result).as(panel.get("title").asText() + ": " + expr).isNotNull();
      }
    }
  }

  /** Waits until {@code series} series of {@code countQuery} each have {@code samples}. */
  private void awaitSamples(String countQuery, int series, int samples) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      last = prometheus.query(countQuery);
      int ready = 0;
      for (JsonNode sample : last) {
        ready += Double.parseDouble(sample.get("value").get(1).asText()) >= samples ? 1 : 0;
      }
      if (ready == series) {
        return;
      }
      sleep(500);
    }
    throw new AssertionError(
        "prometheus has not scraped "
            + samples
            + " samples of "
            + series
            + " series: "
            + countQuery
            + " = "
            + last
            + "\n"
            + prometheus.log());
  }

  private static Map<String, Double> vector(JsonNode result, String... labels) {
    Map<String, Double> values = new HashMap<>();
    for (JsonNode sample : result) {
      StringBuilder key = new StringBuilder();
      for (String label : labels) {
        key.append(key.length() == 0 ? "" : "/").append(sample.get("metric").path(label).asText());
      }
      values.put(key.toString(), Double.parseDouble(sample.get("value").get(1).asText()));
    }
    return values;
  }

  /**
   * Gives the pod's io.stat new content in place, as the kernel's file changes: the agent keeps the
   * file open from scrape to scrape and reads it again from offset 0.
   */
  private void ioStat(Pod pod, long writtenBytes) {
    Path dir = node.podDir(uid(pod), QosClass.BURSTABLE);
    try {
      Files.writeString(
          dir.resolve("io.stat"),
          "254:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n"
              + "254:16 rbytes=0 wbytes="
              + writtenBytes
              + " rios=0 wios="
              + writtenBytes / 4096
              + " dbytes=0 dios=0\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HttpResponse<String> get(String path) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
