package dev.ioqos.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds {@code prometheus} and {@code promtool} (Debian package {@code prometheus}) and runs
 * promtool. A missing binary fails the test with the command that installs it: these tests are the
 * proof that Prometheus can consume the agent's output, so they never skip.
 */
final class PrometheusBinaries {
  private PrometheusBinaries() {}

  /** The result of one promtool run: exit code and stdout+stderr. */
  record Result(int exit, String output) {}

  static Path find(String name) {
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/bin" : path + ":/usr/bin").split(":")) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "'"
            + name
            + "' is not installed, and the metrics tests need a real Prometheus: install the"
            + " Debian package with `apt-get install -y --no-install-recommends prometheus`"
            + " (.ci/run does this on CI)");
  }

  /** Runs {@code promtool args...} with {@code stdin} (may be null), in {@code dir}. */
  static Result promtool(Path dir, String stdin, String... args) {
    List<String> command = new ArrayList<>();
    command.add(find("promtool").toString());
    command.addAll(List.of(args));
    try {
      Path output = Files.createTempFile("promtool", ".out");
      Process process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (stdin != null) {
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      process.getOutputStream().close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("promtool " + String.join(" ", args) + " hung");
      }
      String text = Files.readString(output);
      Files.delete(output);
      return new Result(process.exitValue(), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
