package dev.ioqos.metrics;

import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.escapeMetricSnapshot;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getExpositionBaseMetadataName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getLegacyGaugeName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getMetadataName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getSnapshotLabelName;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.expositionformats.TextFormatUtil;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Writes the meter registry's snapshots into an {@link Exposition} in the Prometheus text format
 * (0.0.4), byte for byte as the client library's {@link PrometheusTextFormatWriter} writes them for
 * a scrape (no created timestamps, the default escaping). That writer goes through a synchronized
 * {@code BufferedWriter} one character at a time; with the agent's C1-only JIT it was most of a
 * scrape's time outside the pods' files (about 150 series, 2-3 ms).
 *
 * <p>Counters, gauges, classic histograms and summaries (all that Micrometer's collector makes) are
 * written here; anything else (info, state sets, unknown, gauge histograms, names outside the
 * legacy character set, data points with timestamps) goes through the library's writer, one
 * snapshot at a time, so the text stays the same either way.
 */
final class SnapshotText {
  private static final EscapingScheme SCHEME = EscapingScheme.DEFAULT;
  private static final PrometheusTextFormatWriter LIBRARY = PrometheusTextFormatWriter.create();

  private SnapshotText() {}

  static void write(MetricSnapshots snapshots, Exposition out) {
    MetricSnapshots merged =
        hasDuplicateNames(snapshots) ? TextFormatUtil.mergeDuplicates(snapshots) : snapshots;
    for (MetricSnapshot raw : merged) {
      MetricSnapshot snapshot = escapeMetricSnapshot(raw, SCHEME);
      if (snapshot.getDataPoints().isEmpty()) {
        continue;
      }
      if (!(snapshot instanceof CounterSnapshot
              || snapshot instanceof GaugeSnapshot
              || (snapshot instanceof HistogramSnapshot histogram && !histogram.isGaugeHistogram())
              || snapshot instanceof SummarySnapshot)
          || !plain(snapshot)) {
        library(raw, out);
      } else if (snapshot instanceof CounterSnapshot counter) {
        if (!counter(counter, out)) {
          library(raw, out);
        }
      } else if (snapshot instanceof GaugeSnapshot gauge) {
        if (!gauge(gauge, raw.getMetadata().getOriginalName(), out)) {
          library(raw, out);
        }
      } else if (snapshot instanceof HistogramSnapshot histogram) {
        histogram(histogram, out);
      } else {
        summary((SummarySnapshot) snapshot, out);
      }
    }
  }

  /** The snapshots come sorted by name: a name given twice is given by neighbours. */
  private static boolean hasDuplicateNames(MetricSnapshots snapshots) {
    String previous = null;
    for (MetricSnapshot snapshot : snapshots) {
      String name = snapshot.getMetadata().getPrometheusName();
      if (name.equals(previous)) {
        return true;
      }
      previous = name;
    }
    return false;
  }

  /** Legacy names only and no timestamps: what this class writes without the library. */
  private static boolean plain(MetricSnapshot snapshot) {
    if (!legacyName(getMetadataName(snapshot.getMetadata(), SCHEME), true)) {
      return false;
    }
    for (DataPointSnapshot point : snapshot.getDataPoints()) {
      if (point.hasScrapeTimestamp()) {
        return false;
      }
      Labels labels = point.getLabels();
      for (int i = 0; i < labels.size(); i++) {
        if (!legacyName(getSnapshotLabelName(labels, i, SCHEME), false)) {
          return false;
        }
      }
    }
    return true;
  }

  /** {@code [a-zA-Z_:][a-zA-Z0-9_:]*} for a metric, without ':' for a label. */
  static boolean legacyName(String name, boolean metric) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || c == '_'
              || (metric && c == ':')
              || (i > 0 && c >= '0' && c <= '9');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** False, with nothing written, when its full name is not a legacy one. */
  private static boolean counter(CounterSnapshot snapshot, Exposition out) {
    MetricMetadata metadata = snapshot.getMetadata();
    String base = getExpositionBaseMetadataName(metadata, SCHEME);
    String name = base.endsWith("_total") ? base : getMetadataName(metadata, SCHEME) + "_total";
    if (!legacyName(name, true)) {
      return false;
    }
    metadata(name, "counter", metadata, out);
    values(name, snapshot.getDataPoints(), CounterSnapshot.CounterDataPointSnapshot::getValue, out);
    return true;
  }

  /** False, with nothing written, when its full name is not a legacy one. */
  private static boolean gauge(GaugeSnapshot snapshot, String originalName, Exposition out) {
    MetricMetadata metadata = snapshot.getMetadata();
    String name = getLegacyGaugeName(metadata, originalName, SCHEME);
    if (!legacyName(name, true)) {
      return false;
    }
    metadata(name, "gauge", metadata, out);
    values(name, snapshot.getDataPoints(), GaugeSnapshot.GaugeDataPointSnapshot::getValue, out);
    return true;
  }

  /** One line per point: name, labels, value. */
  private static <P extends DataPointSnapshot> void values(
      String name, List<P> points, ToDoubleFunction<P> value, Exposition out) {
    for (P point : points) {
      nameAndLabels(name, point.getLabels(), null, 0, out);
      number(value.applyAsDouble(point), out);
      out.append((byte) '\n');
    }
  }

  private static void histogram(HistogramSnapshot snapshot, Exposition out) {
    MetricMetadata metadata = snapshot.getMetadata();
    String name = getMetadataName(metadata, SCHEME);
    metadata(name, "histogram", metadata, out);
    String bucket = name + "_bucket";
    for (HistogramSnapshot.HistogramDataPointSnapshot point : snapshot.getDataPoints()) {
      ClassicHistogramBuckets buckets = point.getClassicBuckets();
      if (buckets.isEmpty()) {
        // Only native buckets: the text format shows one +Inf bucket holding the count.
        nameAndLabels(bucket, point.getLabels(), "le", Double.POSITIVE_INFINITY, out);
        integer(point.getCount(), out);
        out.append((byte) '\n');
      } else {
        long cumulative = 0;
        for (int i = 0; i < buckets.size(); i++) {
          cumulative += buckets.getCount(i);
          nameAndLabels(bucket, point.getLabels(), "le", buckets.getUpperBound(i), out);
          integer(cumulative, out);
          out.append((byte) '\n');
        }
      }
      countAndSum(
          name, point.hasCount(), point.getCount(), point.hasSum(), point.getSum(), point, out);
    }
  }

  private static void summary(SummarySnapshot snapshot, Exposition out) {
    MetricMetadata metadata = snapshot.getMetadata();
    String name = getMetadataName(metadata, SCHEME);
    boolean described = false;
    for (SummarySnapshot.SummaryDataPointSnapshot point : snapshot.getDataPoints()) {
      if (point.getQuantiles().size() == 0 && !point.hasCount() && !point.hasSum()) {
        continue;
      }
      if (!described) {
        metadata(name, "summary", metadata, out);
        described = true;
      }
      for (Quantile quantile : point.getQuantiles()) {
        nameAndLabels(name, point.getLabels(), "quantile", quantile.getQuantile(), out);
        number(quantile.getValue(), out);
        out.append((byte) '\n');
      }
      countAndSum(
          name, point.hasCount(), point.getCount(), point.hasSum(), point.getSum(), point, out);
    }
  }

  private static void countAndSum(
      String name,
      boolean hasCount,
      long count,
      boolean hasSum,
      double sum,
      DataPointSnapshot point,
      Exposition out) {
    if (hasCount) {
      nameAndLabels(name + "_count", point.getLabels(), null, 0, out);
      integer(count, out);
      out.append((byte) '\n');
    }
    if (hasSum) {
      nameAndLabels(name + "_sum", point.getLabels(), null, 0, out);
      number(sum, out);
      out.append((byte) '\n');
    }
  }

  private static void metadata(String name, String type, MetricMetadata metadata, Exposition out) {
    String help = metadata.getHelp();
    if (help != null && !help.isEmpty()) {
      out.appendAscii("# HELP ").appendAscii(name).append((byte) ' ');
      out.appendText(Exposition.escape(help, false)).append((byte) '\n');
    }
    out.appendAscii("# TYPE ").appendAscii(name).append((byte) ' ').appendAscii(type);
    out.append((byte) '\n');
  }

  /** The name, the labels in braces (with the extra one last, if any) and a space. */
  private static void nameAndLabels(
      String name, Labels labels, String extraName, double extraValue, Exposition out) {
    out.appendAscii(name);
    if (!labels.isEmpty() || extraName != null) {
      out.append((byte) '{');
      for (int i = 0; i < labels.size(); i++) {
        if (i > 0) {
          out.append((byte) ',');
        }
        out.appendAscii(getSnapshotLabelName(labels, i, SCHEME)).appendAscii("=\"");
        out.appendText(Exposition.escape(labels.getValue(i))).append((byte) '"');
      }
      if (extraName != null) {
        if (!labels.isEmpty()) {
          out.append((byte) ',');
        }
        out.appendAscii(extraName).appendAscii("=\"");
        number(extraValue, out);
        out.append((byte) '"');
      }
      out.append((byte) '}');
    }
    out.append((byte) ' ');
  }

  /** A double as the text format writes it: +Inf, -Inf, else {@link Double#toString(double)}. */
  private static void number(double value, Exposition out) {
    if (value == Double.POSITIVE_INFINITY) {
      out.appendAscii("+Inf");
    } else if (value == Double.NEGATIVE_INFINITY) {
      out.appendAscii("-Inf");
    } else {
      out.value(value);
    }
  }

  private static void integer(long value, Exposition out) {
    out.appendAscii(Long.toString(value));
  }

  private static void library(MetricSnapshot snapshot, Exposition out) {
    try {
      LIBRARY.write(out.stream(), MetricSnapshots.of(snapshot), SCHEME);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
  }
}
