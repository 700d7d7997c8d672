package dev.kairos.cli;

import dev.kairos.ir.SystemModel;
import dev.kairos.reports.HtmlReport;
import dev.kairos.reports.RunTable;
import dev.kairos.reports.TimelineData;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.reports.runlog.RunLog;
import dev.kairos.timing.DeployedAnalysis;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page a run leaves in its directory: the report of `kairos check --html` with what each node
 * measured drawn over its analysed timeline, and its measured maxima set against the bounds the run
 * was held to (as deployed, where cores shared CPUs).
 */
final class RunReport {
  private RunReport() {}

  static final String FILE = "report.html";

  /** A finished run: where it ran from, what was analysed, and what its nodes left. */
  record Run(
      Path directory,
      List<Path> models,
      SystemModel system,
      TimingPlan plan,
      List<dev.kairos.timing.NodePlan> nodes,
      DeployedAnalysis.AsDeployed deployment,
      NodeProcesses.Outcome outcome) {}

  /**
   * The end of a run, for `kairos run` and `kairos deploy` alike: its table, what {@code
   * underTable} says of its rows, the page, the run directory; the exit code (1 when a hard item
   * missed or went above its bound, a node ended badly or the page could not be written).
   */
  static int conclude(
      Run run,
      String whyNoActivations,
      java.util.function.Function<List<RunTable.Row>, String> underTable,
      PrintWriter out,
      PrintWriter err) {
    final NodeProcesses.Outcome outcome = run.outcome();
    final List<RunTable.Row> rows =
        RunTable.rows(
            run.deployment(),
            run.nodes(),
            outcome.timings(),
            outcome.gateLines(),
            outcome.channelLines());
    out.print(RunTable.text(rows, run.deployment()));
    out.print(underTable.apply(rows));
    final boolean reported =
        write(
            run.directory(),
            String.join(
                ", ", run.models().stream().map(f -> String.valueOf(f.getFileName())).toList()),
            run.system(),
            run.plan(),
            run.deployment(),
            outcome.logs(),
            whyNoActivations,
            out,
            err);
    out.println("run directory: " + RunCommand.shownPath(run.directory()));
    out.flush();
    return rows.stream().anyMatch(RunTable.Row::fails) || !outcome.clean() || !reported
        ? KairosCli.MODEL_ERRORS
        : KairosCli.OK;
  }

  /**
   * Writes DIR/report.html and says where; false (after saying why) when it cannot be written.
   *
   * @param logs each node's log as the run read it
   * @param whyNoActivations why the nodes printed no activation lines, where they printed none
   */
  static boolean write(
      Path runDirectory,
      String title,
      SystemModel system,
      TimingPlan plan,
      DeployedAnalysis.AsDeployed deployment,
      Map<String, RunLog.Parsed> logs,
      String whyNoActivations,
      PrintWriter out,
      PrintWriter err) {
    final Map<String, TimelineData.NodeRun> runs = new LinkedHashMap<>();
    logs.forEach(
        (node, parsed) -> {
          final var activations = parsed.activations().getOrDefault(node, List.of());
          if (!activations.isEmpty()) {
            runs.put(
                node,
                new TimelineData.NodeRun(
                    node + ".log",
                    activations,
                    parsed.summaries().getOrDefault(node, Map.of()),
                    deployment.sharesCpus() ? boundsAsDeployed(deployment, node) : Map.of()));
          }
        });
    final Path file = runDirectory.resolve(FILE);
    try {
      Files.writeString(
          file,
          HtmlReport.render(title, plan, List.of(), runs, ArchitectureDiagrams.svg(system, plan)),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      err.println("kairos: error: cannot write the report " + file + ": " + e.getMessage());
      return false;
    }
    out.println(
        "run: report: "
            + RunCommand.shownPath(file)
            + (runs.isEmpty()
                ? " (the analysis only: " + whyNoActivations + ")"
                : " (the analysis, with the activations measured drawn over it)"));
    return true;
  }

  /** Each SpM's bound as deployed on {@code node}, from its start window's opening; -1: none. */
  private static Map<String, Long> boundsAsDeployed(
      DeployedAnalysis.AsDeployed deployment, String node) {
    final Map<String, Long> bounds = new LinkedHashMap<>();
    for (DeployedAnalysis.DeployedTask task : deployment.tasks()) {
      if (task.node().equals(node)) {
        bounds.put(task.task().name(), task.boundNs() < 0 ? -1L : task.boundNs());
      }
    }
    return bounds;
  }
}
