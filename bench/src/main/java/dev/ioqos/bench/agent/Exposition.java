package dev.ioqos.bench.agent;

/** Sums of samples in a Prometheus text exposition. */
final class Exposition {
  private Exposition() {}

  /** The sum of every sample of {@code name} whose labels contain each of {@code labels}. */
  static double sum(String text, String name, String... labels) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      boolean match = true;
      for (String label : labels) {
        match &= line.contains(label);
      }
      if (match) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  static long series(String text) {
    return text.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
  }
}
