package dev.kairos.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.SchedulingAnalysis;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The timeline's one renderer (report/timeline-draw.js) as the page's Java side runs it for the
 * static SVG: every analysed activation drawn once, with its numbers as a title, model strings
 * escaped, and the script kept to what the Java side's engine runs.
 */
class TimelineRendererTest {
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("test.tmo", 1);

  private static Platform.Node node(String instance, long... periodsMs) {
    final List<Tmos.Spm> spms = new ArrayList<>();
    for (long period : periodsMs) {
      spms.add(
          new Tmos.Spm(
              "every" + period,
              0,
              Tmos.FOREVER,
              period * MS,
              0,
              period * MS,
              period * MS,
              1 * MS,
              Tmos.Criticality.HARD,
              0,
              List.of(),
              HERE));
    }
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(), "T", List.of(), List.of(), spms, List.of(), List.of(), List.of(), HERE);
    return new Platform.Node(
        "n",
        Platform.OperatingSystem.SIM,
        Platform.Strategy.RMS,
        Platform.REFERENCE,
        null,
        List.of(new Platform.Deployment(instance, tmo, HERE)),
        HERE);
  }

  private static String staticView(NodePlan report) {
    try (TimelineRenderer renderer =
        new TimelineRenderer(TimelineData.json(List.of(report), Map.of()))) {
      return renderer.staticHtml(0);
    }
  }

  @Test
  void everyAnalysedActivationIsDrawnOnceWithItsNumbersAsATitle() {
    final NodePlan report = SchedulingAnalysis.analyse(node("i", 4, 6, 10));
    final JsonObject data =
        JsonParser.parseString(TimelineData.json(List.of(report), Map.of())).getAsJsonObject();
    int activations = 0;
    for (var spm :
        data.getAsJsonArray("nodes")
            .get(0)
            .getAsJsonObject()
            .getAsJsonArray("cores")
            .get(0)
            .getAsJsonObject()
            .getAsJsonArray("spms")) {
      activations += spm.getAsJsonObject().getAsJsonArray("activations").size();
    }
    // One hyperperiod of 60 ms: 15 + 10 + 6 releases.
    assertEquals(31, activations);
    final String view = staticView(report);
    final Matcher group =
        Pattern.compile("<g class=\"kt-activation met\" data-act=\"([^\"]+)\" data-tip=\"\\d+\">")
            .matcher(view);
    final Set<String> drawn = new HashSet<>();
    while (group.find()) {
      assertTrue(drawn.add(group.group(1)), "drawn twice: " + group.group(1));
    }
    assertEquals(activations, drawn.size(), view);
    assertTrue(view.contains("<title>i.every4 seq=0 (analysed)\nrelease      0 ns\n"), view);
    assertTrue(view.contains("Analysed: core 0: one hyperperiod (60 ms).</p>"), view);
    assertTrue(view.contains(">0 ms</text>") && view.contains(">60 ms</text>"), "axis " + view);
  }

  @Test
  void modelStringsAreEscaped() {
    final String view = staticView(SchedulingAnalysis.analyse(node("a<b&\"c\"", 10)));
    assertTrue(view.contains("a&lt;b&amp;&quot;c&quot;.every10"), view);
    assertFalse(view.contains("a<b"), view);
  }

  /**
   * The engine that runs the script for the static SVG (Rhino) takes no classes and no {@code for
   * (const ...)}, and evaluates a {@code const} in a loop body only once: below a function's top
   * level (indented more than four spaces) the script says {@code let}.
   */
  @Test
  void theScriptKeepsToWhatItsJavaSideRuns() {
    final String script = HtmlReport.resource("timeline-draw.js");
    final String[] lines = script.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      final String line = lines[i];
      if (line.strip().startsWith("//") || line.strip().startsWith("*")) {
        continue; // comments may name what the code may not say
      }
      final String where = "timeline-draw.js:" + (i + 1) + ": " + line.strip();
      assertFalse(line.matches("^\\s{6,}const .*"), where + " (say let)");
      assertFalse(line.contains("for (const "), where);
      assertFalse(line.matches("^\\s*class \\w+.*"), where);
    }
  }
}
