package dev.ioqos.demo;

import dev.ioqos.cli.Main;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code ioqos-demo.jar}: {@code ioqos demo}, apart from the product jar so that the
 * jar every node runs carries no test tooling (kube-api-test, BouncyCastle, JUnit).
 */
@Command(
    name = "ioqos",
    mixinStandardHelpOptions = true,
    versionProvider = DemoMain.Version.class,
    description = "The ioqos demo jar: ioqos demo, on a real API server and the real agent.",
    subcommands = {DemoCommand.class})
public final class DemoMain {

  public static void main(String[] args) {
    System.exit(
        execute(
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8),
            args));
  }

  /** Runs a command line with the given output streams, as the product's commands do. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    return Main.execute(new CommandLine(new DemoMain()), out, err, args);
  }

  /** Prints the jar's version. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = DemoMain.class.getPackage().getImplementationVersion();
      return new String[] {"ioqos " + (version == null ? "development build" : version)};
    }
  }
}
