package dev.kairos.reports.diagram;

import dev.kairos.reports.diagram.ArchitectureDiagram.Verdict;
import dev.kairos.reports.diagram.DiagramLayout.PlacedBox;
import dev.kairos.reports.diagram.DiagramLayout.PlacedLink;
import dev.kairos.reports.diagram.DiagramLayout.Point;
import java.util.Locale;

/**
 * Draws a laid-out architecture diagram as one standalone SVG document (inline style, no script,
 * nothing loaded from elsewhere), fit to stand alone as a file or inside an HTML page. Every
 * element of the model gets an id (`arch-` and the diagram's id) and a `<title>` tooltip; model
 * text is escaped; the same placement gives the same bytes.
 */
public final class ArchitectureSvg {
  private ArchitectureSvg() {}

  /** The prefix of every id in the drawing, so that it cannot clash with a page around it. */
  public static final String ID_PREFIX = "arch-";

  private static final String STYLE =
      """
      .kairos-architecture text { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
        font-size: 12px; fill: #1d2430; }
      .kairos-architecture text.title { font-weight: bold; }
      .kairos-architecture text.detail { fill: #4a5568; }
      .kairos-architecture .box > rect { stroke-width: 1.2; }
      .kairos-architecture .node > rect { fill: #eef2f7; stroke: #5b6b82; }
      .kairos-architecture .tmo > rect { fill: #ffffff; stroke: #1f4e8c; }
      .kairos-architecture .service > rect { fill: #e3ecf9; stroke: #1f4e8c; }
      .kairos-architecture .channel > rect { fill: #fff4dc; stroke: #c77700; }
      .kairos-architecture .network > rect { fill: #f1f1f1; stroke: #6b7585; stroke-dasharray: 5 3; }
      .kairos-architecture .box.fails > rect { stroke: #a11212; stroke-width: 2; }
      .kairos-architecture .link path { fill: none; stroke-width: 1.4; }
      .kairos-architecture .gate path { stroke: #1f4e8c; }
      .kairos-architecture .gate.fails path { stroke: #a11212; stroke-width: 2; }
      .kairos-architecture .channel-member path { stroke: #c77700; stroke-dasharray: 4 3; }
      .kairos-architecture .network-member path { stroke: #6b7585; stroke-width: 2; }
      .kairos-architecture .label rect { fill: #ffffff; fill-opacity: 0.9; stroke: none; }
      .kairos-architecture .label text { font-size: 10.5px; fill: #1d2430; }
      .kairos-architecture .gate.fails .label text { fill: #a11212; font-weight: bold; }
      .kairos-architecture .marker-gate { fill: #1f4e8c; }
      .kairos-architecture .marker-fails { fill: #a11212; }""";

  /**
   * @param title what the drawing shows, for its accessible name and its tooltip
   */
  public static String render(DiagramLayout.Placement placement, String title) {
    final SvgWriter svg = new SvgWriter();
    svg.open(
        "svg",
        "xmlns",
        "http://www.w3.org/2000/svg",
        "class",
        "kairos-architecture",
        "id",
        ID_PREFIX + "diagram",
        "width",
        SvgWriter.num(placement.width()),
        "height",
        SvgWriter.num(placement.height()),
        "viewBox",
        "0 0 " + SvgWriter.num(placement.width()) + " " + SvgWriter.num(placement.height()),
        "role",
        "img",
        "aria-label",
        title);
    svg.text("title", title);
    svg.open("style").raw(STYLE).close("style");
    svg.open("defs");
    arrow(svg, "arrow", "marker-gate");
    arrow(svg, "arrow-fails", "marker-fails");
    svg.close("defs");

    svg.open("g", "class", "boxes");
    for (PlacedBox placed : placement.boxes()) {
      box(svg, placed);
    }
    svg.close("g");
    svg.open("g", "class", "links");
    for (PlacedLink placed : placement.links()) {
      link(svg, placed);
    }
    svg.close("g");
    svg.close("svg");
    return svg.finish();
  }

