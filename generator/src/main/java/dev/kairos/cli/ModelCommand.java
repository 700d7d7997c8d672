package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;
import static dev.kairos.cli.KairosCli.USAGE;

import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.Diagnostic;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.eclipse.emf.common.util.URI;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Shared by the subcommands: load, validate and print diagnostics. */
abstract class ModelCommand implements Callable<Integer> {
  @Parameters(arity = "1..*", paramLabel = "MODEL", description = "the .tmo files of one system")
  List<Path> files;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--max-diagnostics",
      paramLabel = "N",
      defaultValue = "50",
      description =
          "print at most N diagnostics, then how many more there are (default: ${DEFAULT-VALUE};"
              + " JSON and JUnit reports always hold all of them)")
  int maxDiagnostics;

  @Option(
      names = "--timings",
      description = "print how long each phase took (load and validate, lower, analyse, emit)")
  boolean timings;

  @Option(
      names = {"-q", "--quiet"},
      description = "print only errors (no warnings or notes) and, for check, the verdict line")
  boolean quiet;

  @Option(
      names = "--werror",
      description =
          "treat warnings as errors: the exit code is 1 if there is one (generate writes nothing"
              + " when the model has one)")
  boolean werror;

  @Option(
      names = "--color",
      paramLabel = "WHEN",
      defaultValue = "auto",
      description =
          "colour diagnostics: auto (on a terminal unless NO_COLOR is set), always or never"
              + " (default: ${DEFAULT-VALUE})")
  ColorChoice color;

  private long lapStart = System.nanoTime();
  private final StringBuilder laps = new StringBuilder();

  /** Ends a phase: with --timings its duration is reported on stderr at the end. */
  void lap(String phase) {
    final long now = System.nanoTime();
    laps.append(laps.length() == 0 ? "" : ", ")
        .append(phase)
        .append(' ')
        .append((now - lapStart) / 1_000_000)
        .append(" ms");
    lapStart = now;
  }

  void reportTimings() {
    if (timings) {
      err().println("kairos: timings: " + laps);
    }
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /**
   * The loaded models with no diagnostics printed, for reports that carry them all (SARIF); empty
   * after a usage problem.
   */
  Optional<ModelLoader.Loaded> loadQuietly(int[] exit) {
    final ModelLoader.Loaded loaded;
    try {
      loaded = ModelLoader.create().load(files);
    } catch (ModelLoader.UsageProblem e) {
      err().println("kairos: error: " + e.getMessage());
      exit[0] = USAGE;
      return Optional.empty();
    }
    exit[0] = loaded.hasErrors() ? MODEL_ERRORS : OK;
    return Optional.of(loaded);
  }

  /** The diagnostics --quiet lets through: errors only. */
  List<Diagnostic> shown(List<Diagnostic> diagnostics) {
    return quiet
        ? diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.ERROR).toList()
        : diagnostics;
  }

  /** The loaded models, or empty after reporting why not (with the exit code in `exit`). */
  Optional<ModelLoader.Loaded> loadAndReport(int[] exit, boolean diagnosticsToErr) {
    return loadAndReport(ModelLoader.create(), exit, diagnosticsToErr, false);
  }

  /** With syntaxOnly, only syntax errors count (formatting needs a parse, not a valid model). */
  Optional<ModelLoader.Loaded> loadAndReport(
      ModelLoader loader, int[] exit, boolean diagnosticsToErr, boolean syntaxOnly) {
    ModelLoader.Loaded loaded;
    try {
      loaded = loader.load(files);
    } catch (ModelLoader.UsageProblem e) {
      err().println("kairos: error: " + e.getMessage());
      exit[0] = USAGE;
      return Optional.empty();
    }
    if (syntaxOnly) {
      loaded =
          new ModelLoader.Loaded(
              loaded.models(),
              loaded.diagnostics().stream()
                  .filter(
                      d ->
                          d.code().equals(IssueCodes.SYNTAX)
                              || d.code().equals(IssueCodes.INVALID_ENCODING))
                  .toList(),
              loaded.portableNames(),
              loaded.shownNames());
    }
    if (maxDiagnostics < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--max-diagnostics must be 0 or more, not " + maxDiagnostics);
    }
    printDiagnostics(loaded.diagnostics(), diagnosticsToErr);
    if (loaded.hasErrors()) {
      final long errors =
          loaded.diagnostics().stream()
              .filter(d -> d.severity() == Diagnostic.Severity.ERROR)
              .count();
      err().println("kairos: " + errors + " error(s) in the model");
      exit[0] = MODEL_ERRORS;
      return Optional.of(loaded);
    }
    exit[0] = OK;
    return Optional.of(loaded);
  }

  /**
   * The first --max-diagnostics of them (errors only with --quiet), each with its source line, then
   * one line with how many more and the totals.
   */
  void printDiagnostics(List<Diagnostic> all, boolean toErr) {
    final PrintWriter sink = toErr ? err() : out();
    final DiagnosticPrinter printer = new DiagnosticPrinter(color.colors(toErr, System.getenv()));
    final List<Diagnostic> diagnostics =
        quiet ? all.stream().filter(d -> d.severity() == Diagnostic.Severity.ERROR).toList() : all;
    diagnostics.stream().limit(maxDiagnostics).forEach(d -> printer.print(d, sink));
    final int more = diagnostics.size() - maxDiagnostics;
    if (more > 0) {
      final long errors =
          diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.ERROR).count();
      final long warnings =
          diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING).count();
      sink.println(
          "... and "
              + more
              + " more ("
              + errors
              + (errors == 1 ? " error, " : " errors, ")
              + warnings
              + (warnings == 1 ? " warning" : " warnings")
              + " in total; see --max-diagnostics)");
    }
    sink.flush();
  }

  /**
   * With --werror, warnings fail the run: the exit code becomes 1 (after saying so) where it was 0.
   */
  int withWarningsAsErrors(int exit, List<Diagnostic> diagnostics) {
    final long warnings =
        diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.WARNING).count();
    if (!werror || warnings == 0 || exit != OK) {
      return exit;
    }
    err().println("kairos: " + warnings + " warning(s) treated as errors (--werror)");
    return MODEL_ERRORS;
  }

  /** The system's name: its first file's, made a C++ identifier. */
  private String systemName() {
    final String name = files.get(0).getFileName().toString().replaceFirst("\\.tmo$", "");
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }

  private static Function<URI, String> fileNames(ModelLoader.Loaded loaded) {
    return uri -> loaded.portableNames().getOrDefault(uri, uri.lastSegment());
  }

  /**
   * The models lowered, with the errors validation cannot see because they need the lowered model
   * ({@link dev.kairos.generator.lowering.LoweredChecks}), the same list the language server
   * reports.
   */
  CheckPipeline.Lowered lower(ModelLoader.Loaded loaded) {
    return CheckPipeline.lower(systemName(), loaded.models(), fileNames(loaded));
  }

  /**
   * The check of loaded models, as the language server makes it ({@link CheckPipeline}); the
   * lowering is timed as a phase of its own.
   */
  CheckPipeline.Outcome check(ModelLoader.Loaded loaded) {
    return CheckPipeline.check(
        systemName(),
        loaded.models(),
        fileNames(loaded),
        loaded.diagnostics(),
        lowered -> lap("lower"));
  }

  /**
   * The models loaded and analysed, the system {@code systemName} names (or the only one) and its
   * nodes ({@code onlyNodes} of them where given), schedulable: what a command that runs or deploys
   * a system starts from. Empty after saying why not, with {@code exit[0]} the exit code; {@code
   * nothing} ends a refusal ("nothing run").
   */
  Optional<SystemChoice.Chosen> chosenSystem(
      String systemName, List<String> onlyNodes, String nothing, int[] exit) {
    exit[0] = KairosCli.OK;
    final Optional<ModelLoader.Loaded> loaded = loadAndReport(exit, true);
    if (loaded.isEmpty() || exit[0] != KairosCli.OK) {
      return Optional.empty();
    }
    final Optional<CheckPipeline.Analysed> analysed =
        analysed(loaded.get(), true, "kairos: " + nothing);
    if (analysed.isEmpty()) {
      exit[0] = KairosCli.MODEL_ERRORS;
      return Optional.empty();
    }
    final dev.kairos.ir.SystemModel system = analysed.get().system();
    final dev.kairos.timing.TimingPlan plan = analysed.get().report();
    final Optional<List<dev.kairos.timing.NodePlan>> nodes =
        SystemChoice.nodes(system, plan, systemName, onlyNodes, err());
    if (nodes.isEmpty()) {
      exit[0] = KairosCli.USAGE;
      return Optional.empty();
    }
    if (!plan.schedulable()) {
      err().println("kairos: error: the model is not schedulable (see kairos check); " + nothing);
      exit[0] = KairosCli.MODEL_ERRORS;
      return Optional.empty();
    }
    return Optional.of(new SystemChoice.Chosen(system, plan, nodes.get()));
  }

  /**
   * The system's keys and DDS Security documents for {@code grants}, made into {@code directory}
   * ({@link SystemKeys#make}, valid {@code days}, each node's files in {@code installedIn} where it
   * runs); empty after saying why not, and {@code after}.
   */
  Optional<SystemKeys.Made> madeKeys(
      SystemModel system,
      String systemName,
      List<dev.kairos.generator.emit.DdsSecurityDocuments.Grant> grants,
      Path directory,
      int days,
      String libraries,
      java.util.function.UnaryOperator<String> installedIn,
      String after)
      throws IOException {
    try {
      return Optional.of(
          SystemKeys.make(
              files.get(0).toString(),
              SystemChoice.name(system, systemName),
              grants,
              directory,
              days,
              libraries,
              installedIn));
    } catch (SystemKeys.OpenSslFailed e) {
      err().println("kairos: error: " + e.getMessage() + after);
      return Optional.empty();
    }
  }

  /**
   * The analysed system, or empty after printing the errors of the lowered model and then {@code
   * refusal} (what the command did not do). Validation's errors were reported before.
   */
  Optional<CheckPipeline.Analysed> analysed(
      ModelLoader.Loaded loaded, boolean diagnosticsToErr, String refusal) {
    final CheckPipeline.Outcome outcome = check(loaded);
    if (outcome instanceof CheckPipeline.Analysed analysed) {
      return Optional.of(analysed);
    }
    if (outcome instanceof CheckPipeline.Refused refused) {
      reportLowered(refused.lowered().errors(), diagnosticsToErr);
    }
    err().println(refusal);
    return Optional.empty();
  }

  /** Prints errors of the lowered model as validation's are printed; true if there are none. */
  boolean reportLowered(List<Diagnostic> errors, boolean diagnosticsToErr) {
    if (errors.isEmpty()) {
      return true;
    }
    printDiagnostics(errors, diagnosticsToErr);
    err().println("kairos: " + errors.size() + " error(s) in the model");
    return false;
  }

  /** Why a file operation failed, in words (Java names only the path for most of them). */
  static String reason(IOException e) {
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof java.nio.file.FileAlreadyExistsException exists) {
      return exists.getFile() + " exists and is not a directory";
    }
    if (e instanceof java.nio.file.FileSystemException fileSystem
        && fileSystem.getReason() != null) {
      return fileSystem.getReason().toLowerCase(java.util.Locale.ROOT);
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
