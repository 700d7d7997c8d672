package dev.kairos.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.TypeUse;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The holistic analysis on a system small enough to follow by hand, in the shape of Tindell and
 * Clark's transactions ("Holistic schedulability analysis for distributed hard real-time systems",
 * Microprocessing and Microprogramming 40, 1994): a periodic task on one processor sends over a
 * shared network to a task on another, whose release jitter raises the interference it causes on
 * lower-priority work there, with the gate waits, replies and sampling readers of Kairos's model.
 * Every expected figure is derived in the comments from the formulae of docs/analysis.md; a
 * published example is checked through `kairos check` in {@code PublishedHolisticExampleTest}.
 *
 * <pre>
 * node a (RMS):  client.hi     SpM  T 5 ms,  C 1 ms, window [0, 1 ms], deadline 5 ms
 *                client.sense  SpM  T 20 ms, C 1 ms, window [0, 2 ms], deadline 20 ms,
 *                              calls gate fetch (-> Server.get, deadline 13 ms), publishes status
 * node b (RMS):  server.get    SvM  max-rate 50 Hz (T 20 ms), C 1 ms, GCT 4 ms
 *                worker.crunch SpM  T 40 ms, C 12 ms, window [0, 20 ms], deadline 40 ms, reads status
 * network lan:   latency 1 ms, jitter 500 us, 256 kbit/s, connects a and b
 * channel status: uint32 (4 bytes), validity 60 ms
 * </pre>
 *
 * Frames: a call to a method of no interface operation has empty bodies, so a request or a reply is
 * its 32-byte header, 256 bits, 1 ms on the link; a sample is 4 + 32 bytes, 288 bits, 1125 us.
 */
class HolisticAnalysisTest {
  private static final long US = 1_000L;
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("holistic.tmo", 1);

  private static Tmos.Spm spm(
      String name,
      long periodMs,
      long windowCloseMs,
      long deadlineMs,
      long wcetMs,
      List<String> calls,
      List<Tmos.ChannelUse> channels) {
    return new Tmos.Spm(
        name,
        0,
        Tmos.FOREVER,
        periodMs * MS,
        0,
        windowCloseMs * MS,
        deadlineMs * MS,
        wcetMs * MS,
        Tmos.Criticality.HARD,
        0,
        List.of(),
        calls,
        channels,
        HERE);
  }

  private static Tmos.TmoClass tmo(
      String name,
      List<Tmos.Spm> spms,
      List<Tmos.Svm> svms,
      List<Tmos.Gate> gates,
      List<Tmos.Channel> channels) {
    return new Tmos.TmoClass(
        List.of("demo"), name, List.of(), List.of(), spms, svms, gates, channels, HERE);
  }

  /** A simulated RMS node of the reference hardware (ServiceRatesTest builds its nodes so too). */
  static Platform.Node node(String name, Platform.Deployment... deployments) {
    return new Platform.Node(
        name,
        Platform.OperatingSystem.SIM,
        Platform.Strategy.RMS,
        Platform.REFERENCE,
        null,
        List.of(deployments),
        HERE);
  }

  private static final Tmos.Channel STATUS =
      new Tmos.Channel(
          "status",
          new TypeUse.Primitive(TypeUse.PrimitiveKind.UINT32),
          Tmos.Reliability.BEST_EFFORT,
          1,
          60 * MS,
          1,
          HERE);

  /** A TMO of one SpM that uses the status channel as {@code access}. */
  private static Tmos.TmoClass statusTmo(
      String name,
      String method,
      long periodMs,
      long windowCloseMs,
      long deadlineMs,
      long wcetMs,
      Tmos.ChannelAccess access) {
    return tmo(
        name,
        List.of(
            spm(
                method,
                periodMs,
                windowCloseMs,
                deadlineMs,
                wcetMs,
                List.of(),
                List.of(new Tmos.ChannelUse("status", access)))),
        List.of(),
        List.of(),
        List.of(STATUS));
  }

