package dev.ioqos.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ioqos demo --kernel}: the repository's {@code e2e/kernel/demo} script, which boots a real
 * kernel under QEMU ({@code --protect}: {@code e2e/kernel/latency}, the latency loop's scenario);
 * run with this process's stdio, its exit code returned.
 */
public final class KernelDemo {
  static final String SCRIPT = "e2e/kernel/demo";
  static final String PROTECT_SCRIPT = "e2e/kernel/latency";

  private KernelDemo() {}

  /** The script in {@code repository}, or a refusal naming where it was looked for. */
  public static Path locate(Path repository, String name) {
    Path script = repository.resolve(name).toAbsolutePath().normalize();
    if (!Files.isRegularFile(script) || !Files.isExecutable(script)) {
      throw new KernelDemoNotFoundException(
          "the kernel demo needs the ioqos repository, and there is no executable "
              + script
              + "; run it from a clone of the repository or pass --repo DIR");
    }
    return script;
  }

  /** Runs the script {@code name} with {@code args} in the repository and waits for it. */
  public static int run(Path repository, String name, List<String> args) throws IOException {
    Path script = locate(repository, name);
    List<String> command = new ArrayList<>();
    command.add(script.toString());
    command.addAll(args);
    Process process =
        new ProcessBuilder(command).directory(repository.toFile()).inheritIO().start();
    try {
      return process.waitFor();
    } catch (InterruptedException e) {
      process.destroy();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while " + name + " ran", e);
    }
  }
}
