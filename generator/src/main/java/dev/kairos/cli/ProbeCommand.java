package dev.kairos.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * `kairos probe`: measures the overheads of the machine it runs on (release lateness, context
 * switch, ceiling lock, clock read) into a platform file. The measuring is the runtime's own
 * (kairos-probe, installed with the runtime), or, with --node, a generated node's binary measuring
 * through itself (`NODE --probe FILE`), so that the figures are those of the target. The CLI only
 * starts the program and passes its output and exit code through: the runtime never parses models,
 * and the CLI measures nothing itself.
 */
@Command(
    name = "probe",
    mixinStandardHelpOptions = true,
    description =
        "Measures this machine's real-time overheads (release lateness, dispatch handoff, context"
            + " switch, ceiling lock, ORB call) with the Kairos runtime and writes the platform"
            + " file a model's hardware names.")
final class ProbeCommand implements Callable<Integer> {
  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "the platform file to write (default: standard output)")
  String output = "-";

  @Option(
      names = "--node",
      paramLabel = "BINARY",
      description = "measure with this generated node's binary (`BINARY --probe FILE`)")
  Path node;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      description = "how long the engine releases a method every millisecond (default: 10s)")
  String duration = "10s";

  @Option(names = "--cpu", paramLabel = "N", description = "the CPU to measure on")
  Integer cpu;

  @Option(
      names = "--time-shared",
      description = "measure without real-time priorities (not with --node: a node takes them)")
  boolean timeShared;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    final PrintWriter err = spec.commandLine().getErr();
    if (!duration.matches("[0-9]+(ns|us|ms|s|min)")) {
      err.println(
          "kairos probe: error: --duration '"
              + duration
              + "' is not a time with a unit (ns, us, ms, s, min), e.g. 10s");
      return KairosCli.USAGE;
    }
    if (cpu != null && cpu < 0) {
      err.println("kairos probe: error: --cpu " + cpu + " is not a CPU number");
      return KairosCli.USAGE;
    }
    final List<String> command = new ArrayList<>();
    if (node != null) {
      if (!Files.isRegularFile(node) || !Files.isExecutable(node)) {
        err.println("kairos probe: error: --node " + node + " is not an executable file");
        return KairosCli.USAGE;
      }
      if (timeShared) {
        err.println("kairos probe: error: --time-shared measures the probe program, not a node");
        return KairosCli.USAGE;
      }
      command.add(node.toAbsolutePath().toString());
      command.add("--probe");
      command.add(output);
    } else {
      final Optional<Path> program = probeProgram();
      if (program.isEmpty()) {
        err.println(
            "kairos probe: error: kairos-probe is not built or installed: build the runtime"
                + " (make cpp) or install Kairos (make install PREFIX=...)");
        return KairosCli.USAGE;
      }
      command.add(program.get().toString());
      command.add("-o");
      command.add(output);
      if (timeShared) {
        command.add("--time-shared");
      }
    }
    command.add("--duration");
    command.add(duration);
    if (cpu != null) {
      command.add("--cpu");
      command.add(Integer.toString(cpu));
    }
    spec.commandLine().getOut().flush();
    err.flush();
    try {
      final Process process = new ProcessBuilder(command).inheritIO().start();
      return process.waitFor();
    } catch (IOException e) {
      err.println("kairos probe: error: cannot run " + command.get(0) + ": " + e.getMessage());
      return KairosCli.USAGE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("kairos probe: interrupted");
      return KairosCli.USAGE;
    }
  }

  /**
   * The runtime's probe program: installed beside the kairos command (`PREFIX/bin`, with the jar in
   * `PREFIX/share/kairos`), or in a checkout where `make cpp` installs the runtime into
   * build/prefix.
   */
  static Optional<Path> probeProgram() {
    final String home = System.getProperty("kairos.home");
    if (home == null) {
      return Optional.empty();
    }
    final Path base = Path.of(home);
    for (Path candidate :
        List.of(
            base.resolve("../../bin/kairos-probe").normalize(),
            base.resolve("build/prefix/bin/kairos-probe"))) {
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