  /** The system above; {@code calls} false leaves the gate uncalled and the channel unpublished. */
  private static SystemModel system(boolean chains) {
    final Tmos.TmoClass client =
        tmo(
            "Client",
            List.of(
                spm("hi", 5, 1, 5, 1, List.of(), List.of()),
                spm(
                    "sense",
                    20,
                    2,
                    20,
                    1,
                    chains ? List.of("fetch") : List.of(),
                    chains
                        ? List.of(new Tmos.ChannelUse("status", Tmos.ChannelAccess.PUBLISH))
                        : List.of())),
            List.of(),
            List.of(new Tmos.Gate("fetch", "demo.Server", "get", false, 13 * MS, HERE)),
            List.of(STATUS));
    final Tmos.TmoClass server =
        tmo(
            "Server",
            List.of(),
            List.of(
                new Tmos.Svm(
                    "get",
                    4 * MS,
                    1 * MS,
                    Tmos.Criticality.HARD,
                    0,
                    20 * MS,
                    List.of(),
                    Optional.empty(),
                    HERE)),
            List.of(),
            List.of());
    final Tmos.TmoClass worker =
        statusTmo("Worker", "crunch", 40, 20, 40, 12, Tmos.ChannelAccess.READ);
    return new SystemModel(
        "holistic",
        List.of(),
        List.of(),
        List.of(),
        List.of(client, server, worker),
        List.of(
            node("a", new Platform.Deployment("client", client, HERE)),
            node(
                "b",
                new Platform.Deployment("server", server, HERE),
                new Platform.Deployment("worker", worker, HERE))),
        List.of(
            new Platform.Network("lan", 1 * MS, 500 * US, 256_000, List.of("a", "b"), true, HERE)),
        List.of());
  }

