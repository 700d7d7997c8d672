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

  /** The page has these nodes and tasks, and a timeline per core that runs SpMs. */
  private static void assertPageHas(
      String page, List<String> nodes, List<String> tasks, int timelines) {
    for (String node : nodes) {
      assertTrue(page.contains("data-node=\"" + node + "\""), "node " + node);
    }
    for (String task : tasks) {
      assertEquals(
          1, count(page, "<tr class=\"task[^\"]*\" data-task=\"" + task + "\">"), "task " + task);
    }
    assertEquals(nodes.size(), count(page, "<section class=\"node\""));
    assertEquals(timelines, count(page, "<svg class=\"timeline\""));
    assertEquals(tasks.size(), count(page, "<tr class=\"task"));
    assertTrue(page.contains("class=\"exec hard\""), "execution bars");
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
        // Both nodes run SpMs on both cores (hud on core 1 of mission1, tracker on core 1 of
        // mission2).
        4);
    assertTrue(page.contains("<title>kairos check: avionics.tmo</title>"));
    assertTrue(page.contains("showing <b>0 .. 1 s</b>: one hyperperiod (1 s)"));
    assertTrue(page.contains("<code>planner.sensors</code>"), "the remote call");
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
    assertPageHas(page, List.of("board"), List.of("greeter.tick", "greeter.greetings"), 1);
    assertTrue(page.contains("showing <b>0 .. 100 ms</b>: one hyperperiod (100 ms)"));
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
    assertTrue(page.contains("class=\"activation window-missed\""), page);
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
}