  private static void arrow(SvgWriter svg, String id, String cssClass) {
    svg.open(
            "marker",
            "id",
            ID_PREFIX + id,
            "viewBox",
            "0 0 10 10",
            "refX",
            "10",
            "refY",
            "5",
            "markerWidth",
            "8",
            "markerHeight",
            "8",
            "orient",
            "auto-start-reverse",
            "markerUnits",
            "userSpaceOnUse")
        .empty("path", "class", cssClass, "d", "M 0 0 L 10 5 L 0 10 z")
        .close("marker");
  }

  private static void box(SvgWriter svg, PlacedBox placed) {
    final var box = placed.box();
    final String kind = box.kind().name().toLowerCase(Locale.ROOT);
    svg.open(
        "g",
        "class",
        "box " + kind + verdictClass(box.verdict()),
        "id",
        ID_PREFIX + box.id(),
        "data-depth",
        Integer.toString(placed.depth()));
    svg.text("title", box.tooltip());
    svg.empty(
        "rect",
        "x",
        SvgWriter.num(placed.x()),
        "y",
        SvgWriter.num(placed.y()),
        "width",
        SvgWriter.num(placed.width()),
        "height",
        SvgWriter.num(placed.height()),
        "rx",
        box.kind() == ArchitectureDiagram.BoxKind.CHANNEL ? "14" : "4");
    final double x = placed.x() + TextMetrics.PAD;
    double y = placed.y() + TextMetrics.PAD + TextMetrics.FONT_SIZE;
    svg.text("text", box.title(), "class", "title", "x", SvgWriter.num(x), "y", SvgWriter.num(y));
    for (String detail : box.details()) {
      y += TextMetrics.LINE_HEIGHT;
      svg.text("text", detail, "class", "detail", "x", SvgWriter.num(x), "y", SvgWriter.num(y));
    }
    svg.close("g");
  }

  private static void link(SvgWriter svg, PlacedLink placed) {
    final var link = placed.link();
    final boolean gate = link.kind() == ArchitectureDiagram.LinkKind.GATE;
    final String kind =
        switch (link.kind()) {
          case GATE -> "gate";
          case CHANNEL -> "channel-member";
          case NETWORK -> "network-member";
        };
    svg.open(
        "g",
        "class",
        "link " + kind + verdictClass(link.verdict()),
        "id",
        ID_PREFIX + link.id(),
        "data-source",
        ID_PREFIX + link.source(),
        "data-target",
        ID_PREFIX + link.target());
    svg.text("title", link.tooltip());
    final StringBuilder d = new StringBuilder();
    for (Point point : placed.points()) {
      d.append(d.length() == 0 ? "M " : " L ")
          .append(SvgWriter.num(point.x()))
          .append(' ')
          .append(SvgWriter.num(point.y()));
    }
    final String marker =
        link.verdict() == Verdict.FAILS
            ? "url(#" + ID_PREFIX + "arrow-fails)"
            : "url(#" + ID_PREFIX + "arrow)";
    svg.empty("path", "d", d.toString(), "marker-end", gate ? marker : null);
    if (placed.labelled()) {
      svg.open("g", "class", "label");
      svg.empty(
          "rect",
          "x",
          SvgWriter.num(placed.labelX()),
          "y",
          SvgWriter.num(placed.labelY()),
          "width",
          SvgWriter.num(placed.labelWidth()),
          "height",
          SvgWriter.num(placed.labelHeight()));
      double y = placed.labelY() + TextMetrics.LABEL_FONT_SIZE;
      for (String line : link.label()) {
        svg.text("text", line, "x", SvgWriter.num(placed.labelX() + 2), "y", SvgWriter.num(y));
        y += TextMetrics.LABEL_LINE_HEIGHT;
      }
      svg.close("g");
    }
    svg.close("g");
  }

  private static String verdictClass(Verdict verdict) {
    return switch (verdict) {
      case UNKNOWN -> "";
      case HOLDS -> " holds";
      case FAILS -> " fails";
    };
  }
}