  private static TaskReport task(TimingPlan report, String name) {
    return report.nodes().stream()
        .flatMap(n -> n.tasks().stream())
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static ChainReport chain(TimingPlan report, String source, String through) {
    return report.chains().stream()
        .filter(c -> c.source().equals(source) && c.name().contains(through))
        .findFirst()
        .orElseThrow();
  }

  private static List<Long> latest(ChainReport chain) {
    return chain.hops().stream().map(ChainReport.Hop::latestNs).toList();
  }

  private static List<Long> earliest(ChainReport chain) {
    return chain.hops().stream().map(ChainReport.Hop::earliestNs).toList();
  }

  /**
   * Node a: sense computes 1 ms and waits up to 13 ms for its call, counted as execution, so C = 1
   * + 13 = 14 ms under hi (T 5, C 1): w = 14 + ceil(w / 5) -> 15, 17, 18, 18: R(sense) = 18 ms. It
   * sends its request by R - 13 = 5 ms after its release (it waits for the reply after the send).
   *
   * <p>The sample: sense may publish it as it completes, after the reply: by 18 ms. Node a's hub,
   * which runs when no lane there is ready, sends it within the longest busy period of a's lanes in
   * which its own work (1 ns here) is done. What they compute, without sense's wait for its reply
   * (a waiting lane is not ready): hi C 1, R 1 (J = 0; its lane is not sense's); sense C 1, R 18 (J
   * = R - C = 17): w = 1 ns + ceil(w / 5) + ceil((w + 17) / 20) from 2 ms + 1 ns -> 1 + 1: 2 ms + 1
   * ns. So it leaves by 20 ms + 1 ns: the sample stream's jitter.
   *
   * <p>The network, pass 1 (no jitter yet): each frame may queue behind one frame of each other
   * stream (w = sum (floor((w + J) / T) + 1) C with w well under the 20 ms periods): a request or a
   * reply 1 ms (the other call frame) + 1125 us (a sample) = 2125 us. Pass 2 takes the jitters pass
   * 1 found: the sample's, 20 ms + 1 ns, lets two of its frames into any window, so a request or a
   * reply waits 1 + 2 x 1.125 = 3.25 ms, then takes 1 ms; a sample still waits 1 + 1 = 2 ms (the
   * calls' jitters, 5 ms and 9.75 ms, leave one frame each), then takes 1125 us. The call: a frame
   * arrives no sooner than the latency and its own transmission after it left: request [1 + 1 = 2
   * ms, 5 + 1.5 + 3.25 + 1 = 10.75 ms]: get's release jitter is 8.75 ms (7.625 ms in pass 1). get
   * (highest band on b, nothing above it) responds in 1 ms: completes by 11.75 ms. Reply [2 + 2 = 4
   * ms, 11.75 + 1.5 + 3.25 + 1 = 17.5 ms]: round trip 17.5 - 5 = 12.5 ms within the gate's 13 ms.
   * sense completes by max(18, 17.5) = 18 ms. Pass 3 finds every figure of pass 2 again: a fixed
   * point.
   *
   * <p>crunch (T 40, C 12, below get) was w = 12 + ceil(w / 20) -> 13 ms without jitter; with get's
   * jitter w = 12 + ceil((w + 8.75) / 20) -> 12, 14, 14: R(crunch) = 14 ms. The sample arrives [1 +
   * 0.625 = 1.625, 20 ms + 1 ns + 1.5 + 2 + 1.125 = 24.625 ms + 1 ns] (at the earliest its 4 bytes
   * with a sample's 16-byte header, 160 bits). Node b's hub hands it to crunch's history within b's
   * busy period: get C 1, J 8.75 ms (its requests' jitter); crunch C 12, J 0 (neither waits): w = 1
   * ns + ceil((w + 8.75) / 20) + 12 ceil(w / 40) from 13 ms + 1 ns -> 2 + 12: 14 ms + 1 ns.
   * Delivered by 38.625 ms + 2 ns; crunch takes it at its next release at most 40 ms later and
   * completes within 14 ms: 92.625 ms + 2 ns. Its age when read: sense publishes every 20 ms, so
   * the newest sample left at most 20 + 20 ms + 1 ns ago and took at most 18.625 ms + 1 ns to reach
   * the history: 58.625 ms + 2 ns, within the channel's validity of 60 ms.
   */
  @Test
  void jitterCrossesTheNetworkAndRaisesInterferenceUntilAFixedPoint() {
    final TimingPlan report = HolisticAnalysis.analyse(system(true));
    assertEquals(18 * MS, task(report, "client.sense").responseTimeNs());
    assertEquals(1 * MS, task(report, "server.get").responseTimeNs());
    assertEquals(14 * MS, task(report, "worker.crunch").responseTimeNs());
    assertEquals(2, report.chains().size());

    final ChainReport call = chain(report, "client.sense", "gate fetch");
    assertEquals("client.sense -[gate fetch]-> server.get", call.name());
    assertEquals(
        List.of(
            ChainReport.HopKind.RELEASE,
            ChainReport.HopKind.SEND,
            ChainReport.HopKind.NETWORK,
            ChainReport.HopKind.SERVE,
            ChainReport.HopKind.NETWORK,
            ChainReport.HopKind.RESUME),
        call.hops().stream().map(ChainReport.Hop::kind).toList());
    assertEquals(List.of(0L, 5 * MS, 10_750 * US, 11_750 * US, 17_500 * US, 18 * MS), latest(call));
    assertEquals(List.of(0L, 0L, 2 * MS, 2 * MS, 4 * MS, 4 * MS), earliest(call));
    final ChainReport.Hop request = call.hops().get(2);
    assertEquals(1 * MS, request.transmissionNs());
    assertEquals(3_250 * US, request.queueingNs());
    assertEquals(8_750 * US, request.jitterNs(), "get's release jitter");
    assertEquals(18 * MS, call.boundNs());
    final ChainReport.Limit roundTrip = call.limits().get(0);
    assertEquals(ChainReport.LimitKind.GATE_DEADLINE, roundTrip.kind());
    assertEquals(12_500 * US, roundTrip.boundNs());
    assertEquals(13 * MS, roundTrip.limitNs());
    assertTrue(call.meets());
    assertTrue(call.hard());

    final ChainReport sample = chain(report, "client.sense", "channel status");
    assertEquals("client.sense -[channel status]-> worker.crunch", sample.name());
    assertEquals(
        List.of(0L, 20 * MS + 1, 24_625 * US + 1, 38_625 * US + 2, 92_625 * US + 2),
        latest(sample));
    assertEquals(1_625 * US, sample.hops().get(2).earliestNs());
    assertEquals(ChainReport.HopKind.DELIVER, sample.hops().get(3).kind());
    final ChainReport.Hop frame = sample.hops().get(2);
    assertEquals(1_125 * US, frame.transmissionNs());
    assertEquals(2 * MS, frame.queueingNs());
    final ChainReport.Limit age = sample.limits().get(0);
    assertEquals(ChainReport.LimitKind.CHANNEL_VALIDITY, age.kind());
    assertEquals(58_625 * US + 2, age.boundNs());
    assertEquals(60 * MS, age.limitNs());
    assertTrue(sample.meets());
    assertTrue(report.schedulable());
  }

  /** Without chains the nodes are analysed once, with no jitter: crunch keeps its 13 ms. */
  @Test
  void withoutChainsNothingChanges() {
    final TimingPlan report = HolisticAnalysis.analyse(system(false));
    assertTrue(report.chains().isEmpty());
    assertEquals(TimingPlan.Holistic.NONE, report.holistic());
    assertEquals(13 * MS, task(report, "worker.crunch").responseTimeNs());
    final NodePlan alone = SchedulingAnalysis.analyse(system(false).nodes().get(1));
    assertEquals(alone.tasks(), report.nodes().get(1).tasks());
  }

  /**
   * A reader faster than its publisher takes one sample again and again, and every read must find
   * it valid: the age is the publisher's, not the reader's sampling delay. 'slow' publishes every
   * 100 ms (C 1 ms, alone on its node: R 1 ms, its hub waits at most 1 ms and its own 1 ns: sent by
   * 2 ms + 1 ns), 'fast' reads every 10 ms (C 1 ms: R 1 ms). The sample (288 bits, 1125 us on the
   * link, no other frame) arrives by 2 + 1 + 0.5 + 1.125 = 4.625 ms (+ 1 ns) and is in the history
   * by 4.625 + 1 = 5.625 ms (+ 2 ns); its network delay 3.625 ms + 1 ns. At 100 + 2 + 3.625 =
   * 105.625 ms (+ 2 ns) old it is past its 60 ms validity and dropped, so 'fast' finds none for
   * about half of each period: the chain fails. (A first read only: 3.625 + 10 + 1 = 14.625 ms,
   * within the validity, which the analysis once reported.)
   */
  /**
   * 'slow' (every 100 ms, C 1 ms) on node a publishes status, 'fast' (every 10 ms, C 1 ms) on node
   * b reads it, over lan; {@code nodeOf} makes each node of its one deployment.
   */
  private static SystemModel sampling(
      BiFunction<String, Platform.Deployment, Platform.Node> nodeOf) {
    final Tmos.TmoClass publisher =
        statusTmo("Slow", "slow", 100, 1, 100, 1, Tmos.ChannelAccess.PUBLISH);
    final Tmos.TmoClass reader = statusTmo("Fast", "fast", 10, 1, 10, 1, Tmos.ChannelAccess.READ);
    return new SystemModel(
        "sampling",
        List.of(),
        List.of(),
        List.of(),
        List.of(publisher, reader),
        List.of(
            nodeOf.apply("a", new Platform.Deployment("slow", publisher, HERE)),
            nodeOf.apply("b", new Platform.Deployment("fast", reader, HERE))),
        List.of(
            new Platform.Network("lan", 1 * MS, 500 * US, 256_000, List.of("a", "b"), true, HERE)),
        List.of());
  }

  @Test
  void aReaderFasterThanItsPublisherFindsTheSampleAsOldAsThePublisherLeftIt() {
    final SystemModel system = sampling((name, deployment) -> node(name, deployment));
    final TimingPlan report = HolisticAnalysis.analyse(system);
    final ChainReport sample = chain(report, "slow.slow", "channel status");
    final ChainReport.Limit age = sample.limits().get(0);
    assertEquals(ChainReport.LimitKind.CHANNEL_VALIDITY, age.kind());
    assertEquals(105_625 * US + 2, age.boundNs());
    assertFalse(age.meets());
    assertFalse(sample.meets());
    assertFalse(report.schedulable());
  }

  /**
   * Between Linux nodes a sample goes through Cyclone DDS, whose own time the probe measured on the
   * reader's hardware (channel transport, p99.9 300 us here, every other figure 0): the delivery
   * and the sample's age grow by it, and by nothing else.
   */
  @Test
  void aSampleBetweenLinuxNodesIsChargedTheReadersChannelTransport() {
    final Platform.Overheads transportOnly =
        new Platform.Overheads(
            "2026-11-28T00:00:00Z",
            "kairos-probe",
            "a CPU",
            "real-time",
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            900 * US,
            300 * US,
            0,
            0);
    final Platform.Hardware probed =
        new Platform.Hardware(
            "lab",
            1,
            BigDecimal.ONE,
            Optional.of(
                new Platform.PlatformFile(
                    "lab.platform.json", HERE, Optional.of(transportOnly), "")));
    final TimingPlan ideal =
        HolisticAnalysis.analyse(sampling((name, deployment) -> linux(name, null, deployment)));
    final TimingPlan charged =
        HolisticAnalysis.analyse(sampling((name, deployment) -> linux(name, probed, deployment)));
    final ChainReport before = chain(ideal, "slow.slow", "channel status");
    final ChainReport after = chain(charged, "slow.slow", "channel status");
    assertEquals(ChainReport.HopKind.DELIVER, after.hops().get(3).kind());
    assertEquals(before.hops().get(2).latestNs(), after.hops().get(2).latestNs(), "the network");
    assertEquals(before.hops().get(3).latestNs() + 300 * US, after.hops().get(3).latestNs());
    assertEquals(
        before.limits().get(0).boundNs() + 300 * US, after.limits().get(0).boundNs(), "the age");
  }

  /** A Linux RMS node of one deployment, on {@code hardware} (null: the reference one). */
  private static Platform.Node linux(
      String name, Platform.Hardware hardware, Platform.Deployment deployment) {
    return new Platform.Node(
        name,
        Platform.OperatingSystem.LINUX,
        Platform.Strategy.RMS,
        hardware == null ? Platform.REFERENCE : hardware,
        null,
        List.of(deployment),
        HERE);
  }

  /**
   * A validity shorter than the sample's worst age (58.625 ms + 2 ns, above) fails the hard chain,
   * and with it the system.
   */
  @Test
  void aSampleOlderThanItsValidityFailsTheChain() {
    final SystemModel base = system(true);
    final Tmos.Channel shortLived =
        new Tmos.Channel(
            STATUS.name(),
            STATUS.type(),
            STATUS.reliability(),
            STATUS.depth(),
            45 * MS,
            STATUS.fanOut(),
            HERE);
    final Tmos.TmoClass client = base.tmos().get(0);
    final Tmos.TmoClass changed =
        new Tmos.TmoClass(
            client.namespace(),
            client.name(),
            client.interfaces(),
            client.segments(),
            client.spms(),
            client.svms(),
            client.gates(),
            List.of(shortLived),
            client.source());
    final SystemModel model =
        new SystemModel(
            base.modelName(),
            base.types(),
            base.constants(),
            base.interfaces(),
            List.of(changed, base.tmos().get(1), base.tmos().get(2)),
            List.of(
                node("a", new Platform.Deployment("client", changed, HERE)), base.nodes().get(1)),
            base.networks(),
            base.systems());
    final TimingPlan report = HolisticAnalysis.analyse(model);
    final ChainReport sample = chain(report, "client.sense", "channel status");
    assertFalse(sample.meets());
    assertEquals(58_625 * US + 2, sample.limits().get(0).boundNs());
    assertFalse(report.schedulable());
    assertTrue(chain(report, "client.sense", "gate fetch").meets());
  }

  /**
   * A gate deadline shorter than the round trip: with 10 ms, sense's response is w = 11 + ceil(w /
   * 5) -> 14 ms and it sends by 4 ms; its sample leaves by 14 + 2 ms + 1 ns, a jitter that lets one
   * sample frame into a call frame's window: each waits 1 + 1.125 = 2.125 ms. The request arrives
   * by 4 + 1.5 + 2.125 + 1 = 8.625 ms, get completes by 9.625 ms, the reply arrives by 9.625 + 1.5
   * + 2.125 + 1 = 14.25 ms: a round trip of 10.25 ms > 10 ms.
   */
  @Test
  void aRoundTripBeyondTheGateDeadlineFailsTheChain() {
    final SystemModel base = system(true);
    final Tmos.TmoClass client = base.tmos().get(0);
    final Tmos.TmoClass changed =
        new Tmos.TmoClass(
            client.namespace(),
            client.name(),
            client.interfaces(),
            client.segments(),
            client.spms(),
            client.svms(),
            List.of(new Tmos.Gate("fetch", "demo.Server", "get", false, 10 * MS, HERE)),
            client.channels(),
            client.source());
    final SystemModel model =
        new SystemModel(
            base.modelName(),
            base.types(),
            base.constants(),
            base.interfaces(),
            List.of(changed, base.tmos().get(1), base.tmos().get(2)),
            List.of(
                node("a", new Platform.Deployment("client", changed, HERE)), base.nodes().get(1)),
            base.networks(),
            base.systems());
    final TimingPlan report = HolisticAnalysis.analyse(model);
    final ChainReport call = chain(report, "client.sense", "gate fetch");
    assertEquals(10_250 * US, call.limits().get(0).boundNs());
    assertFalse(call.meets());
    assertFalse(report.schedulable());
  }

  /**
   * A source whose response grows past its deadline leaves the chain without a bound: sense with a
   * WCET of 6 ms has C = 6 + 13 = 19 ms under hi, w = 19 + ceil(w / 5) -> 19, 23 > 20 ms. The
   * jitter it would pass on has no bound either: the iteration stops at its first pass, every chain
   * is unbounded and the system is not schedulable.
   */
  @Test
  void aHopWithoutABoundStopsTheIteration() {
    final SystemModel base = system(true);
    final Tmos.TmoClass client = base.tmos().get(0);
    final Tmos.TmoClass slower =
        tmo(
            "Client",
            List.of(
                client.spms().get(0),
                spm(
                    "sense",
                    20,
                    2,
                    20,
                    6,
                    List.of("fetch"),
                    List.of(new Tmos.ChannelUse("status", Tmos.ChannelAccess.PUBLISH)))),
            List.of(),
            client.gates(),
            client.channels());
    final SystemModel model =
        new SystemModel(
            base.modelName(),
            base.types(),
            base.constants(),
            base.interfaces(),
            List.of(slower, base.tmos().get(1), base.tmos().get(2)),
            List.of(
                node("a", new Platform.Deployment("client", slower, HERE)), base.nodes().get(1)),
            base.networks(),
            base.systems());
    final TimingPlan report = HolisticAnalysis.analyse(model);
    assertEquals(-1, task(report, "client.sense").responseTimeNs());
    assertFalse(report.holistic().converged());
    assertEquals(1, report.holistic().iterations());
    assertEquals(2, report.chains().size());
    assertTrue(report.chains().stream().allMatch(c -> c.boundNs() == -1 && !c.meets()));
    assertFalse(report.schedulable());
  }
}
