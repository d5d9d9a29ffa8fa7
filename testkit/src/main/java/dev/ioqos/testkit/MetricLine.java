package dev.ioqos.testkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One sample line of the Prometheus text format: {@code name{label="value",...} 1.0}; the one
 * reader of {@code /metrics} for the demo, the benchmark and the end-to-end tests.
 */
public record MetricLine(String text, String name, Map<String, String> labels, double value) {
  private static final Pattern LINE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\d+)?$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The sample lines of a scrape; comments and blank lines are skipped. */
  public static List<MetricLine> parse(String scrape) {
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
      value = number(matcher.group(3));
    } catch (NumberFormatException e) {
      return null;
    }
    return new MetricLine(line.strip(), matcher.group(1), labels, value);
  }

  private static double number(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  /** The value of a label, or "" without it. */
  public String label(String name) {
    return labels.getOrDefault(name, "");
  }

  /** Whether this sample has every one of {@code labels} with that value. */
  public boolean has(Map<String, String> wanted) {
    return labels.entrySet().containsAll(wanted.entrySet());
  }

  /** The sum of every sample of {@code name} in {@code scrape} that has each of {@code labels}. */
  public static double sum(String scrape, String name, Map<String, String> labels) {
    return parse(scrape).stream()
        .filter(l -> l.name().equals(name) && l.has(labels))
        .mapToDouble(MetricLine::value)
        .sum();
  }
}
