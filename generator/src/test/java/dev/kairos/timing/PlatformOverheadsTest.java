package dev.kairos.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Measured platform overheads charged by the analysis (PlatformOverheads), against figures derived
 * by hand from the recurrence with overhead terms of Burns and Wellings (Real-Time Systems and
 * Programming Languages, 4th ed., §11.14): C' = C + 2·cs + k·lock, and an SpM released up to J late
 * interferes ⌈(w + J)/T⌉ times and responds by R = J + w.
 */
class PlatformOverheadsTest {
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  private static final SourceRef HERE = new SourceRef("test.tmo", 1);

  /** A hard SpM of the shared test sets: window and deadline its period, using `segments`. */
  private static Tmos.Spm spm(String name, long wcetMs, long periodMs, List<String> segments) {
    return SchedulingAnalysisTest.withUses(
        SchedulingAnalysisTest.spm(name, wcetMs, periodMs),
        segments.stream().map(s -> new Tmos.SegmentAccess(s, Tmos.Access.WRITE)).toList());
  }

  private static Platform.Hardware measured(long releaseNs, long switchNs, long lockNs) {
    return probed(releaseNs, switchNs, lockNs, 0, 0);
  }

  /** A platform whose probe measured only a dispatch handoff and an ORB call (p99.9). */
  private static Platform.Hardware measuredService(long handoffNs, long orbCallNs) {
    return probed(0, 0, 0, handoffNs, orbCallNs);
  }

  /**
   * A hardware whose platform file gives these figures as what the analysis charges; the largest of
   * each per-job cost is ten times it (a stall, not what every job pays).
   */
  private static Platform.Hardware probed(
      long releaseNs, long switchNs, long lockNs, long handoffNs, long orbCallNs) {
    final Platform.Overheads overheads =
        new Platform.Overheads(
            "2026-11-24T00:00:00Z",
            "kairos-probe",
            "a CPU",
            "real-time",
            releaseNs,
            10 * switchNs,
            10 * lockNs,
            switchNs,
            lockNs,
            handoffNs,
            10 * orbCallNs,
            orbCallNs,
            0,
            0,
            0,
            0);
    return new Platform.Hardware(
        "lab",
        1,
        BigDecimal.ONE,
        Optional.of(
            new Platform.PlatformFile("lab.platform.json", HERE, Optional.of(overheads), "")));
  }

  private static NodePlan analyse(
      Platform.Strategy strategy, Platform.Hardware hardware, Tmos.Spm... spms) {
    return analyse(strategy, hardware, List.of(), spms);
  }

