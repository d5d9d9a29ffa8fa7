package dev.ioqos.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The monitoring shipped in {@code deploy/monitoring/}, checked by the tools that consume it:
 * {@code promtool check rules} and {@code promtool test rules} on the alerts, the PrometheusRule
 * holding exactly those alerts, the PodMonitor, and the Grafana dashboard's panels. {@link
 * MetricsIT} runs the same queries against a live agent.
 */
class MonitoringIT {
  static final Path MONITORING =
      Path.of(System.getProperty("user.dir")).resolve("../deploy/monitoring").normalize();
  final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
  final ObjectMapper json = new ObjectMapper();

  @Test
  void promtoolChecksTheAlertRules() {
    PrometheusBinaries.Result check =
        PrometheusBinaries.promtool(MONITORING, null, "check", "rules", "ioqos-alerts.rules.yml");

    assertThat(check.exit()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: 6 rules found");
  }

  @Test
  void promtoolUnitTestsOfTheAlertsPass() {
    PrometheusBinaries.Result test =
        PrometheusBinaries.promtool(
            MONITORING, null, "test", "rules", "tests/ioqos-alerts.test.yml");

    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  void thePrometheusRuleHoldsExactlyTheCheckedRules() throws Exception {
    JsonNode rules = yaml.readTree(MONITORING.resolve("ioqos-alerts.rules.yml").toFile());
    JsonNode resource = yaml.readTree(MONITORING.resolve("prometheusrule.yaml").toFile());

    assertThat(resource.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(resource.path("kind").asText()).isEqualTo("PrometheusRule");
    assertThat(resource.get("spec")).isEqualTo(rules);
    List<String> alerts = new ArrayList<>();
    rules
        .get("groups")
        .forEach(g -> g.get("rules").forEach(r -> alerts.add(r.get("alert").asText())));
    assertThat(alerts)
        .contains(
            "IoqosPodStalledOnIo",
            "IoqosTierNotApplied",
            "IoqosNodeCannotEnforceWeights",
            "IoqosLatencyTargetMissed");
  }

  @Test
  void thePodMonitorScrapesTheAgentsMetricsPortAndLabelsTheNode() throws Exception {
    JsonNode monitor = yaml.readTree(MONITORING.resolve("podmonitor.yaml").toFile());

    assertThat(monitor.path("kind").asText()).isEqualTo("PodMonitor");
    JsonNode endpoint = monitor.at("/spec/podMetricsEndpoints/0");
    assertThat(endpoint.path("port").asText()).isEqualTo("metrics");
    assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
    assertThat(endpoint.path("honorLabels").asBoolean()).isTrue();
    // The install's metrics port is HTTPS with token authorisation (metrics.secure).
    assertThat(endpoint.path("scheme").asText()).isEqualTo("https");
    assertThat(endpoint.at("/authorization/type").asText()).isEqualTo("Bearer");
    assertThat(endpoint.at("/authorization/credentials/name").asText())
        .isEqualTo("ioqos-metrics-scraper-token");
    assertThat(endpoint.get("relabelings").toString())
        .contains("__meta_kubernetes_pod_node_name")
        .contains("\"targetLabel\":\"node\"");
  }

  @Test
  void theDashboardIsGrafanaJsonWithTheAdvertisedPanels() throws Exception {
    JsonNode dashboard = json.readTree(MONITORING.resolve("grafana-dashboard.json").toFile());

    assertThat(dashboard.path("uid").asText()).isEqualTo("ioqos-io");
    assertThat(dashboard.path("schemaVersion").asInt()).isPositive();
    List<String> titles = new ArrayList<>();
    dashboard
        .get("panels")
        .forEach(p -> titles.add(p.get("type").asText() + ": " + p.get("title").asText()));
    assertThat(titles)
        .contains(
            "timeseries: Throughput by tier",
            "bargauge: Top pods by bytes",
            "heatmap: I/O pressure heatmap (share of time pods waited on I/O)",
            "timeseries: Apply failures");
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
      panel
          .get("targets")
          .forEach(
              t ->
                  assertThat(t.path("expr").asText())
                      .as(panel.get("title").asText())
                      .contains("ioqos_"));
    }
    assertThat(dashboard.at("/panels/0/targets/0/expr").asText())
        .contains("sum by (tier)")
        .contains("ioqos_pod_io_read_bytes_total");
  }
}
