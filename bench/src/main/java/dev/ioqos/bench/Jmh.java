package dev.ioqos.bench;

import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/** Runs one benchmark class with JMH and keys its primary results for the printed summaries. */
final class Jmh {
  private Jmh() {}

  /**
   * Runs every method of {@code benchmark}; JMH's own options in {@code args} (e.g. -wi 2 -i 5 -f
   * 1) override the annotations. Keys: the method name, then "/" and the value of each of {@code
   * params} in order (e.g. {@code tierChange/shm/249}).
   */
  static Map<String, Result<?>> run(Class<?> benchmark, String[] args, String... params)
      throws RunnerException, CommandLineOptionException {
    var options =
        new OptionsBuilder()
            .parent(new CommandLineOptions(args))
            .include(benchmark.getName() + "\\.")
            .build();
    Map<String, Result<?>> byName = new TreeMap<>();
    for (RunResult result : new Runner(options).run()) {
      String label = result.getParams().getBenchmark();
      StringBuilder key = new StringBuilder(label.substring(label.lastIndexOf('.') + 1));
      for (String param : params) {
        key.append('/').append(result.getParams().getParam(param));
      }
      byName.put(key.toString(), result.getPrimaryResult());
    }
    return byName;
  }
}