  private static NodePlan analyse(
      Platform.Strategy strategy,
      Platform.Hardware hardware,
      List<Tmos.Svm> svms,
      Tmos.Spm... spms) {
    final List<Tmos.Segment> segments =
        List.of(spms).stream()
            .flatMap(s -> s.uses().stream())
            .map(Tmos.SegmentAccess::segment)
            .distinct()
            .map(name -> new Tmos.Segment(name, List.of(), HERE))
            .toList();
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(), "T", List.of(), segments, List.of(spms), svms, List.of(), List.of(), HERE);
    return SchedulingAnalysis.analyse(
        new Platform.Node(
            "n",
            Platform.OperatingSystem.LINUX,
            strategy,
            hardware,
            null,
            List.of(new Platform.Deployment("t", tmo, HERE)),
            HERE));
  }

  private static TaskReport task(NodePlan report, String method) {
    return report.tasks().stream().filter(t -> t.method().equals(method)).findFirst().orElseThrow();
  }

  /**
   * Burns and Wellings §11.6's set a (7, 3), b (12, 3), c (20, 5) is schedulable on an ideal
   * processor, c exactly at its deadline (R = 3, 6, 20). With 100 us release lateness and 50 us
   * context switches (C' = 3.1, 3.1, 5.1 ms): a = 0.1 + 3.1 = 3.2 ms; b: w = 3.1 + ⌈(w + 0.1)/7⌉
   * 3.1 = 6.2, R = 6.3 ms; c: w = 5.1 + ⌈(w + 0.1)/7⌉ 3.1 + ⌈(w + 0.1)/12⌉ 3.1 goes 11.3, 14.4,
   * 20.6 > 20: c misses.
   */
  @Test
  void overheadsTurnAnExactlySchedulableSetIntoAMiss() {
    final Tmos.Spm a = spm("a", 3, 7, List.of());
    final Tmos.Spm b = spm("b", 3, 12, List.of());
    final Tmos.Spm c = spm("c", 5, 20, List.of());

    final NodePlan ideal = analyse(Platform.Strategy.RMS, Platform.REFERENCE, a, b, c);
    assertEquals(20 * MS, task(ideal, "c").responseTimeNs());
    assertTrue(ideal.schedulable());

    final NodePlan real = analyse(Platform.Strategy.RMS, measured(100 * US, 50 * US, 0), a, b, c);
    assertEquals(3_200 * US, task(real, "a").responseTimeNs());
    assertEquals(6_300 * US, task(real, "b").responseTimeNs());
    assertFalse(task(real, "c").schedulable());
    assertFalse(real.schedulable());
    // The report keeps the declared WCETs: the generated tables and the runtime use those.
    assertEquals(3 * MS, task(real, "a").wcetNs());
  }

  /**
   * A segment lock per segment used, also in the blocking term: fast (10, 1) and slow (100, 3)
   * share `data`, middle (50, 1) does not; a lock costs 10 us. fast: 1.01 + blocking by slow's 3.01
   * = 4.02 ms; middle: 1 + 3.01 + 1.01 = 5.02 ms (ideal: 4 and 5).
   */
  @Test
  void everySegmentUsedCostsALockAlsoToTheMethodsItBlocks() {
    final NodePlan report =
        analyse(
            Platform.Strategy.RMS,
            measured(0, 0, 10 * US),
            spm("fast", 1, 10, List.of("data")),
            spm("slow", 3, 100, List.of("data")),
            spm("middle", 1, 50, List.of()));
    assertEquals(4_020 * US, task(report, "fast").responseTimeNs());
    assertEquals(5_020 * US, task(report, "middle").responseTimeNs());
  }

  /**
   * EDF with implicit deadlines holds exactly while U <= 1: {(4, 2), (6, 3)} has U = 1. Two context
   * switches of 5 us per job push U above 1, and the demand over the hyperperiod (12 ms: 3 jobs of
   * 2.01 and 2 of 3.01 = 12.05 ms) exceeds it.
   */
  @Test
  void overheadsEnterTheEdfDemandTest() {
    final Tmos.Spm x = spm("x", 2, 4, List.of());
    final Tmos.Spm y = spm("y", 3, 6, List.of());
    assertTrue(analyse(Platform.Strategy.EDF, Platform.REFERENCE, x, y).schedulable());
    assertFalse(analyse(Platform.Strategy.EDF, measured(0, 5 * US, 0), x, y).schedulable());
  }

  /**
   * The release table plays releases on time, so it cannot pass what late releases break. The same
   * set with 100 us of release lateness: each job has D - J = 3.9 ms and 5.9 ms after its release,
   * and by t = 11.9 ms three jobs of x and two of y (12 ms) are due.
   */
  @Test
  void releaseLatenessUnderEdfIsJudgedByTheDemandTest() {
    final Tmos.Spm x = spm("x", 2, 4, List.of());
    final Tmos.Spm y = spm("y", 3, 6, List.of());
    for (Platform.Strategy strategy : List.of(Platform.Strategy.EDF, Platform.Strategy.NP_EDF)) {
      final NodePlan late = analyse(strategy, measured(100 * US, 0, 0), x, y);
      assertFalse(late.schedulable(), strategy.keyword());
    }
    final NodePlan late = analyse(Platform.Strategy.EDF, measured(100 * US, 0, 0), x, y);
    assertTrue(
        late.notes().contains(new Finding.EdfDemandExceeded(11_900 * US, true)),
        late.notes().toString());
  }

  /**
   * A service method get (max-rate 100 Hz: T = 10 ms, C = 1 ms, GCT 10 ms) above an SpM low (T = 20
   * ms, C = 3 ms), on a platform with a 7 ms dispatch handoff (a stalled machine's, to cross a
   * period) and 50 us per ORB call. get handles one message: C' = 1.05 ms, and its response from
   * the request's arrival is the handoff and that, 8.05 ms. Its requests may start up to 7 ms late,
   * so low sees two of them: w = 3 + ⌈(w + 7)/10⌉ 1.05 goes 4.05, 5.1 and stays (4.05 ms on an
   * ideal processor, where one request fits).
   */
  @Test
  void aServiceRequestWaitsForTheHandoffAndPaysForItsMessage() {
    final Tmos.Svm get =
        new Tmos.Svm(
            "get",
            10 * MS,
            MS,
            Tmos.Criticality.HARD,
            0,
            10 * MS,
            List.of(),
            Optional.empty(),
            HERE);
    final Tmos.Spm low = spm("low", 3, 20, List.of());

    final NodePlan ideal = analyse(Platform.Strategy.RMS, Platform.REFERENCE, List.of(get), low);
    assertEquals(MS, task(ideal, "get").responseTimeNs());
    assertEquals(4 * MS, task(ideal, "low").responseTimeNs());

    final NodePlan real =
        analyse(Platform.Strategy.RMS, measuredService(7 * MS, 50 * US), List.of(get), low);
    assertEquals(8_050 * US, task(real, "get").responseTimeNs());
    assertEquals(5_100 * US, task(real, "low").responseTimeNs());
    assertTrue(real.schedulable());
  }

  @Test
  void everyCallThroughAGateAndEveryRequestServedCostsAnOrbCall() {
    assertEquals(0, PlatformOverheads.messages(false, 0));
    assertEquals(2, PlatformOverheads.messages(false, 2));
    assertEquals(3, PlatformOverheads.messages(true, 2));
    assertEquals(
        3 * MS + 2 * 7 + 4 * 5 + 3 * 11,
        new PlatformOverheads(1, 7, 5, 0, 11, 0).chargedNs(3 * MS, 4, 3));
  }

  @Test
  void withoutAPlatformFileNothingIsCharged() {
    final Platform.Node node =
        new Platform.Node(
            "n",
            Platform.OperatingSystem.LINUX,
            Platform.Strategy.RMS,
            Platform.REFERENCE,
            null,
            List.of(),
            HERE);
    assertEquals(PlatformOverheads.NONE, PlatformOverheads.of(node));
    assertEquals(3 * MS, PlatformOverheads.NONE.chargedNs(3 * MS, 4, 0));
    assertEquals(
        3 * MS + 2 * 7 + 4 * 5, new PlatformOverheads(1, 7, 5, 0, 0, 0).chargedNs(3 * MS, 4, 0));
  }

  @Test
  void aNodeWhoseCallsRunTlsIsChargedTheCallUnderTls() {
    final Platform.Overheads clearAndTls =
        new Platform.Overheads(
            "2026-12-02T00:00:00Z",
            "kairos-probe",
            "a CPU",
            "real-time",
            0,
            0,
            0,
            0,
            0,
            0,
            20_000,
            10_000,
            0,
            0,
            50_000,
            25_000);
    final Platform.Hardware hardware =
        new Platform.Hardware(
            "lab",
            1,
            BigDecimal.ONE,
            Optional.of(
                new Platform.PlatformFile(
                    "lab.platform.json", HERE, Optional.of(clearAndTls), "")));
    final java.util.function.BiFunction<String, String, Platform.Node> node =
        (name, endpoint) ->
            new Platform.Node(
                name,
                Platform.OperatingSystem.LINUX,
                Platform.Strategy.RMS,
                hardware,
                endpoint,
                List.of(),
                HERE);
    final SystemModel system =
        new SystemModel(
                "m",
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(
                    node.apply("secured", "tcp:127.0.0.1:7001"),
                    node.apply("open", "tcp:127.0.0.1:7002"),
                    node.apply("local", "uds:/tmp/local")),
                List.of(
                    new Platform.Network("lan", 0, 0, 0, List.of("secured", "local"), true, HERE),
                    new Platform.Network("shop", 0, 0, 0, List.of("open"), false, HERE)),
                List.of())
            .withAuthenticatedCallsCharged();
    final java.util.Map<String, Long> charged = new java.util.HashMap<>();
    system.nodes().forEach(n -> charged.put(n.name(), PlatformOverheads.of(n).orbCallNs()));
    assertEquals(java.util.Map.of("secured", 25_000L, "open", 10_000L, "local", 10_000L), charged);
  }
}
