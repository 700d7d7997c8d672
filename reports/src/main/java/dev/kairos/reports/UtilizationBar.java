package dev.kairos.reports;

import static dev.kairos.reports.HtmlReport.esc;
import static dev.kairos.reports.HtmlReport.percent;
import static dev.kairos.reports.HtmlReport.px;

import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import java.util.List;

/**
 * A node's utilization on the report page: a stacked bar of each method's share, with the
 * strategy's utilization bound and 100% marked; a bar per core on a partitioned node.
 */
final class UtilizationBar {
  private UtilizationBar() {}

  /** Methods drawn as their own segment of the utilization bar; the rest share one. */
  private static final int MAX_BAR_SEGMENTS = 48;

  private static final int BAR_WIDTH = 640;

  /**
   * A stacked bar of each method's share, with the strategy's utilization bound (Liu-Layland for
   * fixed priorities, 100% under EDF) and 100 % marked.
   */
  static void draw(StringBuilder out, NodePlan node) {
    final String boundName = dev.kairos.reports.Figures.utilizationBound(node.node().strategy());
    if (!node.multicore()) {
      utilization(out, "", node.utilization(), boundName, node.liuLaylandBound(), node.tasks());
      return;
    }
    // Partitioned: a bar per core, each a processor of its own.
    for (NodePlan.CorePlan core : node.cores()) {
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
}
