package dev.ioqos.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keeps the whole exposition clean for {@code promtool check metrics} and cheap: gives JOSDK's
 * meters (which come without one) a description, and keeps JOSDK's execution timer's count, sum and
 * max but not its 69 histogram buckets: every scrape paid for sorting them, and
 * ioqos_apply_duration_seconds already has buckets for the work that matters.
 */
final class ExpositionHygiene implements MeterFilter {
  private static final String JOSDK = "operator.sdk.";

  /**
   * Descriptions of JOSDK's meters by name prefix after {@code operator.sdk.}, first match wins.
   */
  private static final Map<String, String> JOSDK_DESCRIPTIONS = descriptions();

  private static Map<String, String> descriptions() {
    Map<String, String> byPrefix = new LinkedHashMap<>();
    byPrefix.put(
        "controllers.execution.",
        "JOSDK controller executions (reconcile or cleanup of a pod) and their outcome");
    byPrefix.put("events.received", "Events JOSDK received for the pods of this node");
    byPrefix.put("events.delete", "Delete events JOSDK received for the pods of this node");
    byPrefix.put("reconciliations.started", "Pod reconciliations JOSDK started");
    byPrefix.put("reconciliations.success", "Pod reconciliations that ended without an exception");
    byPrefix.put("reconciliations.failed", "Pod reconciliations that ended with an exception");
    byPrefix.put("reconciliations.retries", "Retries of failed pod reconciliations");
    byPrefix.put("reconciliations.executions", "Pod reconciliations running now");
    byPrefix.put("reconciliations.queue.size", "Pods queued for reconciliation");
    return byPrefix;
  }

  @Override
  public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
    if (!id.getName().startsWith(JOSDK)) {
      return config;
    }
    return DistributionStatisticConfig.builder()
        .percentilesHistogram(false)
        .serviceLevelObjectives()
        .percentiles()
        .build()
        .merge(config);
  }

  @Override
  public Meter.Id map(Meter.Id id) {
    String name = id.getName();
    if (!name.startsWith(JOSDK) || id.getDescription() != null) {
      return id;
    }
    String rest = name.substring(JOSDK.length());
    String description = "JOSDK operator metric " + name;
    for (Map.Entry<String, String> entry : JOSDK_DESCRIPTIONS.entrySet()) {
      if (rest.startsWith(entry.getKey())) {
        description = entry.getValue() + " (JOSDK)";
        break;
      }
    }
    return new Meter.Id(
        name, Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), description, id.getType());
  }
}
