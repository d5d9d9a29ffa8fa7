package dev.ioqos.bench.agent;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The markdown report, section by section, in the order the scenarios run. */
final class Report {
  private final StringBuilder md = new StringBuilder();
  private Stats eventLatency;
  private double writesPerPodChange = Double.NaN;
  private int watches;

  String markdown() {
    return md.toString();
  }

  private Report line(String format, Object... args) {
    md.append(String.format(Locale.ROOT, format, args)).append('\n');
    return this;
  }

  private static String verdict(boolean met) {
    return met ? "met" : "**missed**";
  }

  private static String mib(double bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / 1024 / 1024);
  }

  private static String kibToMib(long kib) {
    return String.format(Locale.ROOT, "%.1f MiB", kib / 1024.0);
  }

  void header(Options o, Machine m, String started, String apiServer, Path work) {
    line("# ioqos agent benchmark%s", o.quick ? " (quick)" : "").line("");
    line("- date: %s UTC", started);
    line(
        "- machine: %s, %d cores, %d MiB RAM, kernel %s",
        m.cpu(), m.cores(), m.memMiB(), m.kernel());
    line("- JDK: %s", m.jdk());
    line(
        "- API server: kube-apiserver %s + etcd (kube-api-test), audit log at Metadata level",
        apiServer);
    line(
        "- agent: `%sjava %s -jar %s run` on a sandbox node (simulated 6.12 kubelet tree) in %s",
        o.agentEnv.isBlank() ? "" : o.agentEnv.trim() + " ", o.jvmFlags, o.jar, work);
    line(
        "- agent JVM flags: the image's `JDK_JAVA_OPTIONS` plus `%s`, what the chart's limits"
            + " (320Mi, 500m CPU) make a container JVM see",
        Options.CONTAINER_FLAGS);
    line(
        "- load: %d pods on the node, %d tier changes, churn %d creations + %d deletions per"
            + " second for %d s",
        o.pods, o.events, o.churnRate, o.churnRate, o.churnSeconds);
    line("- command: `bench/run %s`", o.commandLine).line("");
    line("Method: \"applied\" is seen from outside through an inotify watch (Java WatchService) on"
            + " every pod cgroup directory: on each modification the directory's io.bfq.weight and"
            + " io.max are read and compared with the tier's values; the first match is the"
            + " agent's last write of the apply (its read-back follows within microseconds and is"
            + " not seen). Times start when the API server acknowledged the driver's write (the"
            + " agent's watch event may arrive a fraction of a millisecond earlier).")
        .line("");
  }

  void calibration(Stats stats) {
    line(
        "Error of the method (a file written by the benchmark, seen through the same watch),"
            + " p50 / p95 / p99 / max: %s ms.",
        stats.summary());
    line("");
  }

  void coldStart(
      int pods,
      double ready,
      double first,
      double all,
      double afterReady,
      int missing,
      double firstRequest,
      double synced,
      double cpuAtReady,
      double cpuAtApplied,
      Map<String, Integer> requests) {
    line("## Cold start (%d existing pods, empty ledger)", pods).line("");
    line("| step | ms after the JVM was started |").line("|---|---|");
    line("| first API request | %s |", Stats.ms(firstRequest));
    line(
        "| informers synced (the agent's \"started\" log line, ms resolution) | %s |",
        Stats.ms(synced));
    line("| /readyz answers 200 | %s |", Stats.ms(ready));
    line("| first pod applied | %s |", Stats.ms(first));
    line("| all %d pods applied and verified | %s |", pods, Stats.ms(all));
    line("");
    double afterSync = Double.isNaN(synced) ? afterReady : all - synced;
    line(
        "All pods applied %s ms after the informers synced (goal < 1000 ms: %s)%s.",
        Stats.ms(afterSync),
        verdict(afterSync < 1000 && missing == 0),
        missing > 0 ? "; " + missing + " pods never applied" : "");
    line("");
    line(
        "Agent CPU time: %.2f s until /readyz (JVM start, class loading, informer sync), %.2f s"
            + " more until every pod was applied (%.1f ms per pod).",
        cpuAtReady, cpuAtApplied - cpuAtReady, (cpuAtApplied - cpuAtReady) * 1000 / pods);
    line("").line("Agent's API requests during cold start: %s", requests).line("");
    watches =
        requests.entrySet().stream()
            .filter(e -> e.getKey().startsWith("watch "))
            .mapToInt(Map.Entry::getValue)
            .sum();
  }

  void steadyState(Map<String, Object> idle, Map<String, Integer> requests) {
    double seconds = (double) idle.get("seconds");
    line("## Steady state (%.0f s, nothing changes)", seconds).line("");
    long writes =
        ((List<?>) idle.get("requests"))
            .stream().filter(r -> ((AuditLog.Request) r).write()).count();
    line("- agent CPU: %.2f%% of one core", 100 * (double) idle.get("cpu"));
    line(
        "- cgroup file writes by the agent (inotify modifications, all pods): %d",
        (long) idle.get("rewrites"));
    line(
        "- agent RSS %s at the end (max %s), heap used %s / committed %s, %d threads",
        kibToMib((long) idle.get("rss")),
        kibToMib((long) idle.get("rssMax")),
        mib((double) idle.get("heapUsed")),
        mib((double) idle.get("heapCommitted")),
        (long) idle.get("threads"));
    line(
        "- agent API requests: %s; writes per minute: %.1f (goal 0: %s)",
        requests, writes * 60 / seconds, verdict(writes == 0));
    line("");
  }

  void policyStatus(int writes, long modifications, double cpu) {
    line("## IoPolicy status writes (what the aggregator does)").line("");
    line(
        "%d writes of the policy's status (2 s apart): the agent wrote cgroup files %d times"
            + " (expected 0: status is not spec), CPU %.2f%% of one core meanwhile.",
        writes, modifications, 100 * cpu);
    line("");
  }

  void eventToApplied(Stats fromAck, Stats fromSend, int missed) {
    eventLatency = fromAck;
    line("## Event to applied (tier annotation changes, one at a time)").line("");
    line("| measured from | events | p50 / p95 / p99 / max (ms) |").line("|---|---|---|");
    line("| API server acknowledged the patch | %d | %s |", fromAck.count(), fromAck.summary());
    line("| driver sent the patch | %d | %s |", fromSend.count(), fromSend.summary());
    line("");
    line(
        "p99 %s ms (goal < 20 ms: %s)%s.",
        Stats.ms(fromAck.percentile(99)),
        verdict(fromAck.percentile(99) < 20 && missed == 0),
        missed > 0 ? "; " + missed + " changes not applied within 5 s" : "");
    line("");
  }

  void churn(
      Map<String, Object> churn,
      Stats runningToApplied,
      Stats boundToApplied,
      int early,
      int timedOut,
      int driverErrors,
      double applyFailures,
      List<String> problems,
      Map<String, Integer> requests,
      int driverRequests) {
    double seconds = (double) churn.get("seconds");
    int creations = (int) churn.get("creations");
    line("## Churn (%.0f s)", seconds).line("");
    line("| latency | pods | p50 / p95 / p99 / max (ms) |").line("|---|---|---|");
    line(
        "| status Running acknowledged -> applied | %d | %s |",
        runningToApplied.count(), runningToApplied.summary());
    line(
        "| pod bound (created) -> applied | %d | %s |",
        boundToApplied.count(), boundToApplied.summary());
    line("");
    line(
        "- %d creations and %d deletions; %d pods were applied before their Running update (a"
            + " retry found the cgroup first)",
        creations, creations, early);
    int errors = timedOut + (int) applyFailures + problems.size();
    line(
        "- errors: %d (not applied within 5 s: %d, agent apply failures: %.0f, agent WARN/ERROR"
            + " log lines: %d; driver errors: %d) (goal 0: %s)",
        errors, timedOut, applyFailures, problems.size(), driverErrors, verdict(errors == 0));
    for (String problem : problems.stream().limit(5).toList()) {
      line("  - `%s`", problem.length() > 200 ? problem.substring(0, 200) + "..." : problem);
    }
    line("- agent CPU: %.1f%% of one core", 100 * (double) churn.get("cpu"));
    List<?> all = (List<?>) churn.get("requests");
    long writes = all.stream().filter(r -> ((AuditLog.Request) r).write()).count();
    writesPerPodChange = writes / (2.0 * Math.max(1, creations));
    line(
        "- agent API requests: %d (%.0f per minute), of which writes %d (%.2f per pod creation"
            + " or deletion): %s",
        all.size(), all.size() * 60 / seconds, writes, writesPerPodChange, requests);
    line("- the driver's own requests in the same window: %d", driverRequests);
    line("");
  }

  private double settledSeconds = Double.NaN;
  private double settledCpu;

  /** How long the agent took to come to rest (CPU under 3% of a core over 1 s) before a phase. */
  void settled(double seconds, double lastSecondCpu) {
    settledSeconds = seconds;
    settledCpu = lastSecondCpu;
  }

  void scrape(
      int pods,
      int files,
      Stats scrape,
      Stats bare,
      Stats exchange,
      long series,
      int bytes,
      double agentReadMs,
      double agentCpuMs) {
    line("## Scrape (%d pods x 2 disks, over HTTP, snapshots older than their 500 ms age)", pods)
        .line("");
    if (!Double.isNaN(settledSeconds)) {
      line(
          "Scraped once the agent was at rest (its CPU under 3%% of a core over one second): %.0f"
              + " s after the phase before, %.1f%% over the last second.",
          settledSeconds, 100 * settledCpu);
      line("");
    }
    line("| | p50 / p95 / p99 / max (ms) |").line("|---|---|");
    line("| GET /metrics (%d series, %d bytes) | %s |", series, bytes, scrape.summary());
    line(
        "| bare read of the same %d files, in the benchmark JVM, 600 ms after the scrape | %s |",
        files, bare.summary());
    line(
        "| GET /readyz on the same port, 600 ms after the bare read: the HTTP exchange alone | %s |",
        exchange.summary());
    line("");
    line(
        "Inside the agent, per scrape: reading and scanning the files %.2f ms (mean of its own"
            + " ioqos_metrics_read_duration_seconds: from the start of the read to the last pod"
            + " read, while the registry is collected); agent CPU time around a scrape %.1f ms (mean,"
            + " from /proc, 10 ms ticks).",
        agentReadMs, agentCpuMs);
    double ratio = scrape.percentile(50) / bare.percentile(50);
    line("");
    line(
        "Ratio of medians %.1fx (goal <= 2x: %s); scrape median %s ms (goal < 5 ms: %s).",
        ratio,
        verdict(ratio <= 2),
        Stats.ms(scrape.percentile(50)),
        verdict(scrape.percentile(50) < 5));
    line("");
  }

  void footprint(Map<String, Object> idle, Map<String, Object> churn) {
    line("## Footprint").line("");
    line("| | idle | churn (max) |").line("|---|---|---|");
    line(
        "| RSS | %s | %s |",
        kibToMib((long) idle.get("rss")), kibToMib((long) churn.get("rssMax")));
    line(
        "| heap used / committed | %s / %s | %s / %s |",
        mib((double) idle.get("heapUsed")),
        mib((double) idle.get("heapCommitted")),
        mib((double) churn.get("heapUsed")),
        mib((double) churn.get("heapCommitted")));
    line("| non-heap used | %s | |", mib((double) idle.get("nonHeapUsed")));
    line("| threads | %d | %d |", (long) idle.get("threads"), (long) churn.get("threadsMax"));
    line("");
    line("Threads at idle by name (digits folded): %s", idle.get("threadNames"));
    line("");
    long rss = Math.max((long) idle.get("rss"), (long) churn.get("rssMax"));
    line("RSS goal <= 96 MiB: %s.", verdict(rss <= 96 * 1024));
    line("");
  }

  void scaleOnPaper(Map<String, Object> idle, Map<String, Object> churn) {
    int nodes = 5_000;
    int podsPerNode = 110;
    double idleSeconds = (double) idle.get("seconds");
    List<?> idleRequests = (List<?>) idle.get("requests");
    long idleWrites = idleRequests.stream().filter(r -> ((AuditLog.Request) r).write()).count();
    double idleReadsPerSecond = (idleRequests.size() - idleWrites) / idleSeconds;
    double churnSeconds = (double) churn.get("seconds");
    List<?> churnRequests = (List<?>) churn.get("requests");
    int podChanges = 2 * (int) churn.get("creations");
    long events =
        churnRequests.stream()
            .filter(r -> ((AuditLog.Request) r).key().equals("create events"))
            .count();
    long statusWrites =
        churnRequests.stream()
            .filter(r -> ((AuditLog.Request) r).key().equals("update ionodestates/status"))
            .count();
    double eventsPerChange = events / (double) Math.max(1, podChanges);
    double statusPerSecond = statusWrites / churnSeconds;
    double changesPerSecond = podChanges / churnSeconds;
    // Every pod of the cluster replaced once an hour: a creation and a deletion each.
    double clusterChanges = 2.0 * nodes * podsPerNode / 3600;
    double nodeChanges = clusterChanges / nodes;
    // A node writes its IoNodeState at most once per publish period (1 s) and only after a change:
    // the churn run measured statusPerSecond at changesPerSecond pod changes per second.
    double nodeStatus = Math.min(nodeChanges, statusPerSecond);
    double clusterStatus = nodes * nodeStatus;
    line("## Scale on paper: %,d nodes x %d pods", nodes, podsPerNode).line("");
    line(
        "Measured per node: %d long-running watches (own pods by field selector, IoPolicies,"
            + " Namespaces); at idle %.2f reads/s (the own Node, once per resync) and no writes;"
            + " under churn (%.0f pod changes/s) %.2f Events per pod change and %.2f IoNodeState"
            + " status writes/s (coalesced by the 1 s publish). Assumed: every pod is replaced"
            + " once an hour, i.e. %.0f pod changes/s in the cluster, %.3f per node.",
        watches,
        idleReadsPerSecond,
        changesPerSecond,
        eventsPerChange,
        statusPerSecond,
        clusterChanges,
        nodeChanges);
    line("");
    line(
        "| API server cost | IoNodeState per node + one aggregator (this design) | every agent"
            + " writes the shared IoPolicy status |");
    line("|---|---|---|");
    line(
        "| watches | %,d (agents) + 2 (aggregator: IoPolicies, IoNodeStates) | %,d |",
        nodes * watches, nodes * watches);
    line(
        "| reads/s at steady state | %.0f | %.0f |",
        nodes * idleReadsPerSecond, nodes * idleReadsPerSecond);
    line(
        "| Event writes/s | %.0f | %.0f |",
        clusterChanges * eventsPerChange, clusterChanges * eventsPerChange);
    line(
        "| status writes/s | <= %.0f, on %,d objects, one writer each (no conflicts); plus the"
            + " aggregator's IoPolicy writes, only when a policy's node counts change | %.0f on"
            + " one object per policy, %,d writers racing on its resourceVersion (conflicts,"
            + " retries) |",
        clusterStatus, nodes, clusterStatus, nodes);
    line(
        "| watch events/s sent for status | %.0f (to the aggregator alone) | %,.0f (each write"
            + " to all %,d agents' IoPolicy watches) |",
        clusterStatus, clusterStatus * nodes, nodes);
    line(
        "| status objects | %,d IoNodeStates + one status per IoPolicy | one status per"
            + " IoPolicy |",
        nodes);
    line("");
    line(
        "The agents' IoPolicy watch (they need the spec) is what makes shared status expensive:"
            + " every status write goes to every node. With this design the aggregator's writes"
            + " are the only IoPolicy status traffic, and the agents ignore status-only updates"
            + " (measured above: no reconcile, no cgroup write). The aggregator's cost is the"
            + " fold: each IoNodeState change re-folds every policy over all %,d node states (JOSDK"
            + " coalesces events that arrive during a fold).",
        nodes);
    line("");
  }
}
