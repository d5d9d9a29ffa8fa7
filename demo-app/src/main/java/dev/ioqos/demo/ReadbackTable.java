package dev.ioqos.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The per-pod table of the demo: tier, disk(s) and the io files read back from the cgroup. */
final class ReadbackTable {
  static final List<String> FILES = List.of("io.weight", "io.bfq.weight", "io.max");
  private static final String INDENT = "      ";

  private ReadbackTable() {}

  /**
   * Renders one row per pod and its cgroup path below it.
   *
   * @param tierOf the tier the agent recorded for a pod UID, or "(none)"
   * @param disks the policy's disk(s) on this node
   */
  static String render(List<DemoPod> pods, Function<String, String> tierOf, String disks) {
    List<List<String>> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("POD", "TIER", "DISK"));
    header.addAll(FILES);
    rows.add(header);
    for (DemoPod pod : pods) {
      List<String> row =
          new ArrayList<>(List.of(pod.qualifiedName(), tierOf.apply(pod.uid()), disks));
      FILES.forEach(file -> row.add(pod.readBack(file)));
      rows.add(row);
    }
    int[] widths = new int[header.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder text = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      List<String> row = rows.get(r);
      StringBuilder line = new StringBuilder(INDENT);
      for (int i = 0; i < row.size(); i++) {
        line.append(i == row.size() - 1 ? row.get(i) : pad(row.get(i), widths[i] + 2));
      }
      text.append(line.toString().stripTrailing()).append('\n');
      if (r > 0) {
        DemoPod pod = pods.get(r - 1);
        text.append(INDENT)
            .append(pad("", widths[0] + 2))
            .append("cgroup ")
            .append(pod.cgroupPath())
            .append('\n');
      }
    }
    return text.toString();
  }

  private static String pad(String text, int width) {
    return text.length() >= width ? text : text + " ".repeat(width - text.length());
  }
}
