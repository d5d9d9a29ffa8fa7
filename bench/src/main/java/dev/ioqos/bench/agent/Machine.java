package dev.ioqos.bench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What the figures were measured on. */
record Machine(String cpu, int cores, long memMiB, String kernel, String jdk) {
  static Machine here() {
    String cpu = "unknown";
    long memKib = 0;
    String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version");
    try {
      cpu =
          lines("/proc/cpuinfo").stream()
              .filter(l -> l.startsWith("model name"))
              .map(l -> l.substring(l.indexOf(':') + 1).trim())
              .findFirst()
              .orElse(cpu);
      memKib =
          lines("/proc/meminfo").stream()
              .filter(l -> l.startsWith("MemTotal:"))
              .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
              .findFirst()
              .orElse(0L);
      kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
    } catch (IOException e) {
      // Keep what the JVM says.
    }
    return new Machine(
        cpu,
        Runtime.getRuntime().availableProcessors(),
        memKib / 1024,
        kernel,
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
  }

  private static List<String> lines(String file) throws IOException {
    return Files.readAllLines(Path.of(file));
  }
}
