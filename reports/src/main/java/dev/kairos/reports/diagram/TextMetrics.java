package dev.kairos.reports.diagram;

import java.util.List;

/**
 * How much room the diagram's text takes, shared by the layout (which sizes boxes and labels) and
 * the SVG writer (which sets the fonts). Widths are estimates for DejaVu Sans, the report's first
 * font, on the generous side so that text stays inside its box in the usual sans-serif fonts.
 */
final class TextMetrics {
  private TextMetrics() {}

  static final double FONT_SIZE = 12;
  static final double LINE_HEIGHT = 15;
  static final double LABEL_FONT_SIZE = 10.5;
  static final double LABEL_LINE_HEIGHT = 13;

  /** Space between a box's border and its text or its children. */
  static final double PAD = 8;

  private static final double CHAR_WIDTH = 7.4;
  private static final double BOLD_CHAR_WIDTH = 8.4;
  private static final double LABEL_CHAR_WIDTH = 6.3;

  /** Width of a box's text block: a bold title over plain lines. */
  static double textWidth(String title, List<String> details) {
    double width = title.length() * BOLD_CHAR_WIDTH;
    for (String line : details) {
      width = Math.max(width, line.length() * CHAR_WIDTH);
    }
    return Math.ceil(width);
  }

  /** Height of a box's text block, from the box's top edge to below its last line. */
  static double headerHeight(int lines) {
    return PAD + lines * LINE_HEIGHT + PAD / 2;
  }

  static double labelWidth(List<String> lines) {
    double width = 0;
    for (String line : lines) {
      width = Math.max(width, line.length() * LABEL_CHAR_WIDTH);
    }
    return Math.ceil(width) + 4;
  }

  static double labelHeight(List<String> lines) {
    return lines.size() * LABEL_LINE_HEIGHT + 2;
  }
}
