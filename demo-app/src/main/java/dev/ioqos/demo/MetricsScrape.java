package dev.ioqos.demo;

import dev.ioqos.testkit.Eventually;
import dev.ioqos.testkit.MetricLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Reads the agent's {@code /metrics} over HTTP, as Prometheus would. */
final class MetricsScrape {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI uri;

  MetricsScrape(int port) {
    this.uri = URI.create("http://127.0.0.1:" + port + "/metrics");
  }

  String url() {
    return uri.toString();
  }

  String scrape() {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET " + uri + " answered " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + uri + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during GET " + uri, e);
    }
  }

  /** The ioqos_pod_* samples of the given pods, by pod then metric name, zero counters left out. */
  List<MetricLine> podLines(List<DemoPod> pods) {
    Set<String> names = pods.stream().map(DemoPod::name).collect(Collectors.toSet());
    return MetricLine.parse(scrape()).stream()
        .filter(l -> l.name().startsWith("ioqos_pod_"))
        .filter(l -> l.label("namespace").equals(DemoCluster.NAMESPACE))
        .filter(l -> names.contains(l.label("pod")))
        .filter(l -> l.value() != 0 || l.name().equals("ioqos_pod_tier_applied"))
        .sorted(
            Comparator.comparing((MetricLine l) -> order(pods, l.label("pod")))
                .thenComparing(MetricLine::name)
                .thenComparing(MetricLine::text))
        .toList();
  }

  /** Waits until {@code metric} is non-zero for every pod. */
  void awaitNonZero(List<DemoPod> pods, String metric) {
    Eventually.until(
        metric + " of every demo pod to be non-zero",
        () -> {
          List<MetricLine> lines = podLines(pods);
          return pods.stream()
              .allMatch(
                  p ->
                      lines.stream()
                          .anyMatch(
                              l ->
                                  l.name().equals(metric)
                                      && l.label("pod").equals(p.name())
                                      && l.value() > 0));
        });
  }

  private static int order(List<DemoPod> pods, String name) {
    for (int i = 0; i < pods.size(); i++) {
      if (pods.get(i).name().equals(name)) {
        return i;
      }
    }
    return pods.size();
  }
}
