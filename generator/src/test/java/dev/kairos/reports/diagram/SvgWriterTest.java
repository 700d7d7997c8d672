package dev.kairos.reports.diagram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SvgWriterTest {
  @Test
  void writesIndentedEscapedElements() {
    final String xml =
        new SvgWriter()
            .open("g", "id", "a&b", "class", null)
            .text("title", "x < y & \"z\"\nnext")
            .empty("rect", "x", SvgWriter.num(1.5))
            .close("g")
            .finish();
    assertEquals(
        "<g id=\"a&amp;b\">\n"
            + "  <title>x &lt; y &amp; &quot;z&quot;&#10;next</title>\n"
            + "  <rect x=\"1.5\"/>\n"
            + "</g>\n",
        xml);
  }

  @Test
  void numbersHaveOneNotation() {
    assertEquals("12", SvgWriter.num(12.0));
    assertEquals("12.25", SvgWriter.num(12.2500001));
    assertEquals("0", SvgWriter.num(-0.001));
    assertEquals("1200000", SvgWriter.num(1.2e6));
    assertThrows(IllegalArgumentException.class, () -> SvgWriter.num(Double.NaN));
  }

  @Test
  void elementsMustBeClosedInOrder() {
    final SvgWriter writer = new SvgWriter().open("svg").open("g");
    assertThrows(IllegalStateException.class, () -> writer.close("svg"));
    assertThrows(IllegalStateException.class, () -> new SvgWriter().open("svg").finish());
  }
}
