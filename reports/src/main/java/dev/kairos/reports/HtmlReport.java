package dev.kairos.reports;

import dev.kairos.ir.Durations;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.timing.EndToEndAnalysis;
import dev.kairos.timing.Finding;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The verdicts of `kairos check` as one self-contained HTML page (inline CSS, SVG and script, no
 * fonts, images or code from elsewhere): per node its verdict, utilization against the Liu-Layland
 * bound, a timeline of the release table, the task table and the BCC windows, and measured against
 * analysed when a run log was given; then the remote calls and the end-to-end chains, or the model
 * errors. Every model string is escaped, and the same report gives the same bytes.
 *
 * <p>The timeline has one renderer, {@code report/timeline-draw.js}, fed the JSON of {@link
 * TimelineData}: the page runs it for the interactive view (zoom, pan, tooltips; {@code
 * report/timeline.js}), which hides the static SVG that {@link TimelineRenderer} drew with it here
 * for viewers that run no script. The page is a sequence of sections, each written by one method of
 * {@link #render}.
 */
public final class HtmlReport {
  private HtmlReport() {}

  private static final String STYLE =
      """
      :root { color-scheme: light; }
      body { font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1d2430;
        margin: 0; padding: 24px 32px 48px; background: #f6f7f9; }
      h1 { font-size: 22px; margin: 0 0 6px; }
      h2 { font-size: 18px; margin: 0 0 4px; }
      h3 { font-size: 14px; margin: 18px 0 6px; text-transform: uppercase; letter-spacing: .04em;
        color: #4a5568; }
      code, .mono { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 13px; }
      section { background: #fff; border: 1px solid #d8dde5; border-radius: 6px; padding: 16px 20px;
        margin: 18px 0; }
      .verdict { display: inline-block; padding: 1px 10px; border-radius: 10px; font-size: 13px;
        font-weight: bold; vertical-align: 2px; margin-left: 8px; }
      .verdict.ok { background: #d9f2dc; color: #1b5e20; }
      .verdict.bad { background: #fbd9d9; color: #a11212; }
      .banner { font-size: 16px; font-weight: bold; padding: 8px 14px; border-radius: 6px;
        display: inline-block; }
      .banner.ok { background: #d9f2dc; color: #1b5e20; }
      .banner.bad { background: #fbd9d9; color: #a11212; }
      .facts { color: #4a5568; margin: 2px 0 8px; }
      .facts span + span::before { content: " \\00b7  "; color: #9aa5b4; }
      .platform { color: #4a5568; font-size: 12px; margin: 0 0 8px; }
      table { border-collapse: collapse; margin: 4px 0; }
      th, td { padding: 3px 10px; text-align: left; border-bottom: 1px solid #e6e9ee;
        white-space: nowrap; }
      th { background: #eef1f5; font-weight: bold; font-size: 13px; }
      td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
      tr.miss td { background: #fde8e8; }
      tr.soft-miss td { background: #fff4dc; }
      td.verdict-cell { font-weight: bold; }
      tr.miss td.verdict-cell { color: #a11212; }
      .scroll { overflow-x: auto; border: 1px solid #e6e9ee; border-radius: 4px; background: #fff; }
      svg text { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 11px;
        fill: #1d2430; }
      svg text.sub { fill: #6b7585; font-size: 10px; }
      .legend { color: #4a5568; font-size: 12px; margin: 6px 0; }
      .legend span { display: inline-block; margin-right: 14px; }
      .swatch { display: inline-block; width: 14px; height: 10px; vertical-align: -1px;
        margin-right: 4px; border: 1px solid #9aa5b4; }
      .sw-window { background: #cfe8cf; }
      .sw-hard { background: #1f4e8c; }
      .sw-soft { background: #8a63b8; }
      .sw-miss { background: repeating-linear-gradient(45deg, #d62828 0 3px, #fff 3px 5px); }
      .note { color: #4a5568; }
      ul.notes { margin: 4px 0; padding-left: 20px; color: #4a5568; }
      ul.toc { list-style: none; padding: 0; margin: 10px 0 0; }
      ul.toc li { display: inline-block; margin-right: 18px; }
      a { color: #1f4e8c; }
      footer { color: #6b7585; font-size: 12px; margin-top: 24px; }
      """;

  /**
   * The page for a checked system, or for a model with errors (then `report` is null).
   *
   * @param title names the models, e.g. the file names
   */
  public static String render(String title, TimingPlan report, List<Diagnostic> problems) {
    return render(title, report, problems, Map.of(), null);
  }

  /**
   * The page, with what nodes measured in a run drawn over the analysed timelines, and the system's
   * architecture diagram above them.
   *
   * @param measured by node name; nodes without a run are drawn as analysed only
   * @param architectureSvg an SVG document, or null for no diagram
   */
  public static String render(
      String title,
      TimingPlan report,
      List<Diagnostic> problems,
      Map<String, TimelineData.NodeRun> measured,
      String architectureSvg) {
    final StringBuilder out = new StringBuilder(65_536);
    out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<meta name=\"generator\" content=\"kairos check\">\n")
        .append("<title>kairos check: ")
        .append(esc(title))
        .append("</title>\n<style>\n")
        .append(STYLE)
        .append(resource("timeline.css"))
        .append("</style>\n</head>\n<body>\n<header>\n<h1>kairos check: ")
        .append(esc(title))
        .append("</h1>\n");
    final boolean schedulable = report != null && report.schedulable() && problems.isEmpty();
    final String banner;
    if (!problems.isEmpty()) {
      banner = "the model has " + problems.size() + " error(s): not analysed";
    } else {
      banner = schedulable ? "all nodes schedulable" : "not schedulable";
    }
    out.append("<p class=\"banner ")
        .append(schedulable ? "ok" : "bad")
        .append("\" id=\"verdict\">")
        .append(esc(banner))
        .append("</p>\n");
    if (report != null && !report.nodes().isEmpty()) {
      out.append("<ul class=\"toc\">\n");
      for (int i = 0; i < report.nodes().size(); i++) {
        final NodePlan node = report.nodes().get(i);
        out.append("<li><a href=\"#node-")
            .append(i)
            .append("\">")
            .append(esc(node.node().name()))
            .append("</a> ")
            .append(node.multicore() ? node.cores().size() + " cores" : percent(node.utilization()))
            .append(' ')
            .append(node.schedulable() ? "schedulable" : "<b>NOT schedulable</b>")
            .append("</li>\n");
      }
      out.append("</ul>\n");
    }
    out.append("</header>\n");
    if (!problems.isEmpty()) {
      errors(out, problems);
    }
    if (architectureSvg != null) {
      out.append(ArchitectureDiagrams.htmlSection(architectureSvg));
    }
    final String timelines =
        report == null || report.nodes().isEmpty()
            ? null
            : TimelineData.json(report.nodes(), measured);
    if (timelines != null) {
      try (TimelineRenderer renderer = new TimelineRenderer(timelines)) {
        for (int i = 0; i < report.nodes().size(); i++) {
          final NodePlan node = report.nodes().get(i);
          node(out, i, node, measured.get(node.node().name()), renderer);
        }
      }
    }
    if (report != null) {
      gates(out, report.gates());
      ServiceRateReports.html(out, report);
      ChainReports.html(out, report);
    }
    if (timelines != null) {
      timelineScript(out, timelines);
    }
    out.append("<footer>Times are from the release of the first activation (t = 0). WCETs are")
        .append(" scaled to each node's hardware. Generated by kairos check.</footer>\n")
        .append("</body>\n</html>\n");
    return out.toString();
  }

  private static void errors(StringBuilder out, List<Diagnostic> problems) {
    out.append("<section class=\"errors\" id=\"errors\">\n<h2>Model errors</h2>\n")
        .append("<table>\n<tr><th>where</th><th>error</th></tr>\n");
    for (Diagnostic problem : problems) {
      out.append("<tr class=\"error\"><td><code>")
          .append(esc(problem.file() + ":" + problem.line() + ":" + problem.column()))
          .append("</code></td><td>")
          .append(esc(problem.message()))
          .append("</td></tr>\n");
    }
    out.append("</table>\n</section>\n");
  }

  /** The data of the timelines, the renderer and the interactive view that draws with it. */
  private static void timelineScript(StringBuilder out, String timelines) {
    out.append("<script type=\"application/json\" id=\"kairos-timeline-data\">")
        .append(timelines)
        .append("</script>\n<script>\n")
        .append(resource("timeline-draw.js"))
        .append("</script>\n<script>\n")
        .append(resource("timeline.js"))
        .append("</script>\n");
  }

  /** A file of the page kept beside this class (report/NAME), read once per page. */
  static String resource(String name) {
    try (InputStream in = HtmlReport.class.getResourceAsStream("report/" + name)) {
      if (in == null) {
        throw new IllegalStateException("report/" + name + " is missing from the build");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void node(
      StringBuilder out,
      int index,
      NodePlan node,
      TimelineData.NodeRun run,
      TimelineRenderer renderer) {
    final var n = node.node();
    out.append("<section class=\"node\" id=\"node-")
        .append(index)
        .append("\" data-node=\"")
        .append(esc(n.name()))
        .append("\">\n<h2>node <code>")
        .append(esc(n.name()))
        .append("</code><span class=\"verdict ")
        .append(node.schedulable() ? "ok\">schedulable" : "bad\">NOT schedulable")
        .append("</span></h2>\n<p class=\"facts\"><span>scheduling <b>")
        .append(esc(CheckReports.strategy(node)))
        .append("</b></span><span>hardware <b>")
        .append(esc(n.hardware().name()))
        .append("</b> (")
        .append(n.hardware().cores())
        .append(n.hardware().cores() == 1 ? " core" : " cores")
        .append(", speed ")
        .append(esc(n.hardware().speed().toPlainString()))
        .append(")</span><span>os ")
        .append(esc(n.os().name().toLowerCase(Locale.ROOT)))
        .append("</span>");
    if (n.endpoint() != null) {
      out.append("<span>endpoint <code>").append(esc(n.endpoint())).append("</code></span>");
    }
    out.append("<span>").append(esc(n.source().toString())).append("</span></p>\n");
    final String platform = CheckReports.platformSummary(n);
    if (!platform.isEmpty()) {
      out.append("<p class=\"platform\">").append(esc(platform)).append("</p>\n");
    }
    UtilizationBar.draw(out, node);
    out.append("<h3>Release table</h3>\n")
        .append("<div class=\"kt-view\" data-node-index=\"")
        .append(index)
        .append("\"></div>\n<div class=\"static-timeline\">\n")
        .append(renderer.staticHtml(index))
        .append("</div>\n");
    tasks(out, node);
    if (run != null) {
      measured(out, node, run);
    }
    bcc(out, node);
    if (!node.notes().isEmpty()) {
      out.append("<h3>Notes</h3>\n<ul class=\"notes\">\n");
      for (Finding note : node.notes()) {
        out.append("<li>").append(esc(Findings.text(note))).append("</li>\n");
      }
      out.append("</ul>\n");
    }
    out.append("</section>\n");
  }

  private static void tasks(StringBuilder out, NodePlan node) {
    out.append("<h3>Tasks</h3>\n<table class=\"tasks\">\n<tr><th>task</th><th>kind</th>")
        .append("<th>criticality</th><th class=\"num\">period</th><th class=\"num\">WCET</th>")
        .append("<th class=\"num\">deadline</th><th class=\"num\">band</th>")
        .append("<th class=\"num\">response</th><th class=\"num\">slack</th><th>verdict</th>")
        .append("<th>source</th></tr>\n");
    for (TaskReport task : node.tasks()) {
      final String verdict = CheckReports.verdict(node, task);
      out.append("<tr class=\"task")
          .append(
              task.schedulable() ? "" : CheckReports.failed(node, task) ? " miss" : " soft-miss")
          .append("\" data-task=\"")
          .append(esc(task.name()))
          .append("\"><td><code>")
          .append(esc(task.name()))
          .append("</code></td><td>")
          .append(task.kind().name().toLowerCase(Locale.ROOT))
          .append("</td><td>")
          .append(task.criticality().name().toLowerCase(Locale.ROOT))
          .append("</td><td class=\"num\">")
          .append(task.periodNs() > 0 ? Durations.format(task.periodNs()) : "-")
          .append("</td><td class=\"num\">")
          .append(Durations.format(task.wcetNs()))
          .append("</td><td class=\"num\">")
          .append(Durations.format(task.deadlineNs()))
          .append("</td><td class=\"num\">")
          .append(task.band())
          .append("</td><td class=\"num\">")
          .append(
              task.responseTimeNs() >= 0
                  ? Durations.format(task.responseTimeNs())
                  : "&gt; deadline")
          .append("</td><td class=\"num\">")
          .append(
              task.responseTimeNs() >= 0
                  ? Durations.format(task.deadlineNs() - task.responseTimeNs())
                  : "-")
          .append("</td><td class=\"verdict-cell\">")
          .append(esc(verdict))
          .append("</td><td><code>")
          .append(esc(task.source().toString()))
          .append("</code></td></tr>\n");
    }
    out.append("</table>\n");
  }

  /** Measured against analysed, per SpM: the table beside the drawn measured activations. */
  private static void measured(StringBuilder out, NodePlan node, TimelineData.NodeRun run) {
    out.append("<h3>Measured</h3>\n<p class=\"note\">From <code>")
        .append(esc(run.source()))
        .append("</code>: ")
        .append(run.activations().size())
        .append(" activation line(s)");
    if (!run.summary().isEmpty()) {
      out.append("; summary <code>");
      run.summary()
          .forEach((key, value) -> out.append(esc(key)).append('=').append(esc(value)).append(' '));
      out.setLength(out.length() - 1);
      out.append("</code>");
    }
    out.append(". A response is measured as the analysis bounds it, from the opening of the start")
        .append(" window to the finish.")
        .append(
            run.asDeployed()
                ? " The run's cores shared CPUs: each bound is the one analysed as deployed, with"
                    + " the cores on its CPU, which the timeline above does not draw."
                : "")
        .append("</p>\n")
        .append("<table class=\"measured\">\n<tr><th>SpM</th><th class=\"num\">core</th>")
        .append("<th class=\"num\">activations</th><th class=\"num\">ran</th>")
        .append("<th class=\"num\">measured max response</th>")
        .append("<th class=\"num\">analysed bound")
        .append(run.asDeployed() ? " as deployed" : "")
        .append("</th><th class=\"num\">deadline</th>")
        .append("<th class=\"num\">window misses</th><th class=\"num\">deadline misses</th>")
        .append("<th>verdict</th></tr>\n");
    for (TimelineData.Comparison row :
        TimelineData.compare(node, run.activations(), run.boundsNs())) {
      final String verdict;
      if (row.activations() == 0) {
        verdict = "not in the log";
      } else if (row.windowMisses() > 0 || row.deadlineMisses() > 0) {
        verdict = "MISSED";
      } else if (row.aboveBound()) {
        verdict = "ABOVE THE BOUND";
      } else {
        verdict = row.ran() == 0 ? "never ran" : "within the bound";
      }
      out.append("<tr class=\"measured-row")
          .append(row.aboveBound() || row.windowMisses() + row.deadlineMisses() > 0 ? " miss" : "")
          .append("\" data-task=\"")
          .append(esc(row.name()))
          .append("\"><td><code>")
          .append(esc(row.name()))
          .append("</code></td><td class=\"num\">")
          .append(row.core())
          .append("</td><td class=\"num\">")
          .append(row.activations())
          .append("</td><td class=\"num\">")
          .append(row.ran())
          .append("</td><td class=\"num max\">")
          .append(row.maxResponseNs() >= 0 ? Figures.duration(row.maxResponseNs()) : "-")
          .append("</td><td class=\"num bound\">")
          .append(row.boundNs() >= 0 ? Figures.duration(row.boundNs()) : "&gt; deadline")
          .append("</td><td class=\"num\">")
          .append(Figures.duration(row.deadlineNs()))
          .append("</td><td class=\"num\">")
          .append(row.windowMisses())
          .append("</td><td class=\"num\">")
          .append(row.deadlineMisses())
          .append("</td><td class=\"verdict-cell\">")
          .append(verdict)
          .append("</td></tr>\n");
    }
    out.append("</table>\n");
  }

  private static void bcc(StringBuilder out, NodePlan node) {
    out.append("<h3>BCC admission</h3>\n");
    if (node.admissions().isEmpty()) {
      out.append("<p class=\"note\">No service methods on this node.</p>\n");
      return;
    }
    out.append("<table class=\"bcc\">\n<tr><th>service method</th>")
        .append("<th class=\"num\">slot</th><th class=\"num\">longest wait</th>")
        .append("<th class=\"num\">response</th><th class=\"num\">GCT</th>")
        .append("<th>verdict</th></tr>\n");
    for (NodePlan.ServiceAdmission bcc : node.admissions()) {
      final String wait;
      final String verdict;
      if (!bcc.conflicts()) {
        wait = "none";
        verdict = "no conflicting SpM";
      } else if (!bcc.admission().bounded()) {
        wait = "unbounded";
        verdict = "MAY NEVER BE ADMITTED";
      } else {
        wait = Durations.format(bcc.admission().longestWaitNs());
        verdict = bcc.fits() ? "GCT holds" : "GCT DOES NOT HOLD";
      }
      out.append("<tr")
          .append(bcc.conflicts() && !bcc.fits() ? " class=\"miss\"" : "")
          .append("><td><code>")
          .append(esc(bcc.instance() + "." + bcc.svm()))
          .append("</code></td><td class=\"num\">")
          .append(Durations.format(bcc.admission().slotNs()))
          .append("</td><td class=\"num\">")
          .append(wait)
          .append("</td><td class=\"num\">")
          .append(bcc.responseNs() >= 0 ? Durations.format(bcc.responseNs()) : "unbounded")
          .append("</td><td class=\"num\">")
          .append(Durations.format(bcc.gctNs()))
          .append("</td><td>")
          .append(verdict)
          .append("</td></tr>\n");
    }
    out.append("</table>\n");
  }

  private static void gates(StringBuilder out, List<EndToEndAnalysis.GateReport> gates) {
    if (gates.isEmpty()) {
      return;
    }
    out.append("<section class=\"gates\" id=\"gates\">\n<h2>Remote calls</h2>\n")
        .append("<p class=\"note\">deadline &#8805; 2 &#215; (latency + jitter) + serialisation")
        .append(" + callee GCT,")
        .append(" and the callee keeps its GCT on its node</p>\n")
        .append("<table>\n<tr><th>gate</th><th>callee</th><th class=\"num\">deadline</th>")
        .append("<th class=\"num\">network</th><th class=\"num\">serialisation</th>")
        .append("<th class=\"num\">callee GCT</th>")
        .append("<th class=\"num\">callee response</th><th>verdict</th><th>source</th></tr>\n");
    for (EndToEndAnalysis.GateReport gate : gates) {
      out.append("<tr class=\"gate")
          .append(gate.meets() ? "" : " miss")
          .append("\"><td><code>")
          .append(esc(gate.caller() + "." + gate.gate()))
          .append("</code></td><td><code>")
          .append(esc(gate.callee()))
          .append("</code></td><td class=\"num\">")
          .append(Durations.format(gate.deadlineNs()))
          .append("</td><td class=\"num\">")
          .append(gate.networkNs() < 0 ? "no path" : Durations.format(gate.networkNs()))
          .append("</td><td class=\"num\">")
          .append(Durations.format(gate.serialisationNs()))
          .append("</td><td class=\"num\">")
          .append(gate.calleeGctNs() < 0 ? "?" : Durations.format(gate.calleeGctNs()))
          .append("</td><td class=\"num\">")
          .append(
              gate.calleeResponseNs() < 0 ? "unbounded" : Durations.format(gate.calleeResponseNs()))
          .append("</td><td class=\"verdict-cell\">")
          .append(gate.meets() ? "ok" : "MISSES ITS DEADLINE")
          .append("</td><td><code>")
          .append(esc(gate.source().toString()))
          .append("</code></td></tr>\n");
    }
    out.append("</table>\n</section>\n");
  }

  static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
  }

  static String px(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  /** Escapes text for HTML content and attribute values. */
  static String esc(String text) {
    final StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
