package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;
import static dev.kairos.cli.KairosCli.USAGE;

import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.generator.verdicts.LocatedVerdicts;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.CheckReports;
import dev.kairos.reports.Diagnostic;
import dev.kairos.reports.HtmlReport;
import dev.kairos.reports.TimelineData;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.reports.runlog.RunLog;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * `kairos check`: validates models and reports whether every deadline holds (text, JSON, JUnit,
 * SARIF, HTML).
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = "Validates models and analyses whether every deadline holds on every node.")
final class CheckCommand extends ModelCommand {
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
    final CheckPipeline.Outcome outcome = check(loaded.get());
    if (!(outcome instanceof CheckPipeline.Analysed analysed)) {
      // Validation's errors were reported above; what is left is the lowered model's.
      final List<Diagnostic> loweredErrors =
          outcome instanceof CheckPipeline.Refused refused ? refused.lowered().errors() : List.of();
      reportLowered(loweredErrors, format != Format.text);
      final List<Diagnostic> withLowered = new ArrayList<>(modelDiagnostics);
      withLowered.addAll(loweredErrors);
      return reportErrors(withLowered, MODEL_ERRORS);
    }
    final SystemModel system = analysed.system();
    final TimingPlan report = analysed.report();
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
      case sarif -> out().print(SarifReport.render(KairosCli.version(), shown(all), result));
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

  private static List<Diagnostic> warnings(List<Diagnostic> diagnostics) {
    return diagnostics.stream().filter(d -> d.severity() != Diagnostic.Severity.ERROR).toList();
  }

  /** The verdicts that fail or warn, as diagnostics on the model elements they concern. */
  private static List<Diagnostic> verdicts(TimingPlan report, ModelLoader.Loaded loaded) {
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

  /** The report of a model with errors: no figures, its diagnostics (JSON, JUnit, SARIF, page). */
  private int reportErrors(List<Diagnostic> diagnostics, int exit) {
    final List<Diagnostic> problems =
        diagnostics.stream().filter(d -> d.severity() == Diagnostic.Severity.ERROR).toList();
    final int result = writeHtml(null, null, problems, Map.of()) ? exit : USAGE;
    switch (format) {
      case json -> out().print(CheckReports.json(null, problems, warnings(diagnostics)));
      case junit -> out().print(CheckReports.junit(null, problems));
      case sarif ->
          out().print(SarifReport.render(KairosCli.version(), shown(diagnostics), result));
      case text -> {}
    }
    out().flush();
    return result;
  }

  /**
   * The runs that --measured names, by node; empty (after saying why) when a log cannot be read,
   * has a malformed line or is not of this model.
   */
  private Optional<Map<String, TimelineData.NodeRun>> readRuns(TimingPlan report) {
    final Map<String, TimelineData.NodeRun> runs = new LinkedHashMap<>();
    final Map<String, dev.kairos.timing.NodePlan> nodes = new LinkedHashMap<>();
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
            new String(Files.readAllBytes(Path.of(file)), StandardCharsets.UTF_8).lines().toList();
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
      TimingPlan report,
      List<Diagnostic> problems,
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
