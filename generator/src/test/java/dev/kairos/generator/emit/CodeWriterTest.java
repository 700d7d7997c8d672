package dev.kairos.generator.emit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
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

  @Test
  void parameterListsBreakAsClangFormatBreaksThem() {
    final String type = "const ::kairos::BoundedSequence<::avionics::Waypoint, 16>&";
    final CodeWriter w = new CodeWriter();
    w.open("class C {");
    w.parenthesized("void short(", List.of("int a", "int b"), ") override;");
    // Too long for one line: packed, aligned after the parenthesis.
    w.parenthesized("void setRoute(", List.of("SetRouteAccess ods", type + " legs"), ") override;");
    // An item that does not fit beside the parenthesis: everything from the next line.
    w.parenthesized(
        "virtual void a_method_with_a_rather_long_name_that_takes_room(",
        List.of("AMethodWithARatherLongNameThatTakesRoomAccess ods", "double x"),
        ") = 0;");
    w.close("};");
    assertEquals(
        "class C {\n"
            + "  void short(int a, int b) override;\n"
            + "  void setRoute(SetRouteAccess ods,\n"
            + "                const ::kairos::BoundedSequence<::avionics::Waypoint, 16>& legs)"
            + " override;\n"
            + "  virtual void a_method_with_a_rather_long_name_that_takes_room(\n"
            + "      AMethodWithARatherLongNameThatTakesRoomAccess ods, double x) = 0;\n"
            + "};\n",
        w.text());
  }

  @Test
  void documentationCommentsAreReflowedLikeComments() {
    final CodeWriter w = new CodeWriter();
    w.docComment("word ".repeat(30));
    assertEquals(
        "/// " + "word ".repeat(19).trim() + "\n/// " + "word ".repeat(11).trim() + "\n", w.text());
  }
}
