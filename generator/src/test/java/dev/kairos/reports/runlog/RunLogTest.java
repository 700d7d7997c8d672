package dev.kairos.reports.runlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.reports.runlog.RunLog.MalformedLine;
import dev.kairos.reports.runlog.RunLog.MeasuredActivation;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading back what a node prints (docs/cli.md, "What a node prints"). */
class RunLogTest {
  private static final Set<String> NODES = Set.of("mission1", "mission2");

  private static final String ACTIVATION =
      "activation instance=nav method=update core=0 seq=3 release_ns=75000000"
          + " start_ns=75010000 start_lateness_ns=10000 handoff_ns=196000 finish_ns=76510000"
          + " window=met deadline=met source=avionics.tmo:71";

  @Test
  void aLoneNodesLinesBelongToTheNodeGiven() throws MalformedLine {
    final RunLog.Parsed parsed =
        RunLog.parse(
            List.of(
                ACTIVATION,
                "summary node=mission1 activations=1 start_window_misses=0 deadline_misses=0",
                "gate node=mission1 gate=planner.sensors callee=sensors.sample calls=2"),
            "mission1",
            NODES);
    final List<MeasuredActivation> lines = parsed.activations().get("mission1");
    assertEquals(1, lines.size());
    final MeasuredActivation a = lines.get(0);
    assertEquals("nav.update", a.name());
    assertEquals(1, a.line());
    assertEquals(3, a.seq());
    assertEquals(75_000_000L, a.windowOpenNs());
    assertEquals(1_510_000L, a.responseNs(), "from the window's opening to the finish");
    assertTrue(a.ran());
    assertEquals("1", parsed.summaries().get("mission1").get("activations"));
    assertEquals(0, parsed.skippedLines());
  }

  @Test
  void aSystemsLinesNameTheirNodes() throws MalformedLine {
    final RunLog.Parsed parsed =
        RunLog.parse(
            List.of(
                ACTIVATION.replace("activation ", "activation node=mission2 "),
                ACTIVATION
                    .replace("activation ", "activation node=mission1 ")
                    .replace("window=met deadline=met", "window=missed deadline=not-run")),
            null,
            NODES);
    assertEquals(List.of("mission2", "mission1"), List.copyOf(parsed.activations().keySet()));
    final MeasuredActivation missed = parsed.activations().get("mission1").get(0);
    assertEquals(RunLog.Window.MISSED, missed.window());
    assertEquals(RunLog.Deadline.NOT_RUN, missed.deadline());
    assertEquals(2, missed.line());
  }

  @Test
  void gateLinesAreKeptPerNodeInTheirOrder() throws MalformedLine {
    final RunLog.Parsed parsed =
        RunLog.parse(
            List.of(
                "gate node=mission1 gate=planner.sensors callee=sensors.sample calls=20"
                    + " answered=19 late=1 failed=0 max_round_trip_us=229.4"
                    + " analysed_bound_us=3450.0 deadline_us=5000.0",
                "gate gate=hud.tracking callee=tracker.tracks calls=3 answered=3 late=0 failed=0"
                    + " max_round_trip_us=60.1 analysed_bound_us=28200.0 deadline_us=40000.0"),
            "mission1",
            NODES);
    final List<java.util.Map<String, String>> gates = parsed.gates().get("mission1");
    assertEquals(2, gates.size());
    assertEquals("planner.sensors", gates.get(0).get("gate"));
    assertEquals("1", gates.get(0).get("late"));
    assertEquals("hud.tracking", gates.get(1).get("gate"));
  }

  @Test
  void channelLinesAreReadByTheirNode() throws MalformedLine {
    final RunLog.Parsed parsed =
        RunLog.parse(
            List.of(
                "channel node=mission2 channel=track topic=avionics_track published=0"
                    + " delivered=40 dropped_late=0 dropped_overflow=19 delivery_p50_us=180.2"
                    + " delivery_p99_us=268.1 delivery_max_us=268.1 analysed_bound_us=16906.6"),
            null,
            NODES);
    assertEquals(0, parsed.skippedLines());
    final var line = parsed.channels().get("mission2").get(0);
    assertEquals("track", line.get("channel"));
    assertEquals("268.1", line.get("delivery_max_us"));
    assertEquals("16906.6", line.get("analysed_bound_us"));
  }

  @Test
  void otherLinesAreSkippedAndCounted() throws MalformedLine {
    final RunLog.Parsed parsed =
        RunLog.parse(
            List.of("hello from a method body", "", ACTIVATION, "mission1: warning: x"),
            "mission1",
            NODES);
    assertEquals(2, parsed.skippedLines());
    assertEquals(1, parsed.firstSkippedLine());
    assertEquals(1, parsed.activations().get("mission1").size());
  }

  private static String malformed(String line, String defaultNode) {
    final MalformedLine e =
        assertThrows(
            MalformedLine.class, () -> RunLog.parse(List.of(ACTIVATION, line), defaultNode, NODES));
    assertEquals(2, e.line(), e.getMessage());
    assertTrue(e.getMessage().startsWith("line 2: "), e.getMessage());
    return e.detail();
  }

  @Test
  void aMalformedLineIsAnErrorWithItsNumber() {
    assertEquals(
        "start_ns=12x is not an integer",
        malformed(ACTIVATION.replace("start_ns=75010000", "start_ns=12x"), "mission1"));
    assertEquals(
        "an activation line needs finish_ns=",
        malformed(ACTIVATION.replace(" finish_ns=76510000", ""), "mission1"));
    assertEquals(
        "window=late is none of met, missed, overrun",
        malformed(ACTIVATION.replace("window=met", "window=late"), "mission1"));
    assertEquals(
        "deadline=soon is none of met, missed, not-run",
        malformed(ACTIVATION.replace("deadline=met", "deadline=soon"), "mission1"));
    assertEquals(
        "'garbage' is not a key=value field", malformed(ACTIVATION + " garbage", "mission1"));
    assertEquals("field seq given twice", malformed(ACTIVATION + " seq=4", "mission1"));
    assertEquals(
        "release_ns=-5 is negative",
        malformed(ACTIVATION.replace("release_ns=75000000", "release_ns=-5"), "mission1"));
    assertEquals(
        "finish_ns is before start_ns",
        malformed(ACTIVATION.replace("finish_ns=76510000", "finish_ns=1"), "mission1"));
    assertEquals(
        "expected key=value fields after the first word", malformed("activation", "mission1"));
    assertEquals(
        "node mission9 is not a node of the model",
        malformed(ACTIVATION.replace("activation ", "activation node=mission9 "), "mission1"));
    final MalformedLine noNode =
        assertThrows(MalformedLine.class, () -> RunLog.parse(List.of(ACTIVATION), null, NODES));
    assertEquals(1, noNode.line());
    assertTrue(noNode.detail().startsWith("the line names no node"), noNode.detail());
    assertEquals(
        "start_ns=99999999999999999999 is not an integer",
        malformed(
            ACTIVATION.replace("start_ns=75010000", "start_ns=99999999999999999999"), "mission1"));
  }
}
