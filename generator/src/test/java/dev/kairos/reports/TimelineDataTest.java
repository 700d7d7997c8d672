package dev.kairos.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos;
import dev.kairos.reports.runlog.RunLog;
import dev.kairos.reports.runlog.RunLog.MeasuredActivation;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.SchedulingAnalysis;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The JSON the report's interactive timeline draws, and measured against analysed. */
class TimelineDataTest {
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("test.tmo", 1);

  private static Tmos.Spm spm(
      String name, long wcetNs, long periodNs, Tmos.Criticality c, List<Tmos.SegmentAccess> uses) {
    return new Tmos.Spm(
        name, 0, Tmos.FOREVER, periodNs, 0, periodNs, periodNs, wcetNs, c, 0, uses, HERE);
  }

  /**
   * RMS on one core: `fast` (1 ms every 5 ms) preempts `slow` (6 ms every 20 ms) at 5 ms; `serve`
   * shares the segment `fast` writes, so BCC keeps its requests away from fast's windows.
   */
  private static NodePlan node(String instance) {
    final Tmos.SegmentAccess writes = new Tmos.SegmentAccess("s", Tmos.Access.WRITE);
    final Tmos.Svm serve =
        new Tmos.Svm(
            "serve",
            5 * MS,
            100_000,
            Tmos.Criticality.SOFT,
            0,
            10 * MS,
            List.of(new Tmos.SegmentAccess("s", Tmos.Access.READ)),
            Optional.empty(),
            HERE);
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(),
            "T",
            List.of(),
            List.of(new Tmos.Segment("s", List.of(), HERE)),
            List.of(
                spm("fast", 1 * MS, 5 * MS, Tmos.Criticality.HARD, List.of(writes)),
                spm("slow", 6 * MS, 20 * MS, Tmos.Criticality.SOFT, List.of())),
            List.of(serve),
            List.of(),
            List.of(),
            HERE);
    return SchedulingAnalysis.analyse(
        new Platform.Node(
            "n",
            Platform.OperatingSystem.SIM,
            Platform.Strategy.RMS,
            Platform.REFERENCE,
            "tcp:127.0.0.1:7001",
            List.of(new Platform.Deployment(instance, tmo, HERE)),
            HERE));
  }

  private static JsonObject json(NodePlan node, Map<String, TimelineData.NodeRun> runs) {
    return JsonParser.parseString(TimelineData.json(List.of(node), runs))
        .getAsJsonObject()
        .getAsJsonArray("nodes")
        .get(0)
        .getAsJsonObject();
  }

  private static JsonObject spm(JsonObject core, String name) {
    for (var spm : core.getAsJsonArray("spms")) {
      if (spm.getAsJsonObject().get("name").getAsString().equals(name)) {
        return spm.getAsJsonObject();
      }
    }
    throw new AssertionError("no " + name + " in " + core);
  }

  private static MeasuredActivation measured(
      int line, String method, long seq, long release, long start, long finish) {
    return new MeasuredActivation(
        line,
        "n",
        "i",
        method,
        0,
        seq,
        release,
        start,
        start - release,
        finish,
        RunLog.Window.MET,
        RunLog.Deadline.MET);
  }

  @Test
  void aPreemptedActivationIsOneActivationWithTwoSlices() {
    final JsonObject node = json(node("i"), Map.of());
    assertEquals("n", node.get("name").getAsString());
    assertEquals(20 * MS, node.get("endNs").getAsLong(), "one hyperperiod");
    final JsonArray cores = node.getAsJsonArray("cores");
    assertEquals(1, cores.size(), "a single-core node is one processor");
    final JsonObject core = cores.get(0).getAsJsonObject();
    assertEquals(0, core.get("core").getAsInt());
    assertEquals("hyperperiod", core.get("extent").getAsString());

    final JsonObject fast = spm(core, "i.fast");
    assertEquals(4, fast.getAsJsonArray("activations").size(), "every 5 ms over 20 ms");
    assertEquals("hard", fast.get("criticality").getAsString());
    assertEquals(
        1_100_000, fast.get("responseNs").getAsLong(), "1 ms, blocked once by serve (100 us)");

    final JsonObject slow =
        spm(core, "i.slow").getAsJsonArray("activations").get(0).getAsJsonObject();
    assertEquals(0, slow.get("seq").getAsLong());
    assertEquals(0, slow.get("releaseNs").getAsLong());
    assertEquals(0, slow.get("openNs").getAsLong());
    assertEquals(20 * MS, slow.get("closeNs").getAsLong());
    assertEquals(20 * MS, slow.get("deadlineNs").getAsLong());
    assertEquals(1 * MS, slow.get("startNs").getAsLong());
    assertEquals(8 * MS, slow.get("finishNs").getAsLong());
    assertEquals("met", slow.get("outcome").getAsString());
    assertEquals(
        "[[1000000,5000000],[6000000,8000000]]",
        slow.getAsJsonArray("slices").toString(),
        "run 1..5 ms, preempted by fast at 5 ms, resumed at 6 ms");
  }

  @Test
  void serviceMethodsCarryTheirAdmissionWindows() {
    final JsonObject core =
        json(node("i"), Map.of()).getAsJsonArray("cores").get(0).getAsJsonObject();
    final JsonArray svms = core.getAsJsonArray("svms");
    assertEquals(1, svms.size());
    final JsonObject serve = svms.get(0).getAsJsonObject();
    assertEquals("i.serve", serve.get("name").getAsString());
    assertEquals(5 * MS, serve.get("gctNs").getAsLong());
    assertTrue(serve.get("conflicts").getAsBoolean(), "serve reads what fast writes");
    assertEquals(5 * MS, serve.get("cycleNs").getAsLong(), "fast's period");
    final JsonArray windows = serve.getAsJsonArray("windows");
    assertFalse(windows.isEmpty());
    for (var window : windows) {
      final long from = window.getAsJsonArray().get(0).getAsLong();
      final long to = window.getAsJsonArray().get(1).getAsLong();
      assertTrue(from < to, window.toString());
      // Admitted at once only where fast is neither running nor within a slot of its opening.
      assertTrue(
          from >= 1 * MS && to <= 5 * MS - serve.get("slotNs").getAsLong(), window.toString());
    }
  }

  @Test
  void measuredActivationsAreEmbeddedWithTheirDeadlines() {
    final NodePlan node = node("i");
    final TimelineData.NodeRun run =
        new TimelineData.NodeRun(
            "run.log",
            List.of(
                measured(1, "fast", 0, 0, 20_000, 1_020_000),
                measured(2, "slow", 0, 0, 1_030_000, 9_000_000)),
            Map.of("activations", "2"));
    final JsonObject measured = json(node, Map.of("n", run)).getAsJsonObject("measured");
    assertEquals("run.log", measured.get("source").getAsString());
    assertEquals(2, measured.get("total").getAsInt());
    final JsonObject fast = measured.getAsJsonArray("activations").get(0).getAsJsonObject();
    assertEquals("i.fast", fast.get("name").getAsString());
    assertEquals(5 * MS, fast.get("deadlineNs").getAsLong(), "release + the SpM's deadline");
    assertEquals(0, fast.get("openNs").getAsLong());
    assertEquals(1_020_000, fast.get("finishNs").getAsLong());
    assertEquals("met", fast.get("window").getAsString());
    assertEquals(1, fast.get("line").getAsInt());
    assertFalse(json(node, Map.of()).has("measured"), "no run, nothing measured on the timeline");
  }

  @Test
  void measuredMaximaAreComparedWithTheAnalysedBounds() {
    final NodePlan node = node("i");
    final List<TimelineData.Comparison> rows =
        TimelineData.compare(
            node,
            List.of(
                measured(1, "fast", 0, 0, 20_000, 1_020_000),
                measured(2, "fast", 1, 5 * MS, 5 * MS + 10_000, 5 * MS + 1_500_000),
                measured(3, "slow", 0, 0, 1_030_000, 8_000_000)));
    assertEquals(List.of("i.fast", "i.slow"), rows.stream().map(r -> r.name()).toList());
    final TimelineData.Comparison fast = rows.get(0);
    assertEquals(2, fast.activations());
    assertEquals(1_500_000, fast.maxResponseNs(), "the longer of the two");
    assertEquals(1_100_000, fast.boundNs());
    assertTrue(fast.aboveBound(), "1.5 ms measured against a 1.1 ms bound");
    final TimelineData.Comparison slow = rows.get(1);
    assertEquals(8 * MS, slow.maxResponseNs());
    assertFalse(slow.aboveBound(), "slow's bound is " + slow.boundNs());
    assertTrue(TimelineData.foreign(node, List.of(measured(1, "fast", 0, 0, 1, 2))).isEmpty());
    assertEquals(
        7, TimelineData.foreign(node, List.of(measured(7, "nope", 0, 0, 1, 2))).get().line());
  }

  @Test
  void theJsonIsDeterministicAndSafeInsideAScriptElement() {
    final String odd = "x</script><b>&'";
    final String first = TimelineData.json(List.of(node(odd)), Map.of());
    assertEquals(first, TimelineData.json(List.of(node(odd)), Map.of()));
    assertFalse(first.contains("</"), "no end tag can close the script element");
    assertFalse(first.contains("<"));
    assertTrue(first.contains("x\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\u0027.fast"));
  }
}
