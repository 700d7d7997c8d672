package dev.kairos.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/**
 * The `kairos` command. Exit codes: 0 success, 1 model errors or not schedulable, 2 usage or
 * internal error.
 */
@Command(
    name = "kairos",
    mixinStandardHelpOptions = true,
    versionProvider = KairosCli.Version.class,
    description = "Checks real-time TMO models before deployment and generates their C++.",
    subcommands = {
      ValidateCommand.class,
      CheckCommand.class,
      GenerateCommand.class,
      FormatCommand.class,
      DiagramCommand.class,
      CalibrateCommand.class,
      ProbeCommand.class,
      RunCommand.class,
      DeployCommand.class,
      KeysCommand.class,
      CompletionCommand.class,
      ManualCommand.class,
      CommandLine.HelpCommand.class
    })
public final class KairosCli implements Callable<Integer> {
  static final int OK = 0;
  static final int MODEL_ERRORS = 1;
  static final int USAGE = 2;

  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return USAGE;
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the CLI and returns its exit code (tests call this without exiting the JVM). */
  public static int run(String... args) {
    return run(
        new PrintWriter(System.out, false, java.nio.charset.StandardCharsets.UTF_8),
        new PrintWriter(System.err, false, java.nio.charset.StandardCharsets.UTF_8),
        args);
  }

  /** Runs the CLI with its output and errors going to the given writers. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    final CommandLine commandLine = new CommandLine(new KairosCli());
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setExecutionExceptionHandler(
        (exception, cmd, parseResult) -> {
          cmd.getErr().println("kairos: internal error: " + exception);
          if (System.getenv("KAIROS_DEBUG") != null) {
            exception.printStackTrace(cmd.getErr());
          } else {
            cmd.getErr().println("kairos: set KAIROS_DEBUG=1 for the stack trace");
          }
          return USAGE;
        });
    commandLine.setParameterExceptionHandler(
        (exception, params) -> {
          final CommandLine cmd = exception.getCommandLine();
          cmd.getErr().println("kairos: error: " + exception.getMessage());
          cmd.getErr().println("kairos: try '" + cmd.getCommandSpec().qualifiedName() + " --help'");
          return USAGE;
        });
    final int exit = commandLine.execute(args);
    commandLine.getOut().flush();
    commandLine.getErr().flush();
    return exit;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
        "kairos " + version() + " (commit " + commit() + ")",
        "Java " + System.getProperty("java.version") + " in " + System.getProperty("java.home")
      };
    }
  }

  /** The release this is, as the jar's manifest says (its Maven project's version). */
  static String version() {
    final String version = KairosCli.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }

  /** The commit the jar was built from ({@code git describe --always --dirty}), or "unknown". */
  static String commit() {
    try (java.io.InputStream manifest =
        KairosCli.class.getResourceAsStream("/META-INF/MANIFEST.MF")) {
      if (manifest == null) {
        return "unknown";
      }
      final String commit =
          new java.util.jar.Manifest(manifest).getMainAttributes().getValue("Kairos-Commit");
      return commit == null || commit.isBlank() ? "unknown" : commit;
    } catch (java.io.IOException unreadable) {
      return "unknown";
    }
  }
}
