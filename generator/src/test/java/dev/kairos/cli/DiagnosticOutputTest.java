package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kairos.reports.Diagnostic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Diagnostics as people read them (source line, caret, colour) and as SARIF and JSON carry them.
 */
class DiagnosticOutputTest {
  @TempDir Path temp;

  @Test
  void theUnderlineSitsUnderTheRangeTabsIncluded() throws IOException {
    final Path model = temp.resolve("m.tmo");
    Files.writeString(
        model, "tmo T {\n\tsvm slow gct 1 ms wcet 2 ms;\n}\n", StandardCharsets.UTF_8);
    final Diagnostic d =
        new Diagnostic(
            model.toString(), 2, 24, 2, 28, Diagnostic.Severity.ERROR, "too long", "kairos.x");
    final DiagnosticPrinter plain = new DiagnosticPrinter(false);
    assertEquals(model + ":2:24: error[kairos.x]: too long", plain.headline(d));
    assertEquals(
        List.of("    2 | \tsvm slow gct 1 ms wcet 2 ms;", "      | \t                      ^~~~"),
        plain.excerpt(d));
    // A range over several lines is underlined to the end of its first line.
    final Diagnostic multi =
        new Diagnostic(model.toString(), 1, 1, 3, 2, Diagnostic.Severity.WARNING, "w", "kairos.y");
    assertEquals("      | ^~~~~~~", plain.excerpt(multi).get(1));
    final DiagnosticPrinter coloured = new DiagnosticPrinter(true);
    assertTrue(coloured.headline(d).contains("\u001b[1;31merror[kairos.x]:\u001b[0m"));
    assertTrue(coloured.headline(multi).contains("\u001b[1;35mwarning[kairos.y]:"));
    // A file that cannot be read still gets its headline, without an excerpt.
    assertEquals(List.of(), plain.excerpt(new Diagnostic("gone.tmo", 1, 1, null, "m", "c")));
  }

  @Test
  void autoColoursNeitherWithNoColorNorWhenToldItIsNoTerminal() {
    assertTrue(ColorChoice.always.colors(true, Map.of("NO_COLOR", "1")));
    assertFalse(ColorChoice.never.colors(true, Map.of()));
    assertFalse(ColorChoice.auto.colors(true, Map.of("NO_COLOR", "1")));
    System.setProperty(ColorChoice.STDERR_IS_TERMINAL, "1");
    try {
      assertTrue(ColorChoice.auto.colors(true, Map.of()));
      assertFalse(ColorChoice.auto.colors(true, Map.of("TERM", "dumb")));
    } finally {
      System.clearProperty(ColorChoice.STDERR_IS_TERMINAL);
    }
  }

  @Test
  void rulesComeFromTheDiagnosticsPage() {
    final DiagnosticRules.Rule gate = DiagnosticRules.of("kairos.gate-not-called").orElseThrow();
    assertTrue(gate.warning());
    assertEquals("docs/diagnostics.md#remote-calls", gate.helpUri());
    assertFalse(gate.text().startsWith("(warning)"), gate.text());
    final DiagnosticRules.Rule miss = DiagnosticRules.of("kairos.unschedulable").orElseThrow();
    assertFalse(miss.warning());
    assertEquals("schedulability-language-server", miss.anchor());
    assertEquals("files-syntax-and-names", DiagnosticRules.anchor("Files, syntax and names"));
  }

  @Test
  void sarifCarriesRulesRegionsAndTheExitCode() {
    final String log =
        SarifReport.render(
            "1.2.3",
            List.of(
                new Diagnostic(
                    "a b.tmo",
                    3,
                    22,
                    3,
                    31,
                    Diagnostic.Severity.ERROR,
                    "late",
                    "kairos.window-inverted"),
                new Diagnostic(
                    "a b.tmo", 1, 1, Diagnostic.Severity.WARNING, "empty", "kairos.empty-model")),
            1);
    final JsonObject run =
        JsonParser.parseString(log)
            .getAsJsonObject()
            .getAsJsonArray("runs")
            .get(0)
            .getAsJsonObject();
    assertEquals(
        "1.2.3",
        run.getAsJsonObject("tool").getAsJsonObject("driver").get("version").getAsString());
    final JsonObject second = run.getAsJsonArray("results").get(1).getAsJsonObject();
    assertEquals("warning", second.get("level").getAsString());
    assertEquals(1, second.get("ruleIndex").getAsInt());
    final JsonObject location =
        second
            .getAsJsonArray("locations")
            .get(0)
            .getAsJsonObject()
            .getAsJsonObject("physicalLocation");
    assertEquals(
        "a%20b.tmo", location.getAsJsonObject("artifactLocation").get("uri").getAsString());
    // A point is one character wide.
    assertEquals(2, location.getAsJsonObject("region").get("endColumn").getAsInt());
    final JsonObject invocation = run.getAsJsonArray("invocations").get(0).getAsJsonObject();
    assertEquals(1, invocation.get("exitCode").getAsInt());
    assertTrue(invocation.get("executionSuccessful").getAsBoolean());
  }
}
