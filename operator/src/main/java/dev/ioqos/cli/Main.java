package dev.ioqos.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code ioqos.jar}: one jar, one command per role. */
@Command(
    name = "ioqos",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Disk I/O quality of service for Kubernetes pods on cgroup v2.",
    subcommands = {
      RunCommand.class,
      AggregateCommand.class,
      ExplainCommand.class,
      ReconcileCommand.class,
      PathCommand.class,
      DeviceCommand.class,
      ProbeCommand.class,
      DemoCommand.class
    })
public final class Main {

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs a command line and returns the exit code; errors are one sentence on stderr. */
  public static int execute(String... args) {
    return execute(
        new PrintWriter(System.out, true, StandardCharsets.UTF_8),
        new PrintWriter(System.err, true, StandardCharsets.UTF_8),
        args);
  }

  /** Runs a command line with the given output streams, as tests do. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine commandLine = new CommandLine(new Main()).setOut(out).setErr(err);
    commandLine.setExecutionExceptionHandler(
        (error, cmd, parseResult) -> {
          cmd.getErr().println("ioqos " + cmd.getCommandName() + ": " + sentence(error));
          return 1;
        });
    commandLine.setParameterExceptionHandler(
        (error, args1) -> {
          CommandLine cmd = error.getCommandLine();
          cmd.getErr().println("ioqos: " + error.getMessage());
          cmd.getErr().println("Run 'ioqos " + cmd.getCommandName() + " --help' for usage.");
          return 2;
        });
    int exit = commandLine.execute(args);
    // print() on an autoflush PrintWriter does not flush; exit codes go out through System.exit.
    out.flush();
    err.flush();
    return exit;
  }

  private static String sentence(Throwable error) {
    String message = error.getMessage();
    return message == null || message.isBlank() ? error.getClass().getSimpleName() : message;
  }

  /** Prints the jar's version. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Main.class.getPackage().getImplementationVersion();
      return new String[] {"ioqos " + (version == null ? "development build" : version)};
    }
  }
}
