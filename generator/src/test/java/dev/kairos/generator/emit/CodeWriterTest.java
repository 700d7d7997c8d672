package dev.kairos.generator.emit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CodeWriterTest {
  @Test
  void fillsHolesAndKeepsNesting() {
    final CodeWriter w = new CodeWriter();
    w.open("struct $name$ {", "name", "Point");
    w.line("double $field${};", "field", "x");
    w.outdented(" public:");
    w.close("};");
    assertEquals("struct Point {\n  double x{};\n public:\n};\n", w.text());
  }

  @Test
  void writesADollarForTwoDollars() {
    assertEquals("${X}", CodeWriter.substitute("$$$${X}", new Object[0]).replace("$$", "$"));
    assertEquals("a$b", CodeWriter.substitute("a$$b"));
  }

  @Test
  void neverWritesTwoBlankLinesOrALeadingOne() {
    final CodeWriter w = new CodeWriter();
    w.blank().line("a").blank().blank().line("b");
    assertEquals("a\n\nb\n", w.text());
  }

  @Test
  void aHoleWithoutValueIsAnError() {
    assertThrows(IllegalArgumentException.class, () -> CodeWriter.substitute("$missing$"));
  }

  @Test
  void aValueWithoutHoleIsAnError() {
    assertThrows(IllegalArgumentException.class, () -> CodeWriter.substitute("plain", "unused", 1));
  }

  @Test
  void unbalancedNestingIsAnError() {
    final CodeWriter open = new CodeWriter().open("{");
    assertThrows(IllegalStateException.class, open::text);
    assertThrows(IllegalStateException.class, () -> new CodeWriter().close("}"));
  }

  @Test
  void multiLineTemplatesAreIndentedLineByLine() {
    final CodeWriter w = new CodeWriter();
    w.open("{").line("a;\nb;").close("}");
    assertEquals("{\n  a;\n  b;\n}\n", w.text());
  }
}
