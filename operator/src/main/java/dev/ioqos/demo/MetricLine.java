package dev.ioqos.demo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One sample line of the Prometheus text format: {@code name{label="value",...} 1.0}. */
record MetricLine(String text, String name, Map<String, String> labels, double value) {
  private static final Pattern LINE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\d+)?$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The sample lines of a scrape; comments and blank lines are skipped. */
  static List<MetricLine> parse(String scrape) {
    return scrape
        .lines()
        .filter(line -> !line.isBlank() && !line.startsWith("#"))
        .map(MetricLine::parseLine)
        .filter(line -> line != null)
        .toList();
  }

  private static MetricLine parseLine(String line) {
    Matcher matcher = LINE.matcher(line.strip());
    if (!matcher.matches()) {
      return null;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (matcher.group(2) != null) {
      Matcher label = LABEL.matcher(matcher.group(2));
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
    }
    double value;
    try {
      value = Double.parseDouble(matcher.group(3));
    } catch (NumberFormatException e) {
      return null;
    }
    return new MetricLine(line.strip(), matcher.group(1), labels, value);
  }

  String label(String name) {
    return labels.getOrDefault(name, "");
  }
}
