package dev.ioqos.bench.agent;

import dev.ioqos.testkit.SandboxNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real agent, {@code java <image flags> -jar ioqos.jar run}, as a separate process on the
 * sandbox node, so that its memory, CPU and threads can be read from /proc and are its own.
 */
final class AgentProcess implements AutoCloseable {
  /** Ticks per second of /proc/PID/stat times (USER_HZ; 100 on every Linux this runs on). */
  private static final double USER_HZ = 100.0;

  final List<String> command;
  final Path log;
  final int port;
  private final Process process;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private AgentProcess(List<String> command, Path log, int port, Process process) {
    this.command = command;
    this.log = log;
    this.port = port;
    this.process = process;
  }

  static AgentProcess start(
      Path jar,
      List<String> jvmFlags,
      Map<String, String> env,
      SandboxNode node,
      String nodeName,
      Path kubeconfig,
      Path stateDir,
      int port,
      Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.addAll(List.of("-jar", jar.toString(), "run"));
    command.addAll(node.rootOptions());
    command.addAll(
        List.of(
            "--cgroup-driver",
            "systemd",
            "--state-dir",
            stateDir.toString(),
            "--metrics-port",
            Integer.toString(port)));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("NODE_NAME", nodeName);
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    builder.environment().remove("JDK_JAVA_OPTIONS");
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    return new AgentProcess(command, log, port, builder.start());
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** GET a path of the metrics port; the status code, or -1 when nothing answers. */
  int status(String path) {
    try {
      return http.send(request(path), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * GET a path as a scraper does: the raw bytes of the body, read whole over a kept-alive
   * connection, without decoding them (the JDK's HttpClient adds its own cost to big bodies).
   */
  byte[] getBytes(String path) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
    connection.setConnectTimeout(10_000);
    connection.setReadTimeout(10_000);
    if (connection.getResponseCode() != 200) {
      throw new IOException("GET " + path + ": HTTP " + connection.getResponseCode());
    }
    try (InputStream body = connection.getInputStream()) {
      return body.readAllBytes();
    }
  }

  String get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(request(path), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + ": HTTP " + response.statusCode());
    }
    return response.body();
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10))
        .GET()
        .build();
  }

  /** One value of /proc/PID/status in kB (VmRSS, VmHWM) or as a number (Threads). */
  long procStatus(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
      }
    }
    throw new IOException("no " + field + " in /proc/" + pid() + "/status");
  }

  /** The agent's threads by name, digits folded ("pool-#-thread-#"), most frequent first. */
  java.util.Map<String, Long> threadNames() throws IOException {
    java.util.Map<String, Long> names = new java.util.TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc/" + pid() + "/task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "#");
          names.merge(name, 1L, Long::sum);
        } catch (IOException e) {
          // The thread ended meanwhile.
        }
      }
    }
    return names;
  }

  /** User + system CPU time so far, in seconds. */
  double cpuSeconds() throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid() + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // Fields after the command name start at field 3 (state); utime is 14, stime 15.
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / USER_HZ;
  }

  /** Lines of the agent's log at WARN or ERROR. */
  List<String> problems() throws IOException {
    return Files.readAllLines(log).stream()
        .filter(l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.contains("Exception"))
        .toList();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
