package dev.ioqos.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.Result;

/**
 * Runs {@link ScrapeBenchmark} and prints one scrape against the bare reads, and their ratio: of
 * the means, and of the 10th, 50th and 90th percentiles of the sampled times (on a machine shared
 * with other work the low percentiles are the least disturbed).
 */
public final class ScrapeBenchmarkMain {
  static final String REPRODUCE =
      "./mvnw -B -q -Pbench -pl bench -am -DskipTests -Dspotless.check.skip=true package"
          + " && java -jar bench/target/ioqos-bench.jar";

  private ScrapeBenchmarkMain() {}

  /** {@code apply [JMH options]} runs {@link ApplyBenchmarkMain}; anything else, the scrape. */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("apply")) {
      ApplyBenchmarkMain.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    ScrapeBenchmark fixture = new ScrapeBenchmark();
    fixture.buildTree();
    String exposition = fixture.exposition();
    long series = exposition.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
    int files = fixture.fileCount();
    fixture.removeTree();

    Map<String, Result<?>> byName = Jmh.run(ScrapeBenchmark.class, args);
    Result<?> scrape = byName.get("scrape");
    Result<?> bare = byName.get("bareRead");

    System.out.println();
    System.out.println("ioqos scrape benchmark: " + ScrapeBenchmark.PODS + " pods x 2 disks");
    System.out.printf(
        Locale.ROOT,
        "  exposition: %d series, %d bytes%n",
        series,
        exposition.getBytes(StandardCharsets.UTF_8).length);
    System.out.printf(
        Locale.ROOT, "  %-32s %8s %8s %8s %8s  (ms per op)%n", "", "mean", "p10", "p50", "p90");
    line("one scrape (read + render)", scrape);
    line("bare read of " + files + " files", bare);
    line("read + byte scan (scrape's)", byName.get("readAndScan"));
    line("read + String parse (before)", byName.get("readAndParse"));
    line("render only (no reads)", byName.get("renderOnly"));
    line("one scrape over HTTP", byName.get("scrapeHttp"));
    System.out.printf(
        Locale.ROOT,
        "  %-32s %8.2f %8.2f %8.2f %8.2f%n",
        "ratio scrape / bare read:",
        scrape.getScore() / bare.getScore(),
        ratio(scrape, bare, 10),
        ratio(scrape, bare, 50),
        ratio(scrape, bare, 90));
    double ratio = ratio(scrape, bare, 50);
    double median = scrape.getStatistics().getPercentile(50);
    System.out.printf(
        Locale.ROOT,
        "  goal (medians): ratio <= 2: %s; one scrape under 5 ms: %s%n",
        ratio <= 2 ? "met" : "NOT met",
        median < 5 ? "met" : "NOT met");
    paired();
    System.out.println("  reproduce: " + REPRODUCE);
  }

  /**
   * The same two measurements taken in turns, so that both see the same load of a shared machine:
   * after a warm-up, {@code ROUNDS} rounds each time one bare read and one scrape (in alternating
   * order); the median of each and the median of the per-round ratios.
   */
  static void paired() throws Exception {
    ScrapeBenchmark fixture = new ScrapeBenchmark();
    fixture.buildTree();
    try {
      long warmUntil = System.nanoTime() + 8_000_000_000L;
      while (System.nanoTime() < warmUntil) {
        fixture.scrape();
        fixture.bareRead();
      }
      int rounds = 1500;
      double[] scrape = new double[rounds];
      double[] bare = new double[rounds];
      double[] ratio = new double[rounds];
      for (int i = 0; i < rounds; i++) {
        if (i % 2 == 0) {
          bare[i] = timed(fixture::bareRead);
          scrape[i] = timed(fixture::scrape);
        } else {
          scrape[i] = timed(fixture::scrape);
          bare[i] = timed(fixture::bareRead);
        }
        ratio[i] = scrape[i] / bare[i];
      }
      System.out.printf(
          Locale.ROOT,
          "  paired, %d rounds in turns (medians): scrape %.3f ms, bare read %.3f ms,"
              + " ratio of medians %.2f, median of ratios %.2f%n",
          rounds,
          median(scrape),
          median(bare),
          median(scrape) / median(bare),
          median(ratio));
    } finally {
      fixture.removeTree();
    }
  }

  interface Op {
    long run() throws Exception;
  }

  static long sink;

  private static double timed(Op op) throws Exception {
    long start = System.nanoTime();
    sink += op.run();
    return (System.nanoTime() - start) / 1e6;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static double ratio(Result<?> a, Result<?> b, double percentile) {
    return a.getStatistics().getPercentile(percentile)
        / b.getStatistics().getPercentile(percentile);
  }

  private static void line(String what, Result<?> result) {
    System.out.printf(
        Locale.ROOT,
        "  %-32s %8.3f %8.3f %8.3f %8.3f%n",
        what + ":",
        result.getScore(),
        result.getStatistics().getPercentile(10),
        result.getStatistics().getPercentile(50),
        result.getStatistics().getPercentile(90));
  }
}
