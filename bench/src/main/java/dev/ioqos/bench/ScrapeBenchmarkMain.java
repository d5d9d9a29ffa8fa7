package dev.ioqos.bench;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/** Runs {@link ScrapeBenchmark} and prints one scrape against the bare reads, and their ratio. */
public final class ScrapeBenchmarkMain {
  static final String REPRODUCE =
      "./mvnw -B -q -Pbench -pl bench -am -DskipTests -Dspotless.check.skip=true package"
          + " && java -jar bench/target/ioqos-bench.jar";

  private ScrapeBenchmarkMain() {}

  public static void main(String[] args) throws Exception {
    ScrapeBenchmark fixture = new ScrapeBenchmark();
    fixture.buildTree();
    String exposition = fixture.exposition();
    long series = exposition.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
    int files = fixture.fileCount();
    fixture.removeTree();

    // JMH's own options (e.g. -wi 2 -i 5 -f 1) override the annotations.
    Options options =
        new OptionsBuilder()
            .parent(new CommandLineOptions(args))
            .include(ScrapeBenchmark.class.getName() + "\\.")
            .build();
    Collection<RunResult> results = new Runner(options).run();
    Map<String, Result<?>> byName = new HashMap<>();
    for (RunResult result : results) {
      String label = result.getParams().getBenchmark();
      byName.put(label.substring(label.lastIndexOf('.') + 1), result.getPrimaryResult());
    }
    Result<?> scrape = byName.get("scrape");
    Result<?> bare = byName.get("bareRead");
    Result<?> parse = byName.get("readAndParse");

    System.out.println();
    System.out.println("ioqos scrape benchmark: " + ScrapeBenchmark.PODS + " pods x 2 disks");
    System.out.printf(
        Locale.ROOT,
        "  exposition:            %d series, %d bytes%n",
        series,
        exposition.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    line("one scrape (read + render)", scrape);
    line("bare read of " + files + " files", bare);
    line("read + parse, no meters", parse);
    line("render only (no reads)", byName.get("renderOnly"));
    System.out.printf(
        Locale.ROOT,
        "  ratio scrape / bare read:   %.2f%n  ratio scrape / read+parse:  %.2f%n",
        scrape.getScore() / bare.getScore(),
        scrape.getScore() / parse.getScore());
    System.out.println("  reproduce: " + REPRODUCE);
  }

  private static void line(String what, Result<?> result) {
    System.out.printf(
        Locale.ROOT,
        "  %-30s %8.3f ± %.3f %s%n",
        what + ":",
        result.getScore(),
        result.getScoreError(),
        result.getScoreUnit());
  }
}
