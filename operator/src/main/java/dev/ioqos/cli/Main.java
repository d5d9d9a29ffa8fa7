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
      ProbeCommand.class
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
    return execute(new CommandLine(new Main()), out, err, args);
  }

  /**
   * Runs a command line of another {@code ioqos} command tree (the demo jar's) the same way: errors
   * as one sentence on stderr, exit code 1, argument errors with a usage hint, exit code 2.
   */
  public static int execute(
      CommandLine commandLine, PrintWriter out, PrintWriter err, String... args) {
    commandLine.setOut(out).setErr(err);
    commandLine.setExecutionExceptionHandler(
        (error, cmd, parseResult) -> {
          cmd.getErr().println("ioqos " + cmd.getCommandName() + ": " + sentence(error));
          return 1;
        });
    commandLine.setParameterExceptionHandler(
        (error, args1) -> {
          CommandLine cmd = error.getCommandLine();
          if (cmd.getParent() == null
              && args1.length > 0
              && args1[0].equals("demo")
              && !cmd.getSubcommands().containsKey("demo")) {
            // The demo moved out of the product jar (issue 16): say where it went.
            cmd.getErr()
                .println(
                    "ioqos: the demo is not in the product jar; run ./demo from the repository,"
                        + " or java -jar demo-app/target/ioqos-demo.jar demo");
            return 2;
          }
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

  /**
   * The error's message, followed by each cause that adds something to it: a client library's
   * generic "An error has occurred." says nothing without its cause (a refused connection, a
   * missing class). Wrappers whose message is only their cause's are skipped.
   */
  static String sentence(Throwable error) {
    String first = message(error);
    StringBuilder causes = new StringBuilder();
    int depth = 0;
    for (Throwable cause = error.getCause();
        cause != null && depth++ < 20;
        cause = cause.getCause()) {
      String said = cause.getMessage();
      String name = cause.getClass().getSimpleName();
      boolean wrapper = cause.getCause() != null && cause.getCause().toString().equals(said);
      if (said == null || said.isBlank()) {
        causes.append("; ").append(name);
      } else if (!wrapper && !first.contains(said) && causes.indexOf(said) < 0) {
        causes.append("; ").append(name).append(": ").append(said);
      }
    }
    return causes.isEmpty() ? first : first + " (caused by " + causes.substring(2) + ")";
  }

  private static String message(Throwable error) {
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
