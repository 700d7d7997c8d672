package dev.kairos.reports;

import static dev.kairos.reports.HtmlReport.esc;
import static dev.kairos.reports.HtmlReport.px;
import static dev.kairos.reports.HtmlReport.shorten;

import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.timing.NodeReport;
import dev.kairos.timing.ReleaseTableAnalysis;
import dev.kairos.timing.ReleaseTableAnalysis.Activation;
import dev.kairos.timing.ReleaseTableAnalysis.Execution;
import dev.kairos.timing.ReleaseTableAnalysis.Outcome;
import dev.kairos.timing.ReleaseTableAnalysis.Trace;
import dev.kairos.timing.ReleaseTableAnalysis.TracedSpm;
import dev.kairos.timing.TaskReport;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * The release table drawn as SVG on the report page: what the page shows without a script, and
 * where the interactive timeline (report/timeline.js) takes over. One row per SpM, with each
 * activation's release, start window, deadline and analysed run, and the time axis.
 */
final class StaticTimeline {
  private StaticTimeline() {}

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

  static void draw(
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
        .append(Figures.duration(trace.endNs()))
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
        .append(Figures.duration(trace.endNs()))
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
              ? "one hyperperiod (" + Figures.duration(hyperperiod) + ")"
              : "the first releases up to "
                  + Figures.duration(trace.endNs() - hyperperiod)
                  + ", then one whole hyperperiod ("
                  + Figures.duration(hyperperiod)
                  + ")";
      case ALL_ACTIVATIONS -> "every activation of the table (" + trace.activations() + ")";
      case BEGINNING ->
          "the beginning of "
              + (table.grid().cyclic()
                  ? "the hyperperiod of " + Figures.duration(hyperperiod)
                  : table.grid().beyond64Bits() ? "a hyperperiod beyond 64 bits" : "the table")
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
            + (task.periodNs() > 0 ? ", every " + Figures.duration(task.periodNs()) : ", one-shot");
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
        .append(Figures.duration(a.releaseNs()))
        .append("\nstart window ")
        .append(Figures.duration(a.windowOpenNs()))
        .append(" .. ")
        .append(Figures.duration(a.windowCloseNs()));
    if (a.startNs() >= 0) {
      text.append("\nstarted at ").append(Figures.duration(a.startNs()));
    }
    if (a.finishNs() >= 0) {
      text.append("\nfinished at ").append(Figures.duration(a.finishNs()));
    }
    if (a.executions().size() > 1) {
      text.append(" (preempted ").append(a.executions().size() - 1).append(" time(s))");
    }
    text.append("\ndeadline ").append(Figures.duration(a.deadlineNs())).append(": ");
    text.append(
        switch (a.outcome()) {
          case MET -> "met";
          case WINDOW_MISSED -> "START WINDOW MISSED (not started)";
          case DEADLINE_MISSED -> "DEADLINE MISSED";
          case OPEN -> "decided after the end of the view";
        });
    return text.toString();
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
}
