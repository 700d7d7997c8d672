package dev.kairos.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.ReleaseTableAnalysis;
import dev.kairos.timing.SchedulingAnalysis;
import dev.kairos.timing.TimingPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The HTML page of `kairos check --html`, from analysis results built in the test. */
class HtmlReportTest {
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("test.tmo", 1);

  /** A few thousand SVG elements per timeline at most, whatever the hyperperiod. */
  private static final int MAX_ELEMENTS_PER_TIMELINE = 3_000;

  private static Tmos.Spm spm(String name, long wcetNs, long periodNs, Tmos.Criticality c) {
    return new Tmos.Spm(
        name, 0, Tmos.FOREVER, periodNs, 0, periodNs, periodNs, wcetNs, c, 0, List.of(), HERE);
  }

  private static Platform.Node node(String name, String instance, List<Tmos.Spm> spms) {
    final Tmos.Svm serve =
        new Tmos.Svm(
            "serve",
            5 * MS,
            100_000,
            Tmos.Criticality.SOFT,
            0,
            100 * MS,
            List.of(),
            Optional.empty(),
            HERE);
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(), "T", List.of(), List.of(), spms, List.of(serve), List.of(), List.of(), HERE);
    return new Platform.Node(
        name,
        Platform.OperatingSystem.SIM,
        Platform.Strategy.RMS,
        Platform.REFERENCE,
        "tcp:127.0.0.1:7001",
        List.of(new Platform.Deployment(instance, tmo, HERE)),
        HERE);
  }

  private static TimingPlan analyse(Platform.Node... nodes) {
    final List<NodePlan> reports = new ArrayList<>();
    for (Platform.Node node : nodes) {
      reports.add(SchedulingAnalysis.analyse(node));
    }
    return new TimingPlan(reports, List.of());
  }

  /** Every SVG of the page with its elements counted (opening and self-closing tags). */
  private static List<Integer> timelineElementCounts(String page) {
    final List<Integer> counts = new ArrayList<>();
    final Matcher svg =
        Pattern.compile(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"kt-svg\".*?</svg>",
                Pattern.DOTALL)
            .matcher(page);
    while (svg.find()) {
      final Matcher tag = Pattern.compile("<[a-zA-Z]").matcher(svg.group());
      int count = 0;
      while (tag.find()) {
        count++;
      }
      counts.add(count);
    }
    return counts;
  }

  /** Names could come from anywhere (file names, endpoints): none may reach the page raw. */
  @Test
  void everyModelStringIsEscaped() {
    final String odd = "<b onclick=\"x()\">&'";
    final Platform.Node node =
        node("n" + odd, "i" + odd, List.of(spm("m" + odd, 1 * MS, 10 * MS, Tmos.Criticality.HARD)));
    final String page =
        HtmlReport.render(
            "f" + odd + ".tmo",
            analyse(node),
            List.of(
                new Diagnostic(
                    "f" + odd + ".tmo",
                    3,
                    7,
                    Diagnostic.Severity.ERROR,
                    "bad " + odd,
                    "kairos.error")));
    assertFalse(page.contains(odd), "a raw model string in the page");
    assertFalse(page.contains("<b "), "markup from the model in the page");
    assertTrue(page.contains("n&lt;b onclick=&quot;x()&quot;&gt;&amp;&#39;"));
    assertTrue(page.contains("f&lt;b onclick=&quot;x()&quot;&gt;&amp;&#39;.tmo:3:7"));
    assertEquals(
        "a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39;", HtmlReport.esc("a & b <c> \"d\" 'e'"));
  }

  @Test
  void eachNodeSaysWhereItsOverheadsComeFrom() {
    final Platform.Node simulated =
        node("sim", "i", List.of(spm("m", 1 * MS, 10 * MS, Tmos.Criticality.HARD)));
    final Platform.Node linux =
        new Platform.Node(
            "board",
            Platform.OperatingSystem.LINUX,
            simulated.strategy(),
            simulated.hardware(),
            null,
            simulated.deployments(),
            HERE);
    final Platform.Overheads measured =
        new Platform.Overheads(
            "2026-11-27T00:00:00Z",
            "kairos-probe",
            "a CPU",
            "real-time",
            9,
            9,
            9,
            9,
            9,
            0,
            0,
            0,
            0,
            0,
            0,
            0);
    final Platform.Node probed =
        new Platform.Node(
            "lab",
            Platform.OperatingSystem.LINUX,
            simulated.strategy(),
            new Platform.Hardware(
                "Lab",
                1,
                java.math.BigDecimal.ONE,
                Optional.of(
                    new Platform.PlatformFile(
                        "lab.platform.json", HERE, Optional.of(measured), ""))),
            null,
            simulated.deployments(),
            HERE);
    final String page = HtmlReport.render("t.tmo", analyse(simulated, linux, probed), List.of());
    // A simulated processor is modelled; a real one is ideal without a probe, else probed.
    assertEquals(2, page.split("<p class=\"platform\">", -1).length - 1, page);
    assertTrue(page.contains("<p class=\"platform\">zero platform overheads assumed"), page);
    assertTrue(
        page.contains(
            "<p class=\"platform\">platform lab.platform.json: measured 2026-11-27T00:00:00Z by"
                + " kairos-probe on a CPU (real-time)"),
        page);
  }

  @Test
  void thePageIsSelfContained() {
    final String page =
        HtmlReport.render(
            "t.tmo",
            analyse(node("n", "i", List.of(spm("m", 1 * MS, 10 * MS, Tmos.Criticality.HARD)))),
            List.of());
    assertTrue(page.startsWith("<!DOCTYPE html>\n"));
    assertTrue(page.endsWith("</html>\n"));
    // Three inline scripts: the timeline's JSON, its renderer and the interactive view; nothing
    // from elsewhere.
    assertEquals(3, page.split("<script", -1).length - 1);
    assertTrue(page.contains("<script type=\"application/json\" id=\"kairos-timeline-data\">"));
    assertFalse(page.contains("<script src"));
    assertFalse(page.contains("fetch("));
    assertFalse(page.contains("XMLHttpRequest"));
    assertFalse(page.replace("http://www.w3.org/2000/svg", "").contains("http:"));
    assertFalse(page.contains("https:"));
    assertFalse(page.contains("<link"));
    assertFalse(page.contains("<img"));
    assertFalse(page.contains("url(http"));
    assertFalse(page.contains("@import"));
    assertFalse(page.contains("\r"));
  }

  /**
   * Co-prime periods: a hyperperiod of about 2 hours, far too long to draw. The page shows the
   * beginning, says how much of what, and stays within a few thousand SVG elements.
   */
  @Test
  void aHugeHyperperiodIsShownBounded() {
    final List<Tmos.Spm> spms = new ArrayList<>();
    final long[] periodsMs = {7, 11, 13, 17, 19, 23};
    for (long period : periodsMs) {
      spms.add(
          spm(
              "every" + period,
              1 * MS,
              period * MS,
              period < 15 ? Tmos.Criticality.HARD : Tmos.Criticality.SOFT));
    }
    final TimingPlan report = analyse(node("coprime", "c", spms));
    final ReleaseTableAnalysis.Playout table = report.nodes().get(0).playout();
    assertEquals(7L * 11 * 13 * 17 * 19 * 23 * MS, table.hyperperiodNs());
    assertFalse(table.unrolled());
    final String page = HtmlReport.render("coprime.tmo", report, List.of());
    assertTrue(
        page.contains("the beginning of the hyperperiod of 2.066 h, its first 240 activations"),
        page);
    final List<Integer> counts = timelineElementCounts(page);
    assertEquals(1, counts.size());
    assertTrue(counts.get(0) <= MAX_ELEMENTS_PER_TIMELINE, "elements: " + counts);
    assertTrue(page.contains("class=\"kt-exec\" fill=\"#1f4e8c\""), "hard executions");
    assertTrue(page.contains("class=\"kt-exec\" fill=\"#8a63b8\""), "soft executions");
  }

  /** Many SpMs, a short period among them: still bounded, and the page says what is left out. */
  @Test
  void manySpmsAreShownBounded() {
    final List<Tmos.Spm> spms = new ArrayList<>();
    spms.add(spm("tick", 10_000, 1 * MS, Tmos.Criticality.HARD));
    for (int i = 0; i < 100; i++) {
      spms.add(spm("m" + i, 10_000, (101 + i) * MS, Tmos.Criticality.SOFT));
    }
    final String page = HtmlReport.render("many.tmo", analyse(node("n", "i", spms)), List.of());
    final List<Integer> counts = timelineElementCounts(page);
    assertTrue(counts.get(0) <= MAX_ELEMENTS_PER_TIMELINE, "elements: " + counts);
    assertTrue(page.contains("and 69 more SpMs played but not drawn (of lowest priority)"), page);
  }

  @Test
  void theSameReportGivesTheSameBytes() {
    final List<Tmos.Spm> spms =
        List.of(
            spm("a", 1 * MS, 4 * MS, Tmos.Criticality.HARD),
            spm("b", 2 * MS, 6 * MS, Tmos.Criticality.SOFT));
    final String first =
        HtmlReport.render("t.tmo", analyse(node("n", "i", spms), node("m", "j", spms)), List.of());
    final String second =
        HtmlReport.render("t.tmo", analyse(node("n", "i", spms), node("m", "j", spms)), List.of());
    assertEquals(first, second);
    assertEquals(2, timelineElementCounts(first).size());
  }

  @Test
  void aMissedDeadlineIsDrawnHatched() {
    // Two 3 ms SpMs every 5 ms: the lower band finishes at 6 ms, after its deadline at 5 ms.
    final List<Tmos.Spm> spms =
        List.of(
            spm("a", 3 * MS, 5 * MS, Tmos.Criticality.HARD),
            spm("b", 3 * MS, 5 * MS, Tmos.Criticality.HARD));
    final String page = HtmlReport.render("t.tmo", analyse(node("n", "i", spms)), List.of());
    assertTrue(page.contains("class=\"kt-activation deadline-missed\""), page);
    assertTrue(page.contains("class=\"kt-exec\" fill=\"url(#kt-miss-0)\""));
    assertTrue(page.contains("NOT schedulable"));
    assertTrue(page.contains("<tr class=\"task miss\" data-task=\"i.b\">"), page);
  }

  @Test
  void modelErrorsAreListedWithTheirLocation() {
    final String page =
        HtmlReport.render(
            "bad.tmo",
            null,
            List.of(
                new Diagnostic(
                    "bad.tmo",
                    3,
                    22,
                    Diagnostic.Severity.ERROR,
                    "the start window closes late",
                    "kairos.error")));
    assertTrue(page.contains("the model has 1 error(s)"));
    assertTrue(page.contains("<code>bad.tmo:3:22</code>"));
    assertTrue(page.contains("the start window closes late"));
    assertFalse(page.contains("<svg"));
  }

  /** A multicore node: a utilization bar per core and a lane per core, none overloaded. */
  @Test
  void aMulticoreNodeIsDrawnCoreByCore() {
    final Platform.Node single =
        node("cell", "a", List.of(spm("run", 6 * MS, 10 * MS, Tmos.Criticality.HARD)));
    final Tmos.TmoClass other =
        new Tmos.TmoClass(
            List.of(),
            "U",
            List.of(),
            List.of(),
            List.of(spm("step", 6 * MS, 10 * MS, Tmos.Criticality.HARD)),
            List.of(),
            List.of(),
            List.of(),
            HERE);
    final Platform.Node duo =
        new Platform.Node(
            "cell",
            Platform.OperatingSystem.SIM,
            Platform.Strategy.RMS,
            new Platform.Hardware("Duo", 2, java.math.BigDecimal.ONE),
            null,
            List.of(single.deployments().get(0), new Platform.Deployment("b", other, 1, HERE)),
            HERE);
    final String page = HtmlReport.render("duo.tmo", analyse(duo), List.of());
    assertEquals(1, timelineElementCounts(page).size());
    // A lane per core, named after it and the instances it runs, above their methods' rows.
    assertTrue(page.contains("<g class=\"kt-lane\" data-core=\"0\">"), page);
    assertTrue(page.contains("<g class=\"kt-lane\" data-core=\"1\">"), page);
    assertTrue(
        page.contains(
            "<text x=\"8\" y=\"19\" class=\"kt-label kt-lane-label\">core 0</text>"
                + "<text x=\"8\" y=\"31\" class=\"kt-sub\">a</text>"),
        page);
    assertTrue(page.contains("core 1: utilization <b>60.0%</b>"), page);
    assertFalse(page.contains("overloaded"), page);
  }
}
