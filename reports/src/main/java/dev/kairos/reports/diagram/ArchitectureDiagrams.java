package dev.kairos.reports.diagram;

import dev.kairos.ir.SystemModel;
import dev.kairos.timing.TimingPlan;

/** The architecture diagram of a system in one call: model, layout, drawing. */
public final class ArchitectureDiagrams {
  private ArchitectureDiagrams() {}

  /**
   * The SVG document of a system's architecture.
   *
   * @param report the system's analysis, or null: then the diagram shows no verdicts or round trips
   */
  public static String svg(SystemModel system, TimingPlan report) {
    final ArchitectureDiagram diagram = ArchitectureModel.of(system, report);
    return ArchitectureSvg.render(
        DiagramLayout.layout(diagram), "architecture of " + system.modelName());
  }

  /**
   * The diagram as a section of the `kairos check --html` page (the page's styles leave it alone:
   * the drawing carries its own).
   */
  public static String htmlSection(String svg) {
    return "<section class=\"architecture\" id=\"architecture\">\n<h2>Architecture</h2>\n"
        + "<p class=\"note\">nodes with their TMOs; arrows are gates to the service methods they"
        + " call (result-return deadline, worst round trip); dashed: channels; grey: networks."
        + " Hover for details.</p>\n<div class=\"scroll\">\n"
        + svg
        + "</div>\n</section>\n";
  }
}
