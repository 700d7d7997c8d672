package dev.kairos.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SchedulingAnalysisTest {
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("test.tmo", 1);

  static Tmos.Spm spm(String name, long wcetMs, long periodMs) {
    return new Tmos.Spm(
        name,
        0,
        Tmos.FOREVER,
        periodMs * MS,
        0,
        periodMs * MS,
        periodMs * MS,
        wcetMs * MS,
        Tmos.Criticality.HARD,
        0,
        List.of(),
        HERE);
  }

  private static Platform.Node node(BigDecimal speed, Tmos.Spm... spms) {
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(),
            "T",
            List.of(),
            List.of(),
            List.of(spms),
            List.of(),
            List.of(),
            List.of(),
            HERE);
    return new Platform.Node(
        "n",
        Platform.OperatingSystem.LINUX,
        Platform.Strategy.RMS,
        new Platform.Hardware("h", 1, speed),
        null,
        List.of(new Platform.Deployment("t", tmo, HERE)),
        HERE);
  }

  private static long response(NodePlan report, String method) {
    return report.tasks().stream()
        .filter(t -> t.method().equals(method))
        .findFirst()
        .orElseThrow()
        .responseTimeNs();
  }

  /**
   * Buttazzo, Hard Real-Time Computing Systems (3rd ed.), the task set {(1,4),(2,6),(3,10)}: U =
   * 0.983 exceeds the Liu-Layland bound for three tasks (0.780), yet response-time analysis gives R
   * = 1, 3 and 10: every deadline holds, the last one exactly.
   */
  @Test
  void responseTimesOfATaskSetAboveTheLiuLaylandBound() {
    final NodePlan report =
        SchedulingAnalysis.analyse(
            node(BigDecimal.ONE, spm("t1", 1, 4), spm("t2", 2, 6), spm("t3", 3, 10)));
    assertEquals(1 * MS, response(report, "t1"));
    assertEquals(3 * MS, response(report, "t2"));
    assertEquals(10 * MS, response(report, "t3"));
    assertTrue(report.utilization() > report.liuLaylandBound());
    assertEquals(0.7798, report.liuLaylandBound(), 1e-4);
    assertTrue(report.schedulable());
  }

  /**
   * Burns and Wellings, Real-Time Systems and Programming Languages (4th ed.), section 11.6: tasks
   * a (T = 7, C = 3), b (T = 12, C = 3), c (T = 20, C = 5) under rate-monotonic priorities. The
   * utilization (0.929) fails the Liu-Layland test, the recurrence of Joseph and Pandya ("Finding
   * response times in a real-time system", 1986) gives R = 3, 6 and 20: schedulable, c exactly.
   */
  @Test
  void responseTimesOfTheJosephPandyaRecurrence() {
    final NodePlan report =
        SchedulingAnalysis.analyse(
            node(BigDecimal.ONE, spm("a", 3, 7), spm("b", 3, 12), spm("c", 5, 20)));
    assertEquals(3 * MS, response(report, "a"));
    assertEquals(6 * MS, response(report, "b"));
    assertEquals(20 * MS, response(report, "c"));
    assertTrue(report.utilization() > report.liuLaylandBound());
    assertTrue(report.schedulable());
  }

  /**
   * Liu and Layland (1973): a harmonic set is rate-monotonic schedulable up to U = 1. {(1,2),
   * (1,4),(2,8)} has U = 1 and response times 1, 2 and 8.
   */
  @Test
  void aHarmonicSetIsSchedulableAtFullUtilization() {
    final NodePlan report =
        SchedulingAnalysis.analyse(
            node(BigDecimal.ONE, spm("a", 1, 2), spm("b", 1, 4), spm("c", 2, 8)));
    assertEquals(1.0, report.utilization(), 1e-12);
    assertEquals(1 * MS, response(report, "a"));
    assertEquals(2 * MS, response(report, "b"));
    assertEquals(8 * MS, response(report, "c"));
    assertTrue(report.schedulable());
  }

  /**
   * Buttazzo, Hard Real-Time Computing Systems (3rd ed.), chapter 4, the rate-monotonic versus EDF
   * example: tau1 (C = 2, T = 5), tau2 (C = 4, T = 7), U = 0.97. Under RM tau2 misses its deadline
   * at 7 (R2 = 8); EDF schedules the same set.
   */
  @Test
  void rateMonotonicMissesWhatEdfSchedules() {
    final Platform.Node rms = node(BigDecimal.ONE, spm("tau1", 2, 5), spm("tau2", 4, 7));
    final NodePlan underRms = SchedulingAnalysis.analyse(rms);
    assertEquals(2 * MS, response(underRms, "tau1"));
    assertEquals(-1, response(underRms, "tau2"));
    assertFalse(underRms.schedulable());
    final Platform.Node edf =
        new Platform.Node(
            "n", rms.os(), Platform.Strategy.EDF, rms.hardware(), null, rms.deployments(), HERE);
    assertTrue(SchedulingAnalysis.analyse(edf).schedulable());
  }

  /** Liu and Layland: utilization above 1 can never be scheduled. */
  @Test
  void overloadIsNotSchedulable() {
    final NodePlan report =
        SchedulingAnalysis.analyse(node(BigDecimal.ONE, spm("a", 3, 5), spm("b", 3, 5)));
    assertTrue(report.utilization() > 1.0);
    assertFalse(report.schedulable());
    assertEquals(-1, response(report, "b"));
  }

  /** A node at half the reference speed takes twice as long for the same work. */
  @Test
  void wcetsScaleWithTheHardwareSpeed() {
    final NodePlan report =
        SchedulingAnalysis.analyse(node(new BigDecimal("0.5"), spm("a", 2, 10)));
    assertEquals(4 * MS, report.tasks().get(0).wcetNs());
    assertEquals(3 * MS, Resources.scale(3 * MS, BigDecimal.ONE));
    assertEquals(3_333_334, Resources.scale(1 * MS, new BigDecimal("0.3")));
  }

  @Test
  void shorterPeriodsGetHigherBands() {
    final NodePlan report =
        SchedulingAnalysis.analyse(
            node(BigDecimal.ONE, spm("slow", 1, 100), spm("fast", 1, 10), spm("mid", 1, 50)));
    final List<String> order = new ArrayList<>();
    report.tasks().forEach(t -> order.add(t.method()));
    assertEquals(List.of("fast", "mid", "slow"), order);
    assertTrue(report.tasks().get(0).band() > report.tasks().get(1).band());
    assertTrue(report.tasks().get(1).band() > report.tasks().get(2).band());
  }

  @Test
  void serviceMethodsWithoutARateAreReportedNotCounted() {
    final Tmos.Svm unbounded =
        new Tmos.Svm(
            "serve",
            2 * MS,
            1 * MS,
            Tmos.Criticality.SOFT,
            0,
            0,
            List.of(),
            Optional.empty(),
            HERE);
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(),
            "T",
            List.of(),
            List.of(),
            List.of(spm("a", 1, 10)),
            List.of(unbounded),
            List.of(),
            List.of(),
            HERE);
    final Platform.Node n =
        new Platform.Node(
            "n",
            Platform.OperatingSystem.LINUX,
            Platform.Strategy.RMS,
            Platform.REFERENCE,
            null,
            List.of(new Platform.Deployment("t", tmo, HERE)),
            HERE);
    final NodePlan report = SchedulingAnalysis.analyse(n);
    assertEquals(0.1, report.utilization(), 1e-9);
    assertEquals(1, report.notes().size());
    assertTrue(report.schedulable());
  }

  private static Tmos.Spm spm(String name, long wcetMs, long periodMs, Tmos.Criticality c) {
    final Tmos.Spm plain = spm(name, wcetMs, periodMs);
    return new Tmos.Spm(
        plain.name(),
        plain.firstReleaseNs(),
        plain.lastReleaseNs(),
        plain.periodNs(),
        plain.windowOpenNs(),
        plain.windowCloseNs(),
        plain.deadlineNs(),
        plain.wcetNs(),
        c,
        0,
        List.of(),
        HERE);
  }

  private static java.util.Map<String, Integer> bands(Platform.Strategy strategy) {
    final Platform.Node plain =
        node(
            BigDecimal.ONE,
            spm("hardFast", 1, 10, Tmos.Criticality.HARD),
            spm("hardSlow", 1, 40, Tmos.Criticality.HARD),
            spm("softFast", 1, 5, Tmos.Criticality.SOFT));
    final Platform.Node n =
        new Platform.Node(
            "n", plain.os(), strategy, plain.hardware(), null, plain.deployments(), HERE);
    final java.util.Map<String, Integer> result = new java.util.HashMap<>();
    SchedulingAnalysis.analyse(n).tasks().forEach(t -> result.put(t.method(), t.band()));
    return result;
  }

  /** Kokyu: each strategy is a priority assignment (bands) plus a discipline per band. */
  @Test
  void bandsFollowTheStrategy() {
    assertEquals(
        java.util.Map.of("softFast", 3, "hardFast", 2, "hardSlow", 1),
        bands(Platform.Strategy.RMS));
    assertEquals(
        java.util.Map.of("softFast", 1, "hardFast", 1, "hardSlow", 1),
        bands(Platform.Strategy.EDF));
    assertEquals(
        java.util.Map.of("softFast", 1, "hardFast", 1, "hardSlow", 1),
        bands(Platform.Strategy.MLF));
    assertEquals(
        java.util.Map.of("softFast", 1, "hardFast", 2, "hardSlow", 2),
        bands(Platform.Strategy.MUF));
    assertEquals(
        java.util.Map.of("softFast", 1, "hardFast", 3, "hardSlow", 2),
        bands(Platform.Strategy.RMS_MLF));
  }

  /**
   * Under MUF and RMS+MLF the hard set must be feasible on its own; soft methods are reported, not
   * fatal. MLF orders hard and soft methods alike, so there the soft load delays the hard method
   * past its deadline, as it does under RMS and EDF.
   */
  @Test
  void criticalityAwareStrategiesJudgeTheHardSet() {
    final Platform.Node plain =
        node(
            BigDecimal.ONE,
            spm("hard", 6, 10, Tmos.Criticality.HARD),
            spm("soft", 5, 10, Tmos.Criticality.SOFT));
    for (Platform.Strategy strategy : Platform.Strategy.values()) {
      final Platform.Node n =
          new Platform.Node(
              "n", plain.os(), strategy, plain.hardware(), null, plain.deployments(), HERE);
      final NodePlan report = SchedulingAnalysis.analyse(n);
      final boolean protectsHard =
          strategy == Platform.Strategy.MUF || strategy == Platform.Strategy.RMS_MLF;
      assertEquals(protectsHard, report.schedulable(), strategy.name());
    }
  }

  /**
   * Priority-ceiling blocking (Sha, Rajkumar, Lehoczky): a high-rate method sharing a segment with
   * a low-rate one waits at most once for the low one's whole critical section.
   */
  @Test
  void sharedSegmentsAddCeilingBlocking() {
    final List<Tmos.SegmentAccess> shared =
        List.of(new Tmos.SegmentAccess("data", Tmos.Access.WRITE));
    final Tmos.Spm fast = spm("fast", 1, 10);
    final Tmos.Spm slow = spm("slow", 3, 100);
    final Tmos.Spm middle = spm("middle", 1, 50);
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(),
            "T",
            List.of(),
            List.of(new Tmos.Segment("data", List.of(), HERE)),
            List.of(withUses(fast, shared), withUses(slow, shared), middle),
            List.of(),
            List.of(),
            List.of(),
            HERE);
    final Platform.Node n =
        new Platform.Node(
            "n",
            Platform.OperatingSystem.LINUX,
            Platform.Strategy.RMS,
            Platform.REFERENCE,
            null,
            List.of(new Platform.Deployment("t", tmo, HERE)),
            HERE);
    final NodePlan report = SchedulingAnalysis.analyse(n);
    assertEquals(4 * MS, response(report, "fast")); // 1 + blocked by slow's 3
    assertEquals(5 * MS, response(report, "middle")); // 1 + 3 blocking + 1 from fast
    assertEquals(1, report.segments().size());
    assertEquals(3, report.segments().get(0).ceiling()); // the band of 'fast'
  }

  static Tmos.Spm withUses(Tmos.Spm spm, List<Tmos.SegmentAccess> uses) {
    return new Tmos.Spm(
        spm.name(),
        spm.firstReleaseNs(),
        spm.lastReleaseNs(),
        spm.periodNs(),
        spm.windowOpenNs(),
        spm.windowCloseNs(),
        spm.deadlineNs(),
        spm.wcetNs(),
        spm.criticality(),
        spm.importance(),
        uses,
        HERE);
  }

  /**
   * Two SpMs with the same period in different bands: response-time analysis finds both fine, but
   * with their real offsets the low one cannot start inside its 1 ms window while the high one runs
   * for 2 ms from the same instant. Only the release table sees it.
   */
  @Test
  void theReleaseTableChecksStartWindowsWithRealOffsets() {
    final Tmos.Spm high = spm("high", 2, 10);
    final Tmos.Spm low =
        new Tmos.Spm(
            "low",
            0,
            Tmos.FOREVER,
            20 * MS,
            0,
            1 * MS,
            20 * MS,
            1 * MS,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final NodePlan report = SchedulingAnalysis.analyse(node(BigDecimal.ONE, high, low));
    assertTrue(report.playout().unrolled());
    assertEquals(20 * MS, report.playout().hyperperiodNs());
    assertFalse(report.schedulable());
    final ReleaseTableAnalysis.SpmTiming lowTiming =
        report.playout().timings().stream()
            .filter(t -> t.method().equals("low"))
            .findFirst()
            .orElseThrow();
    assertEquals(2 * MS, lowTiming.worstStartLatencyNs());
    assertTrue(lowTiming.windowMisses() > 0);
    // RTA alone would have passed it: 1 + 2 = 3 ms <= 20 ms.
    assertEquals(3 * MS, response(report, "low"));

    // The trace shows the hyperperiod: 'high' runs 0..2 and 10..12, 'low' is never started.
    final ReleaseTableAnalysis.Trace trace = report.playout().trace().orElseThrow();
    assertEquals(ReleaseTableAnalysis.Extent.HYPERPERIOD, trace.extent());
    assertEquals(20 * MS, trace.endNs());
    assertEquals(List.of("high", "low"), trace.spms().stream().map(s -> s.method()).toList());
    final ReleaseTableAnalysis.TracedSpm highTrace = trace.spms().get(0);
    assertEquals(2, highTrace.activations().size());
    assertEquals(
        List.of(new ReleaseTableAnalysis.Execution(10 * MS, 12 * MS)),
        highTrace.activations().get(1).executions());
    final ReleaseTableAnalysis.Activation lowActivation = trace.spms().get(1).activations().get(0);
    assertEquals(ReleaseTableAnalysis.Outcome.WINDOW_MISSED, lowActivation.outcome());
    assertEquals(-1, lowActivation.startNs());
    assertTrue(lowActivation.executions().isEmpty());
  }

  /**
   * Buttazzo's U = 1 example {(2,4),(3,6)}: RMS fails it (R2 = 7 > 6), preemptive EDF passes it
   * (the conformance suite runs it too). Without preemption the release table at the WCETs passes
   * it as well, but it does not judge a non-preemptive set (a job that ends sooner than its WCET
   * may let a later one start where the table has none), and the demand test refuses it: a job of
   * 'b' that started just before a release of 'a' holds the processor for 3 ms of a's 4 (2 + 3 - 1
   * ns > 4 ms at t = 4 ms).
   */
  @Test
  void edfPassesAFullyUtilisedSetThatRmsFails() {
    final Platform.Node rms = node(BigDecimal.ONE, spm("a", 2, 4), spm("b", 3, 6));
    assertFalse(SchedulingAnalysis.analyse(rms).schedulable());
    final NodePlan edf = SchedulingAnalysis.analyse(withStrategy(rms, Platform.Strategy.EDF));
    assertTrue(edf.schedulable(), edf.notes().toString());
    assertEquals(6 * MS, response(edf, "b")); // bounded by its deadline
    final NodePlan nonPreemptive =
        SchedulingAnalysis.analyse(withStrategy(rms, Platform.Strategy.NP_EDF));
    assertFalse(nonPreemptive.schedulable());
    assertEquals(
        List.of(new Finding.EdfDemandExceeded(4 * MS, false)),
        nonPreemptive.notes().stream()
            .filter(n -> n instanceof Finding.EdfDemandExceeded)
            .toList());
  }

  /**
   * {(C = 1, T = 2), (C = 3, T = 8)}, U = 0.875: non-preemptive EDF misses (the long job started at
   * 1 holds the processor past the short job's deadline at 4), preemptive EDF meets every deadline
   * (the conformance suite runs both on the engine).
   */
  @Test
  void preemptiveEdfMeetsWhatNonPreemptiveEdfMisses() {
    final Platform.Node plain = node(BigDecimal.ONE, spm("short", 1, 2), spm("long", 3, 8));
    final NodePlan preemptive =
        SchedulingAnalysis.analyse(withStrategy(plain, Platform.Strategy.EDF));
    assertTrue(preemptive.schedulable(), preemptive.notes().toString());
    final NodePlan nonPreemptive =
        SchedulingAnalysis.analyse(withStrategy(plain, Platform.Strategy.NP_EDF));
    assertFalse(nonPreemptive.schedulable());
    assertTrue(
        nonPreemptive.notes().stream()
            .anyMatch(n -> n instanceof Finding.EdfDemandExceeded e && !e.preemptive()),
        nonPreemptive.notes().toString());
  }

  /**
   * A release table that plays every job at its WCET does not speak for jobs that compute less,
   * unless dispatching is preemptive and no segment is shared (Ha and Liu, ICDCS 1994). Every 10
   * ms: 'a' (2 ms) released at 0, 'long' (3 ms) at 1.6 ms, 'urgent' (1 ms, due 2 ms after its
   * release) at 2 ms. Played at the WCETs without preemption, 'a' runs 0..2, 'urgent' 2..3, 'long'
   * 3..6: all on time. But an 'a' that ends at 1.5 lets 'long' start at 1.6, and 'urgent' waits for
   * it until 4.6, past its deadline at 4. The demand test counts that blocking and refuses the set;
   * preemptive EDF, where 'urgent' preempts, passes it either way. (A segment that 'long' and
   * 'urgent' share does the same under the Stack Resource Policy: the property test plays such
   * sets.)
   */
  @Test
  void aReleaseTableAtTheWcetsDoesNotJudgeNonPreemptiveOrSharedSegmentSets() {
    final long us = 1_000L;
    final Tmos.Spm a =
        new Tmos.Spm(
            "a",
            0,
            Tmos.FOREVER,
            10 * MS,
            0,
            10 * MS,
            10 * MS,
            2 * MS,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final Tmos.Spm longJob =
        new Tmos.Spm(
            "long",
            1600 * us,
            Tmos.FOREVER,
            10 * MS,
            0,
            10 * MS,
            10 * MS,
            3 * MS,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final Tmos.Spm urgent =
        new Tmos.Spm(
            "urgent",
            2 * MS,
            Tmos.FOREVER,
            10 * MS,
            0,
            2 * MS,
            2 * MS,
            1 * MS,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final Platform.Node plain = node(BigDecimal.ONE, a, longJob, urgent);
    final NodePlan nonPreemptive =
        SchedulingAnalysis.analyse(withStrategy(plain, Platform.Strategy.NP_EDF));
    assertFalse(nonPreemptive.schedulable(), nonPreemptive.notes().toString());
    assertTrue(
        nonPreemptive.notes().stream()
            .anyMatch(n -> n instanceof Finding.EdfDemandExceeded e && e.atNs() == 2 * MS),
        nonPreemptive.notes().toString());
    final NodePlan preemptive =
        SchedulingAnalysis.analyse(withStrategy(plain, Platform.Strategy.EDF));
    assertTrue(preemptive.schedulable(), preemptive.notes().toString());
  }

  private static Platform.Node withStrategy(Platform.Node node, Platform.Strategy strategy) {
    return new Platform.Node(
        node.name(), node.os(), strategy, node.hardware(), null, node.deployments(), HERE);
  }

  @Test
  void edfRejectsOverloadAndNonPreemptiveBlocking() {
    assertFalse(
        EdfDemandTest.test(
                List.of(
                    new EdfDemandTest.Load(3 * MS, 4 * MS, 4 * MS),
                    new EdfDemandTest.Load(2 * MS, 4 * MS, 4 * MS)))
            .schedulable());
    // U = 0.55, but a 5 ms job that just started blocks a 2 ms deadline.
    final EdfDemandTest.Verdict blocked =
        EdfDemandTest.test(
            List.of(
                new EdfDemandTest.Load(1 * MS, 10 * MS, 2 * MS),
                new EdfDemandTest.Load(5 * MS, 100 * MS, 100 * MS)));
    assertFalse(blocked.schedulable());
    assertEquals(2 * MS, blocked.failingAtNs());
  }

  /**
   * Preemptive EDF under the Stack Resource Policy (Baruah, RTSS 2006): a job due later blocks only
   * when it holds a segment that a job due by t uses. A (1 ms every 10, due in 2) and B (5 ms every
   * 100, due in 100): preemptive EDF meets A's deadlines whatever B does, unless B shares A's
   * segment, when a B that started 1 ns before A's release holds it: 1 + 5 - 1 ns > 2 ms at t = 2.
   * Sharing with C (1 ms every 50, due in 50) instead costs B's 5 ms at t = 50 only: 5 jobs of A,
   * one of C and B's block are 11 ms - 1 ns <= 50.
   */
  @Test
  void preemptiveEdfBlocksOnlyThroughASharedSegment() {
    final EdfDemandTest.Dispatch preemptive = EdfDemandTest.Dispatch.PREEMPTIVE;
    final EdfDemandTest.Load a = new EdfDemandTest.Load(1 * MS, 10 * MS, 2 * MS, Set.of("s"));
    assertTrue(
        EdfDemandTest.test(
                List.of(a, new EdfDemandTest.Load(5 * MS, 100 * MS, 100 * MS)), preemptive)
            .schedulable());
    final EdfDemandTest.Verdict shared =
        EdfDemandTest.test(
            List.of(a, new EdfDemandTest.Load(5 * MS, 100 * MS, 100 * MS, Set.of("s"))),
            preemptive);
    assertFalse(shared.schedulable());
    assertEquals(2 * MS, shared.failingAtNs());
    final List<EdfDemandTest.Load> elsewhere =
        List.of(
            a,
            new EdfDemandTest.Load(5 * MS, 100 * MS, 100 * MS, Set.of("t")),
            new EdfDemandTest.Load(1 * MS, 50 * MS, 50 * MS, Set.of("t")));
    assertTrue(EdfDemandTest.test(elsewhere, preemptive).schedulable());
    // Without preemption B blocks A whatever it shares.
    assertFalse(EdfDemandTest.test(elsewhere, EdfDemandTest.Dispatch.NON_PREEMPTIVE).schedulable());
  }

  /**
   * A lane runs its activations to completion: under EDF, one preempted by a higher band resumes
   * before a later arrival of its own band, even one with an earlier deadline.
   */
  @Test
  void aPreemptedActivationResumesBeforeItsBand() {
    // Band 1 (EDF inside): 'long' (0..4 ms of work, deadline 20) starts at 0; 'urgent'
    // (released at 1, deadline 6) must wait for it. MUF puts the hard 'interrupt' (1 ms at
    // 2 ms) above both; after it, 'long' resumes, not 'urgent'.
    final Tmos.Spm longOne =
        new Tmos.Spm(
            "long", 0, 0, 0, 0, 0, 20 * MS, 4 * MS, Tmos.Criticality.SOFT, 0, List.of(), HERE);
    final Tmos.Spm urgent =
        new Tmos.Spm(
            "urgent",
            1 * MS,
            1 * MS,
            0,
            0,
            10 * MS,
            6 * MS,
            1 * MS,
            Tmos.Criticality.SOFT,
            0,
            List.of(),
            HERE);
    final Tmos.Spm interrupt =
        new Tmos.Spm(
            "interrupt",
            2 * MS,
            2 * MS,
            0,
            0,
            1 * MS,
            5 * MS,
            1 * MS,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final Platform.Node plain = node(BigDecimal.ONE, longOne, urgent, interrupt);
    final Platform.Node muf =
        new Platform.Node(
            "n",
            plain.os(),
            Platform.Strategy.MUF,
            plain.hardware(),
            null,
            plain.deployments(),
            HERE);
    final NodePlan report = SchedulingAnalysis.analyse(muf);
    final ReleaseTableAnalysis.SpmTiming urgentTiming =
        report.playout().timings().stream()
            .filter(t -> t.method().equals("urgent"))
            .findFirst()
            .orElseThrow();
    // 'long' 0..2, 'interrupt' 2..3, 'long' 3..5, then 'urgent' 5..6: waited 4 ms from 1.
    assertEquals(4 * MS, urgentTiming.worstStartLatencyNs());
    assertEquals(5 * MS, urgentTiming.worstResponseNs());

    // The trace splits 'long' where it was preempted, and only there (not at urgent's arrival).
    final ReleaseTableAnalysis.Trace trace = report.playout().trace().orElseThrow();
    assertEquals(ReleaseTableAnalysis.Extent.ALL_ACTIVATIONS, trace.extent());
    assertEquals(3, trace.activations());
    final java.util.Map<String, ReleaseTableAnalysis.Activation> byName = new java.util.HashMap<>();
    trace.spms().forEach(s -> byName.put(s.method(), s.activations().get(0)));
    assertEquals(
        List.of(
            new ReleaseTableAnalysis.Execution(0, 2 * MS),
            new ReleaseTableAnalysis.Execution(3 * MS, 5 * MS)),
        byName.get("long").executions());
    assertEquals(
        List.of(new ReleaseTableAnalysis.Execution(5 * MS, 6 * MS)),
        byName.get("urgent").executions());
    assertEquals(ReleaseTableAnalysis.Outcome.MET, byName.get("urgent").outcome());
    assertEquals(6 * MS, byName.get("urgent").finishNs());
    assertEquals(20 * MS, trace.endNs()); // the latest deadline, 'long' at 20 ms
  }

  private static Tmos.Spm periodicNs(String name, long wcetNs, long periodNs) {
    return new Tmos.Spm(
        name,
        0,
        Tmos.FOREVER,
        periodNs,
        0,
        periodNs,
        periodNs,
        wcetNs,
        Tmos.Criticality.HARD,
        0,
        List.of(),
        HERE);
  }

  /**
   * Periods whose hyperperiod is beyond 64 bits stay "too long" whatever comes after them (a later,
   * shorter period once turned the overflow back into a small, wrong hyperperiod), and the trace
   * still shows the beginning of the table, bounded.
   */
  @Test
  void aHyperperiodBeyond64BitsIsNotUnrolledAndItsBeginningIsTraced() {
    final NodePlan report =
        SchedulingAnalysis.analyse(
            node(
                BigDecimal.ONE,
                periodicNs("primeA", 1 * MS, 4_294_967_291L),
                periodicNs("primeB", 1 * MS, 4_294_967_279L),
                periodicNs("fast", 1 * MS, 10 * MS)));
    assertFalse(report.playout().unrolled());
    assertEquals(0, report.playout().hyperperiodNs());
    final ReleaseTableAnalysis.Trace trace = report.playout().trace().orElseThrow();
    assertEquals(ReleaseTableAnalysis.Extent.BEGINNING, trace.extent());
    assertTrue(trace.activations() <= ReleaseTableAnalysis.MAX_TRACED_ACTIVATIONS);
    final ReleaseTableAnalysis.TracedSpm fast =
        trace.spms().stream().filter(s -> s.method().equals("fast")).findFirst().orElseThrow();
    // The view ends at the first release beyond the bound; everything before it is drawn.
    assertEquals(trace.endNs(), fast.activations().size() * 10 * MS);
    assertTrue(fast.activations().stream().allMatch(a -> a.releaseNs() < trace.endNs()));
  }

  /** A node with more SpMs than a trace keeps: all are played, the highest bands traced. */
  @Test
  void aTraceKeepsTheSpmsOfHighestPriority() {
    final List<Tmos.Spm> spms = new ArrayList<>();
    for (int i = 0; i < ReleaseTableAnalysis.MAX_TRACED_SPMS + 8; i++) {
      spms.add(spm("m" + i, 0, 100 + i));
    }
    final NodePlan report =
        SchedulingAnalysis.analyse(node(BigDecimal.ONE, spms.toArray(Tmos.Spm[]::new)));
    final ReleaseTableAnalysis.Trace trace = report.playout().trace().orElseThrow();
    assertEquals(ReleaseTableAnalysis.MAX_TRACED_SPMS, trace.spms().size());
    assertEquals(8, trace.untracedSpms());
    assertEquals("m0", trace.spms().get(0).method()); // shortest period, highest band
  }

  @Test
  void aNodeWithoutSpmsHasNoTrace() {
    final NodePlan report = SchedulingAnalysis.analyse(node(BigDecimal.ONE));
    assertTrue(report.playout().trace().isEmpty());
  }

  /** The table the time trigger walks: every start-window opening of one hyperperiod, in order. */
  @Test
  void theReleaseTableListsEveryOpeningOfOneHyperperiod() {
    final Tmos.Spm late =
        new Tmos.Spm(
            "b",
            0,
            Tmos.FOREVER,
            6 * MS,
            1 * MS,
            6 * MS,
            6 * MS,
            2 * MS,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final ReleaseTable table = ReleaseTable.of(node(BigDecimal.ONE, spm("a", 1, 4), late));
    assertEquals(12 * MS, table.hyperperiodNs());
    assertEquals(
        List.of(
            new ReleaseTable.Release(0, 0),
            new ReleaseTable.Release(1 * MS, 1),
            new ReleaseTable.Release(4 * MS, 0),
            new ReleaseTable.Release(7 * MS, 1),
            new ReleaseTable.Release(8 * MS, 0)),
        table.releases());

    // Co-prime periods: far more releases than a table holds; releases come from the AACs.
    final ReleaseTable untabulated =
        ReleaseTable.of(node(BigDecimal.ONE, spm("a", 1, 97), spm("b", 1, 89), spm("c", 1, 83)));
    assertFalse(untabulated.tabulated());
    assertTrue(untabulated.releases().isEmpty());
  }

  /** BCC free windows: the gaps between busy intervals, the last one wrapping. */
  @Test
  void freeWindowsAreTheGapsOfOneHyperperiod() {
    final var free =
        BusyIntervals.freeWindows(
            List.of(
                new BusyIntervals.Periodic(10 * MS, 1 * MS, 3 * MS),
                new BusyIntervals.Periodic(20 * MS, 6 * MS, 2 * MS)));
    assertEquals(20 * MS, free.hyperperiodNs());
    assertEquals(
        List.of(
            new BusyIntervals.Window(4 * MS, 6 * MS),
            new BusyIntervals.Window(8 * MS, 11 * MS),
            new BusyIntervals.Window(14 * MS, 21 * MS)),
        free.windows());
  }

  /**
   * The case a user met: `hold` writes segment s every 100 ms, window (t, t + 10 ms), WCET 1 ms;
   * `get` reads s, GCT 5 ms, WCET 100 us. Once admitted `get` responds within 1.1 ms (its slot);
   * admission is refused from a slot before hold's window until hold finishes (1.1 ms after it
   * opens), so a request may wait 2.2 ms: its response is 3.3 ms, not the 1.1 ms reported before.
   */
  @Test
  void aServiceMethodsResponseIncludesItsWaitForAdmission() {
    final List<Tmos.SegmentAccess> writes = List.of(new Tmos.SegmentAccess("s", Tmos.Access.WRITE));
    final Tmos.Spm hold =
        new Tmos.Spm(
            "hold",
            0,
            Tmos.FOREVER,
            100 * MS,
            0,
            10 * MS,
            90 * MS,
            1 * MS,
            Tmos.Criticality.HARD,
            0,
            writes,
            HERE);
    final Tmos.Svm get =
        new Tmos.Svm(
            "get",
            5 * MS,
            MS / 10,
            Tmos.Criticality.HARD,
            0,
            10 * MS,
            List.of(new Tmos.SegmentAccess("s", Tmos.Access.READ)),
            Optional.empty(),
            HERE);
    final Platform.Node node =
        onNode(
            Platform.Strategy.RMS,
            1,
            new Platform.Deployment("brake", tmo("Brake", List.of(hold), List.of(get)), HERE));
    final NodePlan report = SchedulingAnalysis.analyse(node);
    final NodePlan.ServiceAdmission admission = report.admissions().get(0);
    assertTrue(admission.conflicts());
    assertEquals(1_100_000, admission.admission().slotNs());
    assertEquals(2_200_000, admission.admission().longestWaitNs());
    assertEquals(3_300_000, response(report, "get"));
    // Admitted at once from hold's finish until a slot before its next window.
    assertEquals(
        List.of(new BusyIntervals.Window(1_100_000, 98_900_000)),
        admission.admission().admissionWindows());
    assertTrue(report.schedulable());
  }

  @Test
  void admissionWaitsMergeOverlappingBlockersAndOneShots() {
    // Two periodic blockers whose blocked intervals touch, and a one-shot one inside a gap.
    final var merged =
        BccAdmission.analyse(
            1 * MS,
            List.of(
                new BccAdmission.Blocker(2 * MS, 10 * MS, 1 * MS), // blocks (1, 3]
                new BccAdmission.Blocker(4 * MS, 10 * MS, 2 * MS), // blocks (3, 6]
                new BccAdmission.Blocker(8 * MS, 0, 1 * MS))); // once: (7, 9]
    assertEquals(5 * MS, merged.longestWaitNs());
    assertEquals(10 * MS, merged.cycleNs());
    // A slot plus a response as long as the period leaves no instant to admit: never served.
    final var never =
        BccAdmission.analyse(4 * MS, List.of(new BccAdmission.Blocker(0, 10 * MS, 6 * MS)));
    assertFalse(never.bounded());
    // A conflicting SpM without a bounded response leaves the wait unbounded.
    assertFalse(
        BccAdmission.analyse(MS, List.of(new BccAdmission.Blocker(0, 10 * MS, -1))).bounded());
    assertEquals(0, BccAdmission.analyse(MS, List.of()).longestWaitNs());
  }

  /**
   * Under EDF an SvM shares the SpMs' one band, whose lane does not preempt: a request running when
   * an SpM's start window opens pushes its start, which the release table of SpMs alone missed.
   */
  @Test
  void serviceRequestsCanPushAnSpmOutOfItsStartWindow() {
    final Tmos.Spm narrow =
        new Tmos.Spm(
            "narrow",
            0,
            Tmos.FOREVER,
            5 * MS,
            570_000,
            970_000,
            3_490_000,
            1_460_000,
            Tmos.Criticality.HARD,
            0,
            List.of(),
            HERE);
    final Tmos.Svm slow =
        new Tmos.Svm(
            "slow",
            30 * MS,
            450_000,
            Tmos.Criticality.HARD,
            0,
            100 * MS,
            List.of(),
            Optional.empty(),
            HERE);
    final Platform.Node node =
        onNode(
            Platform.Strategy.EDF,
            1,
            new Platform.Deployment("t", tmo("T", List.of(narrow), List.of(slow)), HERE));
    final NodePlan report = SchedulingAnalysis.analyse(node);
    assertFalse(report.schedulable());
    assertTrue(
        report.notes().stream()
            .anyMatch(n -> n instanceof Finding.ServiceDelay d && d.method().equals("t.narrow")),
        report.notes().toString());
  }

  private static Tmos.TmoClass tmo(String name, List<Tmos.Spm> spms, List<Tmos.Svm> svms) {
    return new Tmos.TmoClass(
        List.of(), name, List.of(), List.of(), spms, svms, List.of(), List.of(), HERE);
  }

  /** A simulated node of the reference speed with this many cores. */
  private static Platform.Node onNode(
      Platform.Strategy strategy, int cores, Platform.Deployment... deployments) {
    return new Platform.Node(
        "n",
        Platform.OperatingSystem.SIM,
        strategy,
        new Platform.Hardware("h", cores, BigDecimal.ONE),
        null,
        List.of(deployments),
        HERE);
  }

  private static Platform.Deployment deployed(String instance, int core, Tmos.Spm... spms) {
    return new Platform.Deployment(
        instance,
        tmo(instance.toUpperCase(java.util.Locale.ROOT), List.of(spms), List.of()),
        core,
        HERE);
  }

  private static Platform.Node multicore(int cores, Platform.Deployment... deployments) {
    return onNode(Platform.Strategy.RMS, cores, deployments);
  }

  /**
   * Two TMOs at 60% each cannot share one processor, and a 4-core node runs them side by side:
   * first-fit decreasing puts the larger first, each on the lowest core where it fits; a TMO the
   * model pins stays where it is; every core is analysed as a processor of its own.
   */
  @Test
  void multicoreNodesArePartitionedFirstFitDecreasing() {
    final int unplaced = Platform.Deployment.UNPLACED;
    final NodePlan single =
        SchedulingAnalysis.analyse(
            multicore(
                1,
                deployed("a", unplaced, spm("run", 6, 10)),
                deployed("b", unplaced, spm("run", 6, 10))));
    assertFalse(single.schedulable());
    assertFalse(single.multicore());

    final NodePlan quad =
        SchedulingAnalysis.analyse(
            multicore(
                4,
                deployed("small", unplaced, spm("tick", 1, 10)),
                deployed("a", unplaced, spm("run", 6, 10)),
                deployed("b", unplaced, spm("run", 7, 10)),
                deployed("pinned", 3, spm("log", 5, 10))));
    assertTrue(quad.schedulable());
    assertEquals(4, quad.cores().size());
    final java.util.Map<String, Integer> coreOf = new java.util.HashMap<>();
    quad.placements().forEach(p -> coreOf.put(p.instance(), p.core()));
    // b (70%) first on core 0, a (60%) on core 1, small (10%) fits on core 0 beside b.
    assertEquals(java.util.Map.of("b", 0, "a", 1, "small", 0, "pinned", 3), coreOf);
    assertTrue(
        quad.placements().stream().allMatch(p -> p.byModel() == p.instance().equals("pinned")));
    assertEquals(List.of("small", "b"), quad.cores().get(0).instances());
    assertTrue(quad.cores().get(2).instances().isEmpty());
    for (TaskReport task : quad.tasks()) {
      assertEquals(coreOf.get(task.instance()), task.core(), task.name());
    }
    // Only a core's own methods interfere: a runs alone (6 ms), b shares core 0 with small.
    final java.util.Map<String, Long> responses = new java.util.HashMap<>();
    quad.tasks().forEach(t -> responses.put(t.name(), t.responseTimeNs()));
    assertEquals(6 * MS, responses.get("a.run"));
    assertEquals(8 * MS, responses.get("b.run"));
    assertEquals(5 * MS, responses.get("pinned.log"));
  }

  @Test
  void aCoreThatCannotHoldItsTmosIsReportedNotHidden() {
    final int unplaced = Platform.Deployment.UNPLACED;
    final NodePlan duo =
        SchedulingAnalysis.analyse(
            multicore(
                2,
                deployed("a", unplaced, spm("run", 6, 10)),
                deployed("b", unplaced, spm("run", 6, 10)),
                deployed("c", unplaced, spm("run", 6, 10))));
    assertFalse(duo.schedulable());
    assertEquals(
        1,
        duo.cores().stream().filter(core -> !core.schedulable()).count(),
        duo.cores().toString());
  }
}
