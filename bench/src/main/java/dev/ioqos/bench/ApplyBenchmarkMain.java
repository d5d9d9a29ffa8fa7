package dev.ioqos.bench;

import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.Result;

/** Runs {@link ApplyBenchmark} and prints the write path against its floor, per ledger place. */
public final class ApplyBenchmarkMain {
  static final String REPRODUCE =
      "./mvnw -B -q -Pbench -pl bench -am -DskipTests -Dspotless.check.skip=true package"
          + " && java -jar bench/target/ioqos-bench.jar apply";

  private ApplyBenchmarkMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, Result<?>> byName = Jmh.run(ApplyBenchmark.class, args, "ledgerOn", "otherPods");
    System.out.println();
    System.out.println(
        "ioqos reconcile benchmark: one pod, sandbox node tree (JVM: SerialGC, C1 only)");
    System.out.printf(Locale.ROOT, "  %-56s %9s %9s %9s  (us per op)%n", "", "p10", "p50", "p90");
    for (String key : byName.keySet()) {
      if (!key.startsWith("tierChange/")) {
        continue;
      }
      String params = key.substring("tierChange/".length());
      Result<?> change = byName.get(key);
      Result<?> verify = byName.get("verifyUnchanged/" + params);
      Result<?> bare = byName.get("bareWrites/" + params);
      if (bare == null || verify == null) {
        continue;
      }
      String[] p = params.split("/");
      String where =
          (p[0].equals("shm") ? "tmpfs" : "java.io.tmpdir's disk") + ", " + p[1] + " other pods";
      line("tier change, ledger on " + where, change);
      line("resync of an unchanged pod (reads only)", verify);
      line("bare writes + read-back of the same files", bare);
      System.out.printf(
          Locale.ROOT,
          "  %-56s %9.2f%n",
          "ratio tier change / bare writes (p50):",
          change.getStatistics().getPercentile(50) / bare.getStatistics().getPercentile(50));
    }
    System.out.println("  reproduce: " + REPRODUCE);
  }

  private static void line(String label, Result<?> result) {
    System.out.printf(
        Locale.ROOT,
        "  %-56s %9.1f %9.1f %9.1f%n",
        label,
        result.getStatistics().getPercentile(10),
        result.getStatistics().getPercentile(50),
        result.getStatistics().getPercentile(90));
  }
}
