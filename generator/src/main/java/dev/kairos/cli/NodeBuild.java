package dev.kairos.cli;

import dev.kairos.timing.NodePlan;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of a run made from the model: generated as `kairos generate` makes them into DIR/src,
 * configured once and built by CMake into DIR/build against the installed Kairos package (Ninja
 * where it is installed). Only what changed is built again; the tools' output goes to
 * DIR/build.log, and its end is shown when a step fails.
 */
final class NodeBuild {
  private static final int SHOWN_LINES = 40;

  private final Path runDirectory;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Map<String, Path> binaries = new LinkedHashMap<>();

  NodeBuild(Path runDirectory, PrintWriter out, PrintWriter err) {
    this.runDirectory = runDirectory;
    this.out = out;
    this.err = err;
  }

  /** Each node built, by name, in the order they were asked for. */
  Map<String, Path> binaries() {
    return binaries;
  }

  private Path sources() {
    return runDirectory.resolve("src");
  }

  private Path buildDirectory() {
    return runDirectory.resolve("build");
  }

  private Path log() {
    return runDirectory.resolve("build.log");
  }

  /** `kairos generate` into DIR/src; false after its errors were printed. */
  boolean generate(List<Path> models, Path impl, String clangFormat) {
    final List<String> arguments =
        new ArrayList<>(List.of("generate", "-q", "-o", sources().toString()));
    if (impl != null) {
      arguments.addAll(List.of("--impl", impl.toString()));
    }
    if (clangFormat != null) {
      arguments.addAll(List.of("--clang-format", clangFormat));
    }
    models.forEach(m -> arguments.add(m.toString()));
    // Its file list is not for a run's reader; its errors are.
    final int exit =
        KairosCli.run(new PrintWriter(new StringWriter()), err, arguments.toArray(String[]::new));
    if (exit != KairosCli.OK) {
      err.println("kairos: error: the nodes could not be generated; nothing run");
      return false;
    }
    return true;
  }

  /** Configures (once) and builds the nodes' executables; false after saying why not. */
  boolean build(List<NodePlan> nodes) throws IOException {
    Files.createDirectories(runDirectory);
    Files.deleteIfExists(log());
    out.println("build: the nodes, in " + buildDirectory() + " (log: " + log() + ")");
    out.flush();
    if (!Files.exists(buildDirectory().resolve("CMakeCache.txt"))) {
      final List<String> configure =
          new ArrayList<>(
              List.of(
                  "cmake",
                  "-S",
                  sources().toString(),
                  "-B",
                  buildDirectory().toString(),
                  "-DCMAKE_BUILD_TYPE=Release"));
      if (onPath("ninja")) {
        configure.addAll(List.of("-G", "Ninja"));
      }
      kairosPackage().ifPresent(prefix -> configure.add("-DCMAKE_PREFIX_PATH=" + prefix));
      if (!step(configure, "configuring the nodes' build")) {
        return false;
      }
    }
    final List<String> build =
        new ArrayList<>(List.of("cmake", "--build", buildDirectory().toString(), "--target"));
    nodes.forEach(n -> build.add(n.node().name()));
    if (!step(build, "building the nodes")) {
      return false;
    }
    for (NodePlan node : nodes) {
      final Path binary = buildDirectory().resolve(node.node().name());
      if (!Files.isExecutable(binary)) {
        err.println("kairos: error: the build made no executable " + binary + "; nothing run");
        return false;
      }
      binaries.put(node.node().name(), binary);
    }
    return true;
  }

  private boolean step(List<String> command, String what) throws IOException {
    final Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
              .start();
    } catch (IOException e) {
      err.println(
          "kairos: error: cannot run "
              + command.get(0)
              + " ("
              + e.getMessage()
              + "): kairos run builds the nodes with CMake; nothing run");
      return false;
    }
    final int exit;
    try {
      exit = process.waitFor();
    } catch (InterruptedException e) {
      process.destroy();
      Thread.currentThread().interrupt();
      err.println("kairos: interrupted while " + what);
      return false;
    }
    if (exit == 0) {
      return true;
    }
    final List<String> lines = Files.readAllLines(log(), StandardCharsets.UTF_8);
    lines.subList(Math.max(0, lines.size() - SHOWN_LINES), lines.size()).forEach(err::println);
    err.println(
        "kairos: error: "
            + what
            + " failed (exit code "
            + exit
            + "; the whole output is in "
            + log()
            + "); nothing run");
    return false;
  }

  /**
   * Where the Kairos CMake package is: installed, the prefix above the kairos command's share
   * directory; in a checkout, build/prefix where `make cpp` installs the runtime. Empty where
   * neither holds it (CMake then searches its default places).
   */
  static java.util.Optional<Path> kairosPackage() {
    final String home = System.getProperty("kairos.home");
    if (home == null) {
      return java.util.Optional.empty();
    }
    final Path base = Path.of(home);
    for (Path prefix : List.of(base.resolve("../..").normalize(), base.resolve("build/prefix"))) {
      if (Files.isDirectory(prefix.resolve("lib/cmake/Kairos"))
          || Files.isDirectory(prefix.resolve("lib64/cmake/Kairos"))) {
        return java.util.Optional.of(prefix);
      }
    }
    return java.util.Optional.empty();
  }

  private static boolean onPath(String program) {
    final String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String directory : path.split(java.io.File.pathSeparator)) {
      if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, program))) {
        return true;
      }
    }
    return false;
  }
}
