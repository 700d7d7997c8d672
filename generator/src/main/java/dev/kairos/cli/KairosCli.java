package dev.kairos.cli;

import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.generator.analysis.AnalysisReport;
import dev.kairos.generator.analysis.MessageCapacity;
import dev.kairos.generator.analysis.SchedulingAnalysis;
import dev.kairos.generator.diagram.ArchitectureDiagrams;
import dev.kairos.generator.emit.CheckReports;
import dev.kairos.generator.emit.ClangFormat;
import dev.kairos.generator.emit.CppGenerator;
import dev.kairos.generator.emit.FileLayout;
import dev.kairos.generator.emit.GeneratedFile;
import dev.kairos.generator.emit.GenerationManifest;
import dev.kairos.generator.emit.HandWrittenSignatures;
import dev.kairos.generator.emit.HtmlReport;
import dev.kairos.generator.emit.OutputWriter;
import dev.kairos.generator.emit.TimelineData;
import dev.kairos.generator.ir.Platform;
import dev.kairos.generator.ir.SystemModel;
import dev.kairos.generator.ir.Tmos.TmoClass;
import dev.kairos.generator.lowering.ModelLowering;
import dev.kairos.generator.lowering.PlatformFiles;
import dev.kairos.generator.runlog.RunLog;
import dev.kairos.generator.verdicts.LocatedVerdicts;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
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
      KairosCli.Validate.class,
      KairosCli.Check.class,
      KairosCli.Generate.class,
      KairosCli.Format.class,
      KairosCli.Diagram.class,
      CalibrateCommand.class,
      ProbeCommand.class,
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
      return new String[] {"kairos " + version()};
    }
  }

  static String version() {
    final String version = KairosCli.class.getPackage().getImplementationVersion();
    return version == null ? "0.1.0-SNAPSHOT" : version;
  }

  /** Shared by the subcommands: load, validate and print diagnostics. */
  abstract static class ModelCommand implements Callable<Integer> {
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
     * The first --max-diagnostics of them (errors only with --quiet), each with its source line,
     * then one line with how many more and the totals.
     */
    void printDiagnostics(List<Diagnostic> all, boolean toErr) {
      final PrintWriter sink = toErr ? err() : out();
      final DiagnosticPrinter printer = new DiagnosticPrinter(color.colors(toErr, System.getenv()));
      final List<Diagnostic> diagnostics =
          quiet
              ? all.stream().filter(d -> d.severity() == Diagnostic.Severity.ERROR).toList()
              : all;
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
     * With --werror, warnings fail the run: the exit code becomes 1 (after saying so) where it was
     * 0.
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

    SystemModel lower(ModelLoader.Loaded loaded) {
      final String name = files.get(0).getFileName().toString().replaceFirst("\\.tmo$", "");
      return new ModelLowering(uri -> loaded.portableNames().getOrDefault(uri, uri.lastSegment()))
          .lower(name.replaceAll("[^A-Za-z0-9_]", "_"), loaded.models());
    }

    /**
     * The errors validation cannot see, because they need the lowered model: messages larger than
     * the ORB carries, platform files that cannot be read. The IR knows lines, not columns: they
     * point at column 1.
     */
    static List<Diagnostic> loweredErrors(SystemModel system) {
      final List<Diagnostic> errors = new java.util.ArrayList<>();
      for (MessageCapacity.Oversized o : MessageCapacity.check(system)) {
        errors.add(
            new Diagnostic(
                o.source().file(),
                o.source().line(),
                1,
                Diagnostic.Severity.ERROR,
                o.text(),
                MessageCapacity.MESSAGE_TOO_LARGE));
      }
      for (Platform.PlatformFile file : PlatformFiles.problems(system)) {
        errors.add(
            new Diagnostic(
                file.source().file(),
                file.source().line(),
                file.source().column(),
                Diagnostic.Severity.ERROR,
                PlatformFiles.message(file),
                PlatformFiles.PLATFORM_FILE));
      }
      errors.sort(Diagnostic.ORDER);
      return List.copyOf(errors);
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
  }

  @Command(
      name = "validate",
      mixinStandardHelpOptions = true,
      description = "Parses and validates models; prints file:line:col: diagnostics.")
  static final class Validate extends ModelCommand {
    enum Format {
      text,
      sarif
    }

    @Option(
        names = "--format",
        defaultValue = "text",
        description = "text (file:line:col: diagnostics) or sarif (SARIF 2.1.0 for code scanning)")
    Format format;

    @Override
    public Integer call() {
      final int[] exit = {OK};
      final Optional<ModelLoader.Loaded> loaded =
          format == Format.text ? loadAndReport(exit, false) : loadQuietly(exit);
      if (loaded.isEmpty()) {
        return exit[0];
      }
      final List<Diagnostic> diagnostics = new ArrayList<>(loaded.get().diagnostics());
      if (exit[0] == OK) {
        // Errors only the lowered model shows (message sizes) are validation errors too.
        final List<Diagnostic> lowered = loweredErrors(lower(loaded.get()));
        if (!lowered.isEmpty()) {
          diagnostics.addAll(lowered);
          exit[0] = MODEL_ERRORS;
          if (format == Format.text) {
            reportLowered(lowered, false);
          }
        }
      }
      final int result = withWarningsAsErrors(exit[0], diagnostics);
      if (format == Format.sarif) {
        out().print(SarifReport.render(version(), shown(diagnostics), result));
        out().flush();
      }
      return result;
    }
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Validates models and analyses whether every deadline holds on every node.")
  static final class Check extends ModelCommand {
    enum Format {
      text,
      json,
      junit,
      sarif
    }

    @Option(
        names = "--format",
        defaultValue = "text",
        description =
            "text, json (times in integer nanoseconds), junit (XML for CI) or sarif (SARIF 2.1.0"
                + " for code scanning: model problems and missed deadlines with their model"
                + " locations)")
    Format format;

    @Option(
        names = "--html",
        paramLabel = "FILE",
        description =
            "also write the report as one self-contained HTML page with an SVG timeline per node"
                + " (written whatever the verdict; parent directories are created)")
    Path html;

    @Option(
        names = "--measured",
        paramLabel = "[NODE=]LOG",
        description =
            "with --html: draw what a node printed in a run (its activation lines) over its"
                + " analysed timeline and compare its responses with the analysed bounds; NODE="
                + " for a lone node's output, none for a system's (its lines name their nodes);"
                + " repeatable")
    List<String> measured = new ArrayList<>();

    @Override
    public Integer call() {
      if (!measured.isEmpty() && html == null) {
        err().println("kairos: error: --measured draws on the HTML page: give --html FILE too");
        return USAGE;
      }
      final int[] exit = {OK};
      final Optional<ModelLoader.Loaded> loaded =
          format == Format.sarif ? loadQuietly(exit) : loadAndReport(exit, format != Format.text);
      if (loaded.isEmpty()) {
        return exit[0];
      }
      final List<Diagnostic> modelDiagnostics = loaded.get().diagnostics();
      if (exit[0] != OK) {
        return reportErrors(modelDiagnostics, exit[0]);
      }
      lap("load and validate");
      final SystemModel system = lower(loaded.get());
      lap("lower");
      final List<Diagnostic> loweredErrors = loweredErrors(system);
      if (!reportLowered(loweredErrors, format != Format.text)) {
        final List<Diagnostic> withLowered = new ArrayList<>(modelDiagnostics);
        withLowered.addAll(loweredErrors);
        return reportErrors(withLowered, MODEL_ERRORS);
      }
      final AnalysisReport report = SchedulingAnalysis.analyse(system);
      lap(
          "analyse "
              + system.nodes().stream()
                  .mapToLong(
                      n ->
                          n.deployments().stream()
                              .mapToLong(d -> d.tmo().spms().size() + d.tmo().svms().size())
                              .sum())
                  .sum()
              + " tasks");
      final Optional<Map<String, TimelineData.NodeRun>> runs = readRuns(report);
      if (runs.isEmpty()) {
        return USAGE;
      }
      final List<Diagnostic> verdicts = verdicts(report, loaded.get());
      final List<Diagnostic> all = new ArrayList<>(modelDiagnostics);
      all.addAll(verdicts);
      all.sort(Diagnostic.ORDER);
      int result = report.schedulable() ? OK : MODEL_ERRORS;
      if (!writeHtml(system, report, List.of(), runs.get())) {
        result = USAGE;
      }
      result = withWarningsAsErrors(result, all);
      switch (format) {
        case json -> out().print(CheckReports.json(report, List.of(), warnings(modelDiagnostics)));
        case junit -> out().print(CheckReports.junit(report, List.of()));
        case sarif -> out().print(SarifReport.render(version(), shown(all), result));
        case text -> {
          final String text = CheckReports.text(report);
          if (quiet) {
            // The verdict line alone: the last line of the report.
            final List<String> lines = text.lines().toList();
            out().println(lines.get(lines.size() - 1));
          } else {
            out().print(text);
          }
          out().flush();
          // Each miss once more, at its place in the model, as the language server shows it.
          printDiagnostics(verdicts, true);
        }
      }
      out().flush();
      lap("report");
      reportTimings();
      return result;
    }

    private static CheckReports.Problem problem(Diagnostic d) {
      return new CheckReports.Problem(
          d.file(),
          d.line(),
          d.column(),
          d.message(),
          d.code(),
          d.severity().name().toLowerCase(java.util.Locale.ROOT));
    }

    private static List<CheckReports.Problem> warnings(List<Diagnostic> diagnostics) {
      return diagnostics.stream()
          .filter(d -> d.severity() != Diagnostic.Severity.ERROR)
          .map(Check::problem)
          .toList();
    }

    /** The verdicts that fail or warn, as diagnostics on the model elements they concern. */
    private static List<Diagnostic> verdicts(AnalysisReport report, ModelLoader.Loaded loaded) {
      final List<Diagnostic> diagnostics = new ArrayList<>();
      for (LocatedVerdicts.Located verdict : LocatedVerdicts.of(report, loaded.models())) {
        final String file =
            loaded
                .shownNames()
                .getOrDefault(
                    verdict.element().eResource().getURI(),
                    verdict.element().eResource().getURI().lastSegment());
        diagnostics.add(
            new Diagnostic(
                file,
                verdict.region().line(),
                verdict.region().column(),
                verdict.region().endLine(),
                verdict.region().endColumn(),
                verdict.severity() == org.eclipse.xtext.diagnostics.Severity.ERROR
                    ? Diagnostic.Severity.ERROR
                    : Diagnostic.Severity.WARNING,
                verdict.message(),
                verdict.code()));
      }
      diagnostics.sort(Diagnostic.ORDER);
      return diagnostics;
    }

    /**
     * The report of a model with errors: no figures, its diagnostics (JSON, JUnit, SARIF, page).
     */
    private int reportErrors(List<Diagnostic> diagnostics, int exit) {
      final List<CheckReports.Problem> problems =
          diagnostics.stream()
              .filter(d -> d.severity() == Diagnostic.Severity.ERROR)
              .map(Check::problem)
              .toList();
      final int result = writeHtml(null, null, problems, Map.of()) ? exit : USAGE;
      switch (format) {
        case json -> out().print(CheckReports.json(null, problems, warnings(diagnostics)));
        case junit -> out().print(CheckReports.junit(null, problems));
        case sarif -> out().print(SarifReport.render(version(), shown(diagnostics), result));
        case text -> {}
      }
      out().flush();
      return result;
    }

    /**
     * The runs that --measured names, by node; empty (after saying why) when a log cannot be read,
     * has a malformed line or is not of this model.
     */
    private Optional<Map<String, TimelineData.NodeRun>> readRuns(AnalysisReport report) {
      final Map<String, TimelineData.NodeRun> runs = new LinkedHashMap<>();
      final Map<String, dev.kairos.generator.analysis.NodeReport> nodes = new LinkedHashMap<>();
      report.nodes().forEach(n -> nodes.put(n.node().name(), n));
      for (String spec : measured) {
        final int equals = spec.indexOf('=');
        final String node =
            equals > 0 && nodes.containsKey(spec.substring(0, equals))
                ? spec.substring(0, equals)
                : null;
        if (node == null && equals > 0 && !Files.exists(Path.of(spec))) {
          err()
              .println(
                  "kairos: error: --measured "
                      + spec
                      + ": "
                      + spec.substring(0, equals)
                      + " is not a node of the model (nodes: "
                      + String.join(", ", nodes.keySet())
                      + ")");
          return Optional.empty();
        }
        final String file = node == null ? spec : spec.substring(equals + 1);
        final List<String> lines;
        try {
          lines =
              new String(Files.readAllBytes(Path.of(file)), StandardCharsets.UTF_8)
                  .lines()
                  .toList();
        } catch (IOException | RuntimeException e) {
          err()
              .println(
                  "kairos: error: cannot read the run log "
                      + file
                      + ": "
                      + (e instanceof IOException io ? reason(io) : e.getMessage()));
          return Optional.empty();
        }
        final RunLog.Parsed parsed;
        try {
          // A model of one node: its node's log needs no NODE=.
          final String lone = nodes.size() == 1 ? nodes.keySet().iterator().next() : null;
          parsed = RunLog.parse(lines, node != null ? node : lone, nodes.keySet());
        } catch (RunLog.MalformedLine e) {
          err().println("kairos: error: " + file + ":" + e.line() + ": " + e.detail());
          return Optional.empty();
        }
        if (parsed.activations().isEmpty()) {
          err().println("kairos: error: " + file + " has no activation lines of a node");
          return Optional.empty();
        }
        if (parsed.skippedLines() > 0) {
          err()
              .println(
                  "kairos: note: "
                      + file
                      + ": "
                      + parsed.skippedLines()
                      + " line(s) that are not a node's activation, summary or gate lines were"
                      + " skipped (the first is line "
                      + parsed.firstSkippedLine()
                      + ")");
        }
        for (var entry : parsed.activations().entrySet()) {
          final var foreign = TimelineData.foreign(nodes.get(entry.getKey()), entry.getValue());
          if (foreign.isPresent()) {
            err()
                .println(
                    "kairos: error: "
                        + file
                        + ":"
                        + foreign.get().line()
                        + ": "
                        + foreign.get().name()
                        + " is not a spontaneous method of node "
                        + entry.getKey());
            return Optional.empty();
          }
          if (runs.containsKey(entry.getKey())) {
            err()
                .println(
                    "kairos: error: two run logs for node " + entry.getKey() + " (" + file + ")");
            return Optional.empty();
          }
          runs.put(
              entry.getKey(),
              new TimelineData.NodeRun(
                  // The file's name only, like the models in the title: the page stays the same
                  // wherever the log is kept.
                  String.valueOf(Path.of(file).getFileName()),
                  entry.getValue(),
                  parsed.summaries().getOrDefault(entry.getKey(), Map.of())));
        }
      }
      return Optional.of(runs);
    }

    /**
     * Writes the page when --html asks for it, with the architecture diagram when the model was
     * lowered (system not null); false (after saying why) when it cannot.
     */
    private boolean writeHtml(
        SystemModel system,
        AnalysisReport report,
        List<CheckReports.Problem> problems,
        Map<String, TimelineData.NodeRun> runs) {
      if (html == null) {
        return true;
      }
      final String title =
          String.join(", ", files.stream().map(f -> String.valueOf(f.getFileName())).toList());
      final String page =
          HtmlReport.render(
              title,
              report,
              problems,
              runs,
              system == null ? null : ArchitectureDiagrams.svg(system, report));
      try {
        final Path parent = html.toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        Files.writeString(html, page, StandardCharsets.UTF_8);
        return true;
      } catch (IOException e) {
        err().println("kairos: error: cannot write the HTML report " + html + ": " + reason(e));
        return false;
      }
    }
  }

  @Command(
      name = "diagram",
      mixinStandardHelpOptions = true,
      description =
          "Validates and analyses models, then draws their architecture as SVG: nodes with their"
              + " TMOs, gates, channels and networks, laid out by the Eclipse Layout Kernel.")
  static final class Diagram extends ModelCommand {
    @Option(
        names = {"-o", "--output"},
        paramLabel = "FILE",
        description = "write the SVG to FILE (parent directories are created); default: stdout")
    Path output;

    @Override
    public Integer call() {
      if (output != null && Files.isDirectory(output)) {
        err().println("kairos: error: -o " + output + ": is a directory");
        return USAGE;
      }
      final int[] exit = {OK};
      final Optional<ModelLoader.Loaded> loaded = loadAndReport(exit, true);
      if (loaded.isEmpty() || exit[0] != OK) {
        if (exit[0] == MODEL_ERRORS) {
          err().println("kairos: no diagram drawn");
        }
        return exit[0];
      }
      lap("load and validate");
      final SystemModel system = lower(loaded.get());
      lap("lower");
      // The analysis gives the verdicts and the gates' worst round trips the diagram shows.
      final AnalysisReport report = SchedulingAnalysis.analyse(system);
      lap("analyse");
      final String svg = ArchitectureDiagrams.svg(system, report);
      lap("lay out and draw");
      if (output == null) {
        out().print(svg);
        out().flush();
      } else {
        try {
          final Path parent = output.toAbsolutePath().getParent();
          if (parent != null) {
            Files.createDirectories(parent);
          }
          Files.writeString(output, svg, StandardCharsets.UTF_8);
        } catch (IOException e) {
          err().println("kairos: error: cannot write the diagram " + output + ": " + reason(e));
          return USAGE;
        }
        out().println("wrote " + output);
      }
      reportTimings();
      return OK;
    }
  }

  /** Why a file operation failed, in words (Java names only the path for most of them). */
  /** What makes a report not schedulable, named: nodes, remote calls, chains, service rates. */
  private static List<String> unschedulableParts(AnalysisReport report) {
    final List<String> parts = new ArrayList<>();
    report.nodes().stream()
        .filter(n -> !n.schedulable())
        .forEach(n -> parts.add("node " + n.node().name()));
    report.gates().stream()
        .filter(g -> !g.meets())
        .forEach(g -> parts.add("remote call " + g.caller() + "." + g.gate()));
    report.chains().stream()
        .filter(c -> c.hard() && !c.meets())
        .forEach(c -> parts.add("chain " + c.name()));
    report.rates().stream()
        .filter(r -> !r.meets())
        .forEach(r -> parts.add("the callers of " + r.callee() + " beyond its max-rate"));
    if (!report.holistic().converged() || !report.holistic().complete()) {
      parts.add("the holistic analysis");
    }
    return parts;
  }

  private static String reason(IOException e) {
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

  @Command(
      name = "format",
      mixinStandardHelpOptions = true,
      description =
          "Rewrites models in the canonical layout (or, with --check, lists those that differ).")
  static final class Format extends ModelCommand {
    @Option(names = "--check", description = "change nothing; exit 1 if a file is not formatted")
    boolean check;

    @Override
    public Integer call() throws IOException {
      final int[] exit = {OK};
      final ModelLoader loader = ModelLoader.create();
      final Optional<ModelLoader.Loaded> loaded = loadAndReport(loader, exit, false, true);
      if (loaded.isEmpty() || exit[0] != OK) {
        if (exit[0] == MODEL_ERRORS) {
          err().println("kairos: files with syntax errors are not formatted");
        }
        return exit[0];
      }
      int unformatted = 0;
      for (Path file : files) {
        final String original = java.nio.file.Files.readString(file);
        final String formatted = loader.format(file);
        if (original.equals(formatted)) {
          continue;
        }
        unformatted++;
        if (check) {
          out().println("not formatted: " + file);
        } else {
          java.nio.file.Files.writeString(file, formatted);
          out().println("formatted " + file);
        }
      }
      return check && unformatted > 0 ? MODEL_ERRORS : OK;
    }
  }

  @Command(
      name = "generate",
      mixinStandardHelpOptions = true,
      description = "Validates and checks models, then generates the C++ project of every node.")
  static final class Generate extends ModelCommand {
    @Option(
        names = {"-o", "--output"},
        required = true,
        paramLabel = "DIR",
        description =
            "directory for generated code (created if missing); files an earlier run generated"
                + " there and this one does not are removed (DIR/kairos.manifest lists them)")
    Path output;

    @Option(
        names = "--impl",
        paramLabel = "DIR",
        description =
            "directory of hand-written method bodies (default: src/ beside the first model);"
                + " starter files are written there only where none exist")
    Path impl;

    @Option(
        names = "--allow-unschedulable",
        description = "generate even when `kairos check` would fail")
    boolean allowUnschedulable;

    @Option(
        names = "--clang-format",
        paramLabel = "COMMAND",
        description =
            "clang-format to format generated C++ with; it must be the pinned version (default:"
                + " $KAIROS_CLANG_FORMAT, else the one installed with kairos, or in a checkout the"
                + " one `make setup` installs; never the PATH's)")
    String clangFormat;

    @Option(
        names = "--outputs",
        paramLabel = "FILE",
        description =
            "also write FILE, JSON for build systems: the files this run generates, the starters"
                + " and each node's sources (rewritten only when that list changes)")
    Path outputsFile;

    @Option(
        names = "--depfile",
        paramLabel = "FILE",
        description =
            "also write FILE, a Make-style depfile: the --outputs FILE (else the manifest)"
                + " depends on the model files and on kairos itself")
    Path depfile;

    @Override
    public Integer call() throws IOException {
      if (outputsFile != null && Files.isDirectory(outputsFile)) {
        err().println("kairos: error: --outputs " + outputsFile + ": is a directory");
        return USAGE;
      }
      if (depfile != null && Files.isDirectory(depfile)) {
        err().println("kairos: error: --depfile " + depfile + ": is a directory");
        return USAGE;
      }
      for (Path directory : impl == null ? List.of(output) : List.of(output, impl)) {
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
          err()
              .println(
                  "kairos: error: "
                      + (directory == output ? "-o " : "--impl ")
                      + directory
                      + ": exists and is not a directory");
          return USAGE;
        }
      }
      final int[] exit = {OK};
      final Optional<ModelLoader.Loaded> loaded = loadAndReport(exit, false);
      if (loaded.isEmpty() || exit[0] != OK) {
        if (exit[0] == MODEL_ERRORS) {
          err().println("kairos: nothing generated");
        }
        return exit[0];
      }
      if (withWarningsAsErrors(OK, loaded.get().diagnostics()) != OK) {
        err().println("kairos: nothing generated");
        return MODEL_ERRORS;
      }
      lap("load and validate");
      final SystemModel system = lower(loaded.get());
      lap("lower");
      if (!reportLowered(loweredErrors(system), false)) {
        err().println("kairos: nothing generated");
        return MODEL_ERRORS;
      }
      final AnalysisReport report = SchedulingAnalysis.analyse(system);
      lap("analyse");
      if (!report.schedulable() && !allowUnschedulable) {
        err().print(CheckReports.text(report));
        err()
            .println(
                "kairos: error: the model is not schedulable; nothing generated"
                    + " (see `kairos check`, or pass --allow-unschedulable)");
        return MODEL_ERRORS;
      }
      if (!report.schedulable()) {
        err()
            .println(
                "kairos: warning: the model is not schedulable ("
                    + String.join(", ", unschedulableParts(report))
                    + "); generated anyway, as --allow-unschedulable asks: its deadlines may be"
                    + " missed at run time (see `kairos check`)");
      }
      final Path outputDir = output.toAbsolutePath().normalize();
      final Path implDir =
          (impl != null ? impl : files.get(0).toAbsolutePath().getParent().resolve("src"))
              .toAbsolutePath()
              .normalize();
      final String implFromOutput = outputDir.relativize(implDir).toString().replace('\\', '/');
      final CppGenerator.Output generated =
          CppGenerator.generate(system, report, implFromOutput.isEmpty() ? "." : implFromOutput);
      lap("emit " + (generated.generated().size() + generated.userStarters().size()) + " files");

      final ClangFormat formatter;
      try {
        formatter = ClangFormat.pinned(clangFormat);
      } catch (ClangFormat.Unavailable e) {
        err().println("kairos: error: " + e.getMessage());
        err().println("kairos: nothing generated");
        return USAGE;
      }
      final List<String> clashes =
          OutputWriter.clashes(
              List.of(
                  new OutputWriter.Root(outputDir, generated.generated()),
                  new OutputWriter.Root(implDir, generated.userStarters())));
      if (!clashes.isEmpty()) {
        clashes.forEach(clash -> err().println("kairos: error: " + clash));
        err().println("kairos: nothing generated");
        return MODEL_ERRORS;
      }
      final List<GeneratedFile> files = format(generated.generated(), formatter);
      final List<GeneratedFile> starters = format(generated.userStarters(), formatter);
      lap("format with clang-format " + ClangFormat.VERSION);
      final List<OutputWriter.Written> written = new ArrayList<>();
      try {
        GenerationManifest.begin(outputDir, files);
        written.addAll(OutputWriter.write(outputDir, files));
        written.addAll(OutputWriter.write(implDir, starters));
        written.addAll(
            GenerationManifest.finish(
                outputDir, files, starters.stream().map(s -> implDir.resolve(s.path())).toList()));
        writeBuildFiles(
            new BuildFiles.Generation(system, this.files, outputDir, implDir, files, starters));
      } catch (IOException e) {
        err().println("kairos: error: cannot write the generated files: " + reason(e));
        return USAGE;
      }
      for (OutputWriter.Written file : written) {
        final String what =
            switch (file.outcome()) {
              case WRITTEN -> "wrote";
              case UNCHANGED -> "unchanged";
              case KEPT_USER_FILE -> "kept";
              case REMOVED -> "removed";
            };
        out().println(String.format("%-9s %s", what, shown(file.path())));
      }
      lap("write " + written.size() + " files");
      final int stale = warnAboutStaleHeaders(system, loaded.get(), implDir, written);
      reportTimings();
      if (werror && stale > 0) {
        err().println("kairos: " + stale + " warning(s) treated as errors (--werror)");
        return MODEL_ERRORS;
      }
      return OK;
    }

    /** The files --outputs and --depfile ask for, once everything else is written. */
    private void writeBuildFiles(BuildFiles.Generation generation) throws IOException {
      if (outputsFile != null) {
        BuildFiles.write(outputsFile, BuildFiles.outputs(generation));
      }
      if (depfile != null) {
        final Path target =
            outputsFile != null ? outputsFile : generation.outputDir().resolve(FileLayout.MANIFEST);
        BuildFiles.write(depfile, BuildFiles.depfile(target, this.files));
      }
    }

    /**
     * Hand-written headers that were kept are compared with the bases just generated: a method the
     * model added or dropped, or whose segment view appeared or went away, is named with its model
     * line and the files to change, so the compiler's complaint has its cause beside it.
     */
    private int warnAboutStaleHeaders(
        SystemModel system,
        ModelLoader.Loaded loaded,
        Path implDir,
        List<OutputWriter.Written> written) {
      // Model lines are kept portable in the IR; warnings name the files as they were given.
      final Map<String, String> shownFiles = new HashMap<>();
      for (Path file : files) {
        final String portable =
            loaded
                .portableNames()
                .get(
                    org.eclipse.emf.common.util.URI.createFileURI(
                        file.toAbsolutePath().normalize().toString()));
        if (portable != null) {
          shownFiles.putIfAbsent(portable, file.normalize().toString());
        }
      }
      int warnings = 0;
      for (TmoClass tmo : system.tmos()) {
        final Path header = implDir.resolve(FileLayout.userHeader(tmo));
        final boolean kept =
            written.stream()
                .anyMatch(
                    w ->
                        w.outcome() == OutputWriter.Outcome.KEPT_USER_FILE
                            && w.path().equals(header));
        if (!kept || !Files.isRegularFile(header)) {
          continue;
        }
        final String text;
        try {
          text = Files.readString(header, StandardCharsets.UTF_8);
        } catch (IOException e) {
          continue; // not text this check can read; the compiler will judge it
        }
        for (HandWrittenSignatures.Mismatch mismatch :
            HandWrittenSignatures.check(
                tmo,
                shown(header).toString(),
                shown(implDir.resolve(FileLayout.userSource(tmo))).toString(),
                text)) {
          warnings++;
          if (quiet) {
            continue;
          }
          err()
              .println(
                  shownFiles.getOrDefault(mismatch.source().file(), mismatch.source().file())
                      + ":"
                      + mismatch.source().line()
                      + ": warning: "
                      + mismatch.message());
        }
      }
      return warnings;
    }

    /** A path relative to the working directory where it lies below it, as written. */
    private static Path shown(Path path) {
      final Path workingDirectory = Path.of("").toAbsolutePath();
      return path.startsWith(workingDirectory) ? workingDirectory.relativize(path) : path;
    }

    private static List<GeneratedFile> format(List<GeneratedFile> files, ClangFormat formatter)
        throws IOException {
      final List<GeneratedFile> cpp =
          files.stream().filter(GeneratedFile::needsFormatting).toList();
      final List<String> formatted =
          formatter.formatAll(
              cpp.stream().map(GeneratedFile::path).toList(),
              cpp.stream().map(GeneratedFile::content).toList());
      final List<GeneratedFile> result = new ArrayList<>();
      int next = 0;
      for (GeneratedFile file : files) {
        result.add(
            file.needsFormatting()
                ? new GeneratedFile(file.path(), formatted.get(next++), file.kind())
                : file);
      }
      return result;
    }
  }
}
