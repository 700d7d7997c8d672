package dev.kairos.reports;

import dev.kairos.ir.Durations;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.timing.AnalysisReport;
import dev.kairos.timing.EndToEndAnalysis;
import dev.kairos.timing.Finding;
import dev.kairos.timing.NodeReport;
import dev.kairos.timing.ReleaseTableAnalysis;
import dev.kairos.timing.ReleaseTableAnalysis.Activation;
import dev.kairos.timing.ReleaseTableAnalysis.Execution;
import dev.kairos.timing.ReleaseTableAnalysis.Outcome;
import dev.kairos.timing.ReleaseTableAnalysis.Trace;
import dev.kairos.timing.ReleaseTableAnalysis.TracedSpm;
import dev.kairos.timing.TaskReport;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
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
 * <p>The timeline is drawn twice: a static SVG per core, written here, for viewers that run no
 * script (an editor's webview), and the interactive view (zoom, pan, processor lanes, BCC windows,
 * tooltips, measured activations) that {@code report/timeline.js} draws in the browser from the
 * JSON of {@link TimelineData}, hiding the static one. The page is a sequence of sections, each
 * written by one method of {@link #render}.
 */
public final class HtmlReport {
  private HtmlReport() {}

  /** Timeline geometry in px: label column, row height, plot width bounds. */
  private static final int LABEL_WIDTH = 200;

  private static final int ROW_HEIGHT = 34;
  private static final int TOP = 8;
  private static final int AXIS_HEIGHT = 34;
  private static final int RIGHT_PAD = 36;
  private static final int MIN_PLOT_WIDTH = 960;
  private static final int MAX_PLOT_WIDTH = 3600;

  /** Width given to each activation of the busiest row, within the bounds above. */
  private static final int PX_PER_ACTIVATION = 14;

  /** Space between axis ticks, at least. */
  private static final int PX_PER_TICK = 80;

  /** Methods drawn as their own segment of the utilization bar; the rest share one. */
  private static final int MAX_BAR_SEGMENTS = 48;

  private static final int BAR_WIDTH = 640;

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
  public static String render(
      String title, AnalysisReport report, List<CheckReports.Problem> problems) {
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
      AnalysisReport report,
      List<CheckReports.Problem> problems,
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
        final NodeReport node = report.nodes().get(i);
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
    if (report != null) {
      for (int i = 0; i < report.nodes().size(); i++) {
        node(out, i, report.nodes().get(i), measured.get(report.nodes().get(i).node().name()));
      }
      gates(out, report.gates());
      ServiceRateReports.html(out, report);
      ChainReports.html(out, report);
    }
    timelineScript(out, report, measured);
    out.append("<footer>Times are from the release of the first activation (t = 0). WCETs are")
        .append(" scaled to each node's hardware. Generated by kairos check.</footer>\n")
        .append("</body>\n</html>\n");
    return out.toString();
  }

  private static void errors(StringBuilder out, List<CheckReports.Problem> problems) {
    out.append("<section class=\"errors\" id=\"errors\">\n<h2>Model errors</h2>\n")
        .append("<table>\n<tr><th>where</th><th>error</th></tr>\n");
    for (CheckReports.Problem problem : problems) {
      out.append("<tr class=\"error\"><td><code>")
          .append(esc(problem.file() + ":" + problem.line() + ":" + problem.column()))
          .append("</code></td><td>")
          .append(esc(problem.message()))
          .append("</td></tr>\n");
    }
    out.append("</table>\n</section>\n");
  }

  /** The data of the interactive timelines, and the script that draws them. */
  private static void timelineScript(
      StringBuilder out, AnalysisReport report, Map<String, TimelineData.NodeRun> measured) {
    if (report == null || report.nodes().isEmpty()) {
      return;
    }
    out.append("<script type=\"application/json\" id=\"kairos-timeline-data\">")
        .append(TimelineData.json(report.nodes(), measured))
        .append("</script>\n<script>\n")
        .append(resource("timeline.js"))
        .append("</script>\n");
  }

  /** A file of the page kept beside this class (report/NAME), read once per page. */
  private static String resource(String name) {
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
      StringBuilder out, int index, NodeReport node, TimelineData.NodeRun run) {
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
    utilization(out, node);
    out.append("<h3>Release table</h3>\n")
        .append("<div class=\"kt-view\" data-node-index=\"")
        .append(index)
        .append("\"></div>\n<div class=\"static-timeline\">\n");
    if (node.multicore()) {
      // Partitioned: each core plays its own table.
      for (NodeReport.CoreReport core : node.cores()) {
        out.append("<h4>core ")
            .append(core.core())
            .append(
                core.instances().isEmpty()
                    ? " (idle)"
                    : ": " + esc(String.join(", ", core.instances())))
            .append("</h4>\n");
        timeline(
            out,
            index + "-" + core.core(),
            node,
            core.releaseTable(),
            node.tasks().stream()
                .filter(t -> t.kind() == TaskReport.Kind.SVM && t.core() == core.core())
                .toList());
      }
    } else {
      timeline(
          out,
          String.valueOf(index),
          node,
          node.releaseTable(),
          node.tasks().stream().filter(t -> t.kind() == TaskReport.Kind.SVM).toList());
    }
    out.append("</div>\n");
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

  /**
   * A stacked bar of each method's share, with the strategy's utilization bound (Liu-Layland for
   * fixed priorities, 100% under EDF) and 100 % marked.
   */
  private static void utilization(StringBuilder out, NodeReport node) {
    final String boundName = dev.kairos.reports.Figures.utilizationBound(node.node().strategy());
    if (!node.multicore()) {
      utilization(out, "", node.utilization(), boundName, node.liuLaylandBound(), node.tasks());
      return;
    }
    // Partitioned: a bar per core, each a processor of its own.
    for (NodeReport.CoreReport core : node.cores()) {
      utilization(
          out,
          "core " + core.core() + ": ",
          core.utilization(),
          boundName,
          core.liuLaylandBound(),
          node.tasks().stream().filter(t -> t.core() == core.core()).toList());
    }
  }

  private static void utilization(
      StringBuilder out,
      String label,
      double load,
      String boundName,
      double liuLayland,
      List<TaskReport> tasks) {
    out.append("<p class=\"util-text\">")
        .append(esc(label))
        .append("utilization <b>")
        .append(percent(load))
        .append("</b> (")
        .append(esc(boundName))
        .append(" ")
        .append(percent(liuLayland))
        .append(")</p>\n");
    final double scale = Math.max(1.0, load);
    final double full = BAR_WIDTH / scale;
    out.append("<svg class=\"utilization\" width=\"")
        .append(BAR_WIDTH + 90)
        .append("\" height=\"40\" role=\"img\" aria-label=\"utilization ")
        .append(percent(load))
        .append(" of 100%, ")
        .append(esc(boundName))
        .append(" ")
        .append(percent(liuLayland))
        .append("\">\n<rect x=\"0\" y=\"4\" width=\"")
        .append(px(full))
        .append("\" height=\"18\" fill=\"#eef1f5\" stroke=\"#c3cad5\"/>\n");
    double x = 0;
    int drawn = 0;
    double rest = 0;
    int others = 0;
    for (TaskReport task : tasks) {
      if (task.periodNs() <= 0) {
        continue;
      }
      if (drawn == MAX_BAR_SEGMENTS) {
        rest += task.utilization();
        others++;
        continue;
      }
      final double width = task.utilization() * full;
      out.append("<rect class=\"share\" x=\"")
          .append(px(x))
          .append("\" y=\"4\" width=\"")
          .append(px(width))
          .append("\" height=\"18\" fill=\"")
          .append(task.criticality() == Criticality.HARD ? "#1f4e8c" : "#8a63b8")
          .append(task.kind() == TaskReport.Kind.SVM ? "\" fill-opacity=\"0.55" : "")
          .append("\" stroke=\"#fff\" stroke-width=\"0.5\"><title>")
          .append(esc(task.name()))
          .append(": ")
          .append(percent(task.utilization()))
          .append("</title></rect>\n");
      x += width;
      drawn++;
    }
    if (others > 0) {
      out.append("<rect class=\"share\" x=\"")
          .append(px(x))
          .append("\" y=\"4\" width=\"")
          .append(px(rest * full))
          .append("\" height=\"18\" fill=\"#9aa5b4\"><title>")
          .append(others)
          .append(" more methods: ")
          .append(percent(rest))
          .append("</title></rect>\n");
    }
    final double bound = liuLayland * full;
    out.append("<line x1=\"")
        .append(px(bound))
        .append("\" y1=\"1\" x2=\"")
        .append(px(bound))
        .append("\" y2=\"25\" stroke=\"#c77700\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>\n")
        .append("<text x=\"")
        .append(px(bound))
        .append("\" y=\"36\" text-anchor=\"middle\" class=\"sub\">")
        .append(boundName.startsWith("EDF") ? "EDF " : "LL ")
        .append(percent(liuLayland))
        .append("</text>\n<line x1=\"")
        .append(px(full))
        .append("\" y1=\"1\" x2=\"")
        .append(px(full))
        .append("\" y2=\"25\" stroke=\"#1d2430\" stroke-width=\"1.5\"/>\n<text x=\"")
        .append(BAR_WIDTH + 6)
        .append("\" y=\"18\">")
        .append(load > 1.0 ? "overloaded" : "100%")
        .append("</text>\n</svg>\n");
  }

  private static void timeline(
      StringBuilder out,
      String id,
      NodeReport node,
      ReleaseTableAnalysis.Table table,
      List<TaskReport> services) {
    if (table.trace().isEmpty()) {
      out.append("<p class=\"note\">No spontaneous methods: nothing is released at fixed times on")
          .append(" this node.</p>\n");
      services(out, services);
      return;
    }
    final Trace trace = table.trace().get();
    out.append("<p class=\"view\">showing <b>0 .. ")
        .append(readable(trace.endNs()))
        .append("</b>: ")
        .append(esc(extent(table, trace)))
        .append("</p>\n");
    int busiest = 1;
    for (TracedSpm spm : trace.spms()) {
      busiest = Math.max(busiest, spm.activations().size());
    }
    final int plot =
        Math.max(MIN_PLOT_WIDTH, Math.min(MAX_PLOT_WIDTH, busiest * PX_PER_ACTIVATION));
    final Axis axis = new Axis(trace.endNs(), plot);
    final int rows = trace.spms().size();
    final int height = TOP + rows * ROW_HEIGHT + AXIS_HEIGHT;
    final int width = LABEL_WIDTH + plot + RIGHT_PAD;
    final String hatch = "miss-" + id;
    out.append(
            "<div class=\"scroll\">\n<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\"")
        .append(" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" role=\"img\" aria-label=\"release table of node ")
        .append(esc(node.node().name()))
        .append(" from 0 to ")
        .append(readable(trace.endNs()))
        .append("\">\n<defs><pattern id=\"")
        .append(hatch)
        .append("\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"")
        .append(
            " patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#d62828\"/>")
        .append("<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#fff\" stroke-width=\"2.5\"/>")
        .append("</pattern></defs>\n");
    // Row stripes and labels, then the time grid, then the activations on top.
    for (int r = 0; r < rows; r++) {
      final TracedSpm spm = trace.spms().get(r);
      final int y = TOP + r * ROW_HEIGHT;
      out.append("<rect x=\"0\" y=\"")
          .append(y)
          .append("\" width=\"")
          .append(width)
          .append("\" height=\"")
          .append(ROW_HEIGHT)
          .append("\" fill=\"")
          .append(r % 2 == 0 ? "#f7f9fb" : "#ffffff")
          .append("\"/>\n<text x=\"8\" y=\"")
          .append(y + 14)
          .append("\">")
          .append(esc(shorten(spm.instance() + "." + spm.method(), 28)))
          .append("<title>")
          .append(esc(spm.instance() + "." + spm.method()))
          .append("</title></text>\n<text class=\"sub\" x=\"8\" y=\"")
          .append(y + 27)
          .append("\">")
          .append(esc(rowSubtitle(node, spm)))
          .append("</text>\n");
    }
    final int axisY = TOP + rows * ROW_HEIGHT;
    for (long tick : axis.ticks()) {
      final String x = px(axis.x(tick));
      out.append("<line class=\"grid\" x1=\"")
          .append(x)
          .append("\" y1=\"")
          .append(TOP)
          .append("\" x2=\"")
          .append(x)
          .append("\" y2=\"")
          .append(axisY + 5)
          .append("\" stroke=\"#d8dde5\" stroke-width=\"1\"/>\n<text x=\"")
          .append(x)
          .append("\" y=\"")
          .append(axisY + 18)
          .append("\" text-anchor=\"middle\">")
          .append(axis.label(tick))
          .append("</text>\n");
    }
    out.append("<line x1=\"")
        .append(LABEL_WIDTH)
        .append("\" y1=\"")
        .append(axisY)
        .append("\" x2=\"")
        .append(px(axis.x(trace.endNs())))
        .append("\" y2=\"")
        .append(axisY)
        .append("\" stroke=\"#1d2430\" stroke-width=\"1\"/>\n");
    for (int r = 0; r < rows; r++) {
      final TracedSpm spm = trace.spms().get(r);
      for (int a = 0; a < spm.activations().size(); a++) {
        activation(out, axis, TOP + r * ROW_HEIGHT, spm, a, spm.activations().get(a), trace, hatch);
      }
    }
    out.append("</svg>\n</div>\n")
        .append("<p class=\"legend\"><span><i class=\"swatch sw-window\"></i>start window</span>")
        .append("<span><i class=\"swatch sw-hard\"></i>hard execution</span>")
        .append("<span><i class=\"swatch sw-soft\"></i>soft execution</span>")
        .append("<span><i class=\"swatch sw-miss\"></i>missed deadline</span>")
        .append("<span>&#8593; release</span><span>&#8595; deadline</span>")
        .append("<span style=\"color:#d62828\">&#10005; start window missed</span></p>\n");
    if (trace.untracedSpms() > 0) {
      out.append("<p class=\"note\">")
          .append(trace.untracedSpms())
          .append(" more SpMs are played in the table but not drawn: the timeline shows the ")
          .append(trace.spms().size())
          .append(" of highest priority.</p>\n");
    }
    services(out, services);
  }

  /** What the view covers, in words. */
  private static String extent(ReleaseTableAnalysis.Table table, Trace trace) {
    final long hyperperiod = table.hyperperiodNs();
    return switch (trace.extent()) {
      case HYPERPERIOD ->
          trace.endNs() == hyperperiod
              ? "one hyperperiod (" + readable(hyperperiod) + ")"
              : "the first releases up to "
                  + readable(trace.endNs() - hyperperiod)
                  + ", then one whole hyperperiod ("
                  + readable(hyperperiod)
                  + ")";
      case ALL_ACTIVATIONS -> "every activation of the table (" + trace.activations() + ")";
      case BEGINNING ->
          "the beginning of "
              + (hyperperiod > 1
                  ? "the hyperperiod of " + readable(hyperperiod)
                  : hyperperiod == 0 ? "a hyperperiod beyond 64 bits" : "the table")
              + ", its first "
              + trace.activations()
              + " activations (a longer view would not be readable)";
    };
  }

  private static String rowSubtitle(NodeReport node, TracedSpm spm) {
    final String criticality = spm.criticality().name().toLowerCase(Locale.ROOT);
    for (TaskReport task : node.tasks()) {
      if (task.instance().equals(spm.instance()) && task.method().equals(spm.method())) {
        return criticality
            + ", band "
            + task.band()
            + (task.periodNs() > 0 ? ", every " + readable(task.periodNs()) : ", one-shot");
      }
    }
    return criticality;
  }

  private static void services(StringBuilder out, List<TaskReport> services) {
    if (services.isEmpty()) {
      return;
    }
    out.append("<p class=\"note\">Service methods have no fixed releases and are not drawn: ");
    for (int i = 0; i < services.size(); i++) {
      out.append(i == 0 ? "" : ", ").append("<code>").append(esc(services.get(i).name()));
      out.append("</code>");
    }
    out.append(" (see the task table and the BCC windows).</p>\n");
  }

  private static void activation(
      StringBuilder out,
      Axis axis,
      int rowY,
      TracedSpm spm,
      int number,
      Activation activation,
      Trace trace,
      String hatch) {
    final String name = spm.instance() + "." + spm.method();
    final int top = rowY + 4;
    final int bottom = rowY + ROW_HEIGHT - 4;
    out.append("<g class=\"activation ")
        .append(activation.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-'))
        .append("\"><title>")
        .append(esc(describe(name, number, activation)))
        .append("</title>");
    // The start window: where the engine may start the activation.
    final double open = axis.x(activation.windowOpenNs());
    final double close = axis.x(Math.min(activation.windowCloseNs(), trace.endNs()));
    out.append("<rect class=\"window\" x=\"")
        .append(px(open))
        .append("\" y=\"")
        .append(top)
        .append("\" width=\"")
        .append(px(Math.max(1.0, close - open)))
        .append("\" height=\"")
        .append(bottom - top)
        .append("\" fill=\"#cfe8cf\"/>");
    final boolean missed = activation.outcome() == Outcome.DEADLINE_MISSED;
    final String fill =
        missed
            ? "url(#" + hatch + ")"
            : spm.criticality() == Criticality.HARD ? "#1f4e8c" : "#8a63b8";
    for (Execution slice : activation.executions()) {
      final double start = axis.x(slice.startNs());
      out.append("<rect class=\"exec ")
          .append(spm.criticality().name().toLowerCase(Locale.ROOT))
          .append(missed ? " missed" : "")
          .append("\" x=\"")
          .append(px(start))
          .append("\" y=\"")
          .append(top + 7)
          .append("\" width=\"")
          .append(px(Math.max(1.5, axis.x(slice.endNs()) - start)))
          .append("\" height=\"")
          .append(bottom - top - 14)
          .append("\" fill=\"")
          .append(fill)
          .append(missed ? "\" stroke=\"#a11212\" stroke-width=\"0.8" : "")
          .append("\"/>");
    }
    final double release = axis.x(activation.releaseNs());
    out.append("<path class=\"release\" d=\"M")
        .append(px(release))
        .append(',')
        .append(bottom)
        .append("V")
        .append(top)
        .append("M")
        .append(px(release - 3))
        .append(',')
        .append(top + 4)
        .append("L")
        .append(px(release))
        .append(',')
        .append(top)
        .append("L")
        .append(px(release + 3))
        .append(',')
        .append(top + 4)
        .append("\" stroke=\"#1d2430\" stroke-width=\"1.2\" fill=\"none\"/>");
    if (activation.deadlineNs() <= trace.endNs()) {
      final double deadline = axis.x(activation.deadlineNs());
      out.append("<path class=\"deadline\" d=\"M")
          .append(px(deadline))
          .append(',')
          .append(top)
          .append("V")
          .append(bottom)
          .append("M")
          .append(px(deadline - 3))
          .append(',')
          .append(bottom - 4)
          .append("L")
          .append(px(deadline))
          .append(',')
          .append(bottom)
          .append("L")
          .append(px(deadline + 3))
          .append(',')
          .append(bottom - 4)
          .append("\" stroke=\"")
          .append(missed ? "#d62828" : "#7a1f1f")
          .append("\" stroke-width=\"1.2\" fill=\"none\"/>");
    }
    if (activation.outcome() == Outcome.WINDOW_MISSED) {
      final double x = axis.x(Math.min(activation.windowCloseNs(), trace.endNs()));
      final int middle = (top + bottom) / 2;
      out.append("<path class=\"window-miss\" d=\"M")
          .append(px(x - 4))
          .append(',')
          .append(middle - 4)
          .append("L")
          .append(px(x + 4))
          .append(',')
          .append(middle + 4)
          .append("M")
          .append(px(x - 4))
          .append(',')
          .append(middle + 4)
          .append("L")
          .append(px(x + 4))
          .append(',')
          .append(middle - 4)
          .append("\" stroke=\"#d62828\" stroke-width=\"2\" fill=\"none\"/>");
    }
    out.append("</g>\n");
  }

  /** The tooltip of an activation. */
  private static String describe(String name, int number, Activation a) {
    final StringBuilder text = new StringBuilder();
    text.append(name)
        .append(" #")
        .append(number + 1)
        .append("\nreleased at ")
        .append(readable(a.releaseNs()))
        .append("\nstart window ")
        .append(readable(a.windowOpenNs()))
        .append(" .. ")
        .append(readable(a.windowCloseNs()));
    if (a.startNs() >= 0) {
      text.append("\nstarted at ").append(readable(a.startNs()));
    }
    if (a.finishNs() >= 0) {
      text.append("\nfinished at ").append(readable(a.finishNs()));
    }
    if (a.executions().size() > 1) {
      text.append(" (preempted ").append(a.executions().size() - 1).append(" time(s))");
    }
    text.append("\ndeadline ").append(readable(a.deadlineNs())).append(": ");
    text.append(
        switch (a.outcome()) {
          case MET -> "met";
          case WINDOW_MISSED -> "START WINDOW MISSED (not started)";
          case DEADLINE_MISSED -> "DEADLINE MISSED";
          case OPEN -> "decided after the end of the view";
        });
    return text.toString();
  }

  private static void tasks(StringBuilder out, NodeReport node) {
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
  private static void measured(StringBuilder out, NodeReport node, TimelineData.NodeRun run) {
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
        .append(" window to the finish.</p>\n")
        .append("<table class=\"measured\">\n<tr><th>SpM</th><th class=\"num\">core</th>")
        .append("<th class=\"num\">activations</th><th class=\"num\">ran</th>")
        .append("<th class=\"num\">measured max response</th>")
        .append("<th class=\"num\">analysed bound</th><th class=\"num\">deadline</th>")
        .append("<th class=\"num\">window misses</th><th class=\"num\">deadline misses</th>")
        .append("<th>verdict</th></tr>\n");
    for (TimelineData.Comparison row : TimelineData.compare(node, run.activations())) {
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
          .append(row.maxResponseNs() >= 0 ? readable(row.maxResponseNs()) : "-")
          .append("</td><td class=\"num bound\">")
          .append(row.boundNs() >= 0 ? readable(row.boundNs()) : "&gt; deadline")
          .append("</td><td class=\"num\">")
          .append(readable(row.deadlineNs()))
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

  private static void bcc(StringBuilder out, NodeReport node) {
    out.append("<h3>BCC admission</h3>\n");
    if (node.admissions().isEmpty()) {
      out.append("<p class=\"note\">No service methods on this node.</p>\n");
      return;
    }
    out.append("<table class=\"bcc\">\n<tr><th>service method</th>")
        .append("<th class=\"num\">slot</th><th class=\"num\">longest wait</th>")
        .append("<th class=\"num\">response</th><th class=\"num\">GCT</th>")
        .append("<th>verdict</th></tr>\n");
    for (NodeReport.ServiceAdmission bcc : node.admissions()) {
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

  /** The time axis of a timeline: nanoseconds to x, and ticks at 1, 2, 2.5 or 5 x 10^k. */
  private static final class Axis {
    private final long endNs;
    private final int plot;
    private final long step;
    private final long unit;
    private final String unitName;

    Axis(long endNs, int plot) {
      this.endNs = Math.max(1, endNs);
      this.plot = plot;
      final double wanted = (double) this.endNs * PX_PER_TICK / plot;
      long chosen = (long) Math.min(Long.MAX_VALUE / 2, Math.ceil(wanted));
      search:
      for (long decade = 1; decade <= Long.MAX_VALUE / 100; decade *= 10) {
        for (long tenths : new long[] {10, 20, 25, 50}) {
          if (decade * tenths % 10 == 0 && decade * tenths / 10 >= wanted) {
            chosen = decade * tenths / 10;
            break search;
          }
        }
      }
      this.step = chosen;
      if (this.endNs >= 10_000_000_000L) {
        unit = 1_000_000_000L;
        unitName = "s";
      } else if (this.endNs >= 10_000_000L) {
        unit = 1_000_000L;
        unitName = "ms";
      } else if (this.endNs >= 10_000L) {
        unit = 1_000L;
        unitName = "us";
      } else {
        unit = 1;
        unitName = "ns";
      }
    }

    double x(long ns) {
      return LABEL_WIDTH + (double) ns * plot / endNs;
    }

    List<Long> ticks() {
      final List<Long> ticks = new java.util.ArrayList<>();
      for (long t = 0; t <= endNs && ticks.size() < 200; t += step) {
        ticks.add(t);
        if (t > Long.MAX_VALUE - step) {
          break;
        }
      }
      return ticks;
    }

    String label(long ns) {
      return BigDecimal.valueOf(ns)
              .divide(BigDecimal.valueOf(unit))
              .stripTrailingZeros()
              .toPlainString()
          + " "
          + unitName;
    }
  }

  /** A duration for people: the largest unit with a whole part, at most three decimals. */
  static String readable(long ns) {
    final long[] scales = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
    final String[] units = {"h", "min", "s", "ms", "us"};
    for (int i = 0; i < scales.length; i++) {
      if (Math.abs(ns) >= scales[i]) {
        return BigDecimal.valueOf(ns)
                .divide(BigDecimal.valueOf(scales[i]), 3, RoundingMode.HALF_UP)
                .stripTrailingZeros()
                .toPlainString()
            + " "
            + units[i];
      }
    }
    return ns + " ns";
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
  }

  private static String px(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static String shorten(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "\u2026";
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
