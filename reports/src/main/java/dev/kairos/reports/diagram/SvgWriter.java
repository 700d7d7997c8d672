package dev.kairos.reports.diagram;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Writes indented XML for SVG: elements with attributes in the order given, text and attribute
 * values escaped, numbers in one fixed notation (at most two decimals, no exponent), so the same
 * drawing always gives the same bytes. Each open element must be closed by name, checked.
 */
final class SvgWriter {
  private final StringBuilder out = new StringBuilder(16_384);
  private final java.util.ArrayDeque<String> open = new java.util.ArrayDeque<>();

  /** An element with children: `attributes` are name, value pairs. */
  SvgWriter open(String tag, String... attributes) {
    start(tag, attributes);
    out.append(">\n");
    open.push(tag);
    return this;
  }

  SvgWriter close(String tag) {
    final String expected = open.pop();
    if (!expected.equals(tag)) {
      throw new IllegalStateException("closing <" + tag + "> inside <" + expected + ">");
    }
    indent();
    out.append("</").append(tag).append(">\n");
    return this;
  }

  /** An element without content. */
  SvgWriter empty(String tag, String... attributes) {
    start(tag, attributes);
    out.append("/>\n");
    return this;
  }

  /** An element holding only text. */
  SvgWriter text(String tag, String text, String... attributes) {
    start(tag, attributes);
    out.append('>').append(escape(text)).append("</").append(tag).append(">\n");
    return this;
  }

  /** Text kept as written, one line per line (a style sheet). */
  SvgWriter raw(String lines) {
    for (String line : lines.split("\n")) {
      indent();
      out.append(line).append('\n');
    }
    return this;
  }

  String finish() {
    if (!open.isEmpty()) {
      throw new IllegalStateException("<" + open.peek() + "> is not closed");
    }
    return out.toString();
  }

  private void start(String tag, String... attributes) {
    if (attributes.length % 2 != 0) {
      throw new IllegalArgumentException("attributes come as name, value pairs");
    }
    indent();
    out.append('<').append(tag);
    for (int i = 0; i < attributes.length; i += 2) {
      if (attributes[i + 1] == null) {
        continue;
      }
      out.append(' ').append(attributes[i]).append("=\"").append(escape(attributes[i + 1]));
      out.append('"');
    }
  }

  private void indent() {
    out.append("  ".repeat(open.size()));
  }

  /** A coordinate or length: 12, 12.5, 12.25 (never 1.2E1, never locale-dependent). */
  static String num(double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("not a finite number: " + value);
    }
    final String text =
        BigDecimal.valueOf(value)
            .setScale(2, RoundingMode.HALF_UP)
            .stripTrailingZeros()
            .toPlainString();
    return text.equals("-0") ? "0" : text;
  }

  static String escape(String text) {
    final StringBuilder escaped = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      switch (c) {
        case '&' -> escaped.append("&amp;");
        case '<' -> escaped.append("&lt;");
        case '>' -> escaped.append("&gt;");
        case '"' -> escaped.append("&quot;");
        case '\'' -> escaped.append("&#39;");
        case '\n' -> escaped.append("&#10;");
        default -> escaped.append(c);
      }
    }
    return escaped.toString();
  }
}
