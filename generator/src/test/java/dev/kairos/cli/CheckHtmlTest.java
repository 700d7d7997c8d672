package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `kairos check --html FILE` on the examples and on broken input. */
class CheckHtmlTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path temp;

  private record Run(int exit, String out, String err) {}

  private static Run kairos(String... args) {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final int exit = KairosCli.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static String example(String name) {
    return REPOSITORY.resolve("examples/" + name + "/" + name + ".tmo").toString();
  }

  private static int count(String text, String pattern) {
    final Matcher matcher = Pattern.compile(pattern).matcher(text);
    int count = 0;
    while (matcher.find()) {
      count++;
    }
    return count;
  }

  /**
   * The page has these nodes and tasks, and where no script runs a timeline per node with an
   * analysed activation group per SpM release drawn.
   */
  private static void assertPageHas(
      String page, List<String> nodes, List<String> tasks, int lanes) {
    for (String node : nodes) {
      assertTrue(page.contains("data-node=\"" + node + "\""), "node " + node);
    }
    for (String task : tasks) {
      assertEquals(
          1, count(page, "<tr class=\"task[^\"]*\" data-task=\"" + task + "\">"), "task " + task);
    }
    assertEquals(nodes.size(), count(page, "<section class=\"node\""));
    assertEquals(
        nodes.size(),
        count(
            page,
            "<div class=\"static-timeline\">\n<p class=\"note kt-extent\">[^<]*</p>\n"
                + "<div class=\"scroll\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"kt-svg\""),
        "a static timeline per node");
    assertEquals(lanes, count(page, "<g class=\"kt-lane\" data-core=\""), "a lane per core");
    assertEquals(tasks.size(), count(page, "<tr class=\"task"));
    assertTrue(page.contains("class=\"kt-exec\" fill=\"#1f4e8c\""), "hard execution bars");
  }

  @Test
  void avionicsPage() throws IOException {
    final Path html = temp.resolve("reports/avionics.html");
    final Run run = kairos("check", example("avionics"), "--html", html.toString());
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().contains("all nodes schedulable"), "the text report is still printed");
    final String page = Files.readString(html, StandardCharsets.UTF_8);
    assertPageHas(
        page,
        List.of("mission1", "mission2"),
        List.of(
            "nav.update",
            "nav.current",
            "nav.nudge",
            "nav.setRoute",
            "hud.refresh",
            "hud.status",
            "hud.survey",
            "planner.replan",
            "planner.log",
            "sensors.poll",
            "sensors.sample",
            "tracker.fuse",
            "tracker.tracks",
            "tracker.rank",
            "tracker.locate",
            "weapons.status",
            "weapons.bit"),
        // Both nodes have two cores.
        4);
    assertTrue(page.contains("<title>kairos check: avionics.tmo</title>"));
    assertTrue(
        page.contains(
            "Analysed: core 0: one hyperperiod (25 ms); core 1: one hyperperiod (1 s).</p>"));
    assertTrue(page.contains("<code>planner.sensors</code>"), "the remote call");
    // Each called service method against its max-rate, with its callers.
    assertTrue(page.contains("<section class=\"rates\" id=\"service-rates\">"), "service rates");
    assertTrue(
        page.contains(
            "<tr class=\"rate\"><td><code>nav.current</code></td><td>mission1</td>"
                + "<td class=\"num\">20 Hz</td><td class=\"num\">20 Hz</td>"
                + "<td>tracker.locate through gate navigation every 50 ms</td>"),
        "nav.current's row");
    assertTrue(page.contains("<table class=\"bcc\">"));
    assertTrue(page.contains("all nodes schedulable"));
  }

  @Test
  void helloPageWithJsonOnStdout() throws IOException {
    final Path html = temp.resolve("hello.html");
    final Run run =
        kairos("check", "--format", "json", example("hello"), "--html", html.toString());
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().startsWith("{"), "stdout keeps the chosen format");
    final String page = Files.readString(html, StandardCharsets.UTF_8);
    // The board has two cores (greeter runs on core 0, core 1 idles).
    assertPageHas(page, List.of("board"), List.of("greeter.tick", "greeter.greetings"), 2);
    assertTrue(
        page.contains(
            "Analysed: core 0: one hyperperiod (100 ms); core 1: no spontaneous methods.</p>"));
  }

  @Test
  void theSameModelGivesTheSameBytes() throws IOException {
    final Path first = temp.resolve("first.html");
    final Path second = temp.resolve("second.html");
    assertEquals(0, kairos("check", example("avionics"), "--html", first.toString()).exit());
    assertEquals(0, kairos("check", example("avionics"), "--html", second.toString()).exit());
    assertEquals(-1L, Files.mismatch(first, second));
  }

  @Test
  void anUnschedulableModelStillGetsItsPage() throws IOException {
    final Path model = temp.resolve("overload.tmo");
    Files.writeString(
        model,
        "tmo T {\n"
            + "  spm a for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms)"
            + " finish-by t + 10 ms wcet 6 ms;\n"
            + "  spm b for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms)"
            + " finish-by t + 10 ms wcet 6 ms;\n"
            + "}\n"
            + "node n { os linux deploy T as t1 }\n");
    final Path html = temp.resolve("overload.html");
    final Run run = kairos("check", model.toString(), "--html", html.toString());
    assertEquals(1, run.exit());
    final String page = Files.readString(html, StandardCharsets.UTF_8);
    assertTrue(page.contains("<p class=\"banner bad\" id=\"verdict\">not schedulable</p>"));
    assertTrue(page.contains("class=\"kt-activation window-missed\""), page);
  }

  @Test
  void modelErrorsAreOnThePage() throws IOException {
    final Path model = temp.resolve("bad.tmo");
    Files.writeString(
        model,
        "tmo T {\n"
            + "  spm tick for t = from 0 s to forever every 10 ms\n"
            + "    start-during (t, t + 12 ms) finish-by t + 15 ms wcet 1 ms;\n"
            + "}\n"
            + "node n { os linux deploy T as t1 }\n");
    final Path html = temp.resolve("bad.html");
    final Run run = kairos("check", model.toString(), "--html", html.toString());
    assertEquals(1, run.exit());
    final String page = Files.readString(html, StandardCharsets.UTF_8);
    assertTrue(page.contains("the model has 1 error(s)"), page);
    assertTrue(page.matches("(?s).*<code>[^<]*bad\\.tmo:3:\\d+</code>.*"), page);
  }

  @Test
  void anUnwritablePathIsAUsageError() throws IOException {
    final Path directory = Files.createDirectories(temp.resolve("a-directory"));
    final Run intoDirectory = kairos("check", example("hello"), "--html", directory.toString());
    assertEquals(2, intoDirectory.exit());
    assertTrue(
        intoDirectory.err().contains("kairos: error: cannot write the HTML report"),
        intoDirectory.err());
    assertFalse(intoDirectory.err().contains("Exception"), intoDirectory.err());

    final Path file = Files.writeString(temp.resolve("plain-file"), "x");
    final Run underFile =
        kairos("check", example("hello"), "--html", file.resolve("report.html").toString());
    assertEquals(2, underFile.exit());
    assertTrue(underFile.err().contains("cannot write the HTML report"), underFile.err());
  }

  private static final String RUN_LOG =
      REPOSITORY.resolve("tests/e2e/fixtures/avionics-mission1.log").toString();

  @Test
  void aMeasuredRunIsDrawnAndComparedWithTheBounds() throws IOException {
    final Path html = temp.resolve("measured.html");
    final Run run =
        kairos(
            "check",
            example("avionics"),
            "--html",
            html.toString(),
            "--measured",
            "mission1=" + RUN_LOG);
    assertEquals(0, run.exit(), run.err());
    assertEquals("", run.err());
    final String page = Files.readString(html, StandardCharsets.UTF_8);
    assertEquals(1, count(page, "<table class=\"measured\">"), "mission1 only");
    for (String task :
        List.of(
            "nav.update",
            "planner.replan",
            "planner.log",
            "hud.refresh",
            "hud.status",
            "hud.survey")) {
      assertEquals(
          1, count(page, "<tr class=\"measured-row[^\"]*\" data-task=\"" + task + "\">"), task);
    }
    assertTrue(page.contains("\"measured\":{\"source\":"), "the activations, for the timeline");
    assertTrue(page.contains("summary <code>node=mission1 activations=81"), page);
  }

  private Run measuredError(String log, String... spec) throws IOException {
    final Path file = Files.writeString(temp.resolve("run.log"), log);
    final Path html = temp.resolve("error.html");
    final Run run =
        kairos(
            "check",
            example("avionics"),
            "--html",
            html.toString(),
            "--measured",
            spec.length > 0 ? spec[0] : "mission1=" + file);
    assertEquals(2, run.exit(), run.err());
    assertFalse(run.err().contains("Exception"), run.err());
    assertFalse(Files.exists(html), "no page from a bad log");
    return run;
  }

  @Test
  void aBadRunLogIsAUsageErrorWithItsLine() throws IOException {
    final String good = Files.readAllLines(Path.of(RUN_LOG)).get(0);
    final Run malformed =
        measuredError(good + "\n" + good.replaceFirst(" start_ns=\\d+", " start_ns=x") + "\n");
    assertTrue(
        malformed.err().contains("run.log:2: start_ns=x is not an integer"), malformed.err());

    final Run foreign = measuredError(good.replace("method=update", "method=fly") + "\n");
    assertTrue(
        foreign.err().contains("run.log:1: nav.fly is not a spontaneous method of node mission1"),
        foreign.err());

    final Run unnamed = measuredError(good + "\n", temp.resolve("run.log").toString());
    assertTrue(unnamed.err().contains("run.log:1: the line names no node"), unnamed.err());

    final Run empty = measuredError("nothing here\n");
    assertTrue(empty.err().contains("has no activation lines"), empty.err());

    final Run missing = measuredError("", "mission1=" + temp.resolve("absent.log"));
    assertTrue(missing.err().contains("cannot read the run log"), missing.err());

    final Run noNode = measuredError("", "mission9=" + RUN_LOG);
    assertTrue(noNode.err().contains("mission9 is not a node of the model"), noNode.err());

    final Run withoutHtml = kairos("check", example("avionics"), "--measured", RUN_LOG);
    assertEquals(2, withoutHtml.exit());
    assertTrue(withoutHtml.err().contains("give --html FILE too"), withoutHtml.err());
  }
}
