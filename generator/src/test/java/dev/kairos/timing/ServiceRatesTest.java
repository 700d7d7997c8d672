package dev.kairos.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The rates at which the model's methods call a service method, against its max-rate: every method
 * that names a gate in its {@code calls} calls it once per activation, an SpM every period, an SvM
 * at most at its own max-rate; n callers make the requests come up to (n - 1) / max-rate early,
 * which every node analysis counts as release jitter.
 */
class ServiceRatesTest {
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("rates.tmo", 1);

  /** An SpM of period {@code periodMs} (0: one-shot) calling every gate in {@code calls}. */
  private static Tmos.Spm caller(String name, long periodMs, List<String> calls) {
    return new Tmos.Spm(
        name,
        0,
        periodMs > 0 ? Tmos.FOREVER : 0,
        periodMs * MS,
        0,
        MS,
        2 * MS,
        MS / 10,
        Tmos.Criticality.HARD,
        0,
        List.of(),
        calls,
        List.of(),
        HERE);
  }

  /** A service method of max-rate 1 / {@code minInterArrivalMs} (0: none) calling {@code calls}. */
  private static Tmos.Svm service(String name, long minInterArrivalMs, List<String> calls) {
    return new Tmos.Svm(
        name,
        5 * MS,
        MS / 10,
        Tmos.Criticality.HARD,
        0,
        minInterArrivalMs * MS,
        List.of(),
        calls,
        Optional.empty(),
        HERE);
  }

  private static Tmos.Gate gate(String name, String method) {
    return new Tmos.Gate(name, "demo.Server", method, true, 10 * MS, HERE);
  }

  private static Tmos.TmoClass tmo(
      String name, List<Tmos.Spm> spms, List<Tmos.Svm> svms, List<Tmos.Gate> gates) {
    return new Tmos.TmoClass(
        List.of("demo"), name, List.of(), List.of(), spms, svms, gates, List.of(), HERE);
  }

  /** Server (get: 50 Hz; put: no max-rate) on node b, the given client classes on node a. */
  private static SystemModel system(Tmos.TmoClass... clients) {
    final Tmos.TmoClass server =
        tmo(
            "Server",
            List.of(),
            List.of(service("get", 20, List.of()), service("put", 0, List.of())),
            List.of());
    final List<Platform.Deployment> callers = new ArrayList<>();
    for (Tmos.TmoClass client : clients) {
      callers.add(new Platform.Deployment(client.name().toLowerCase(), client, HERE));
    }
    final List<Tmos.TmoClass> classes = new ArrayList<>(List.of(clients));
    classes.add(server);
    return new SystemModel(
        "rates",
        List.of(),
        List.of(),
        List.of(),
        classes,
        List.of(
            HolisticAnalysisTest.node("a", callers.toArray(Platform.Deployment[]::new)),
            HolisticAnalysisTest.node("b", new Platform.Deployment("server", server, HERE))),
        List.of(new Platform.Network("lan", MS / 10, 0, 0, List.of("a", "b"), true, HERE)),
        List.of());
  }

  @Test
  void oneCallerAtMaxRateMeetsItWithoutJitter() {
    final List<ServiceRates.Report> rates =
        ServiceRates.analyse(
            system(tmo("Client", List.of(caller("poll", 20, List.of("g"))), List.of(), gates())));
    assertEquals(1, rates.size());
    final ServiceRates.Report get = rates.get(0);
    assertEquals("server.get", get.callee());
    assertEquals("b", get.node());
    assertEquals(50.0, get.callsPerSecond(), 1e-9);
    assertEquals(0, get.burstJitterNs());
    assertTrue(get.meets());
  }

  @Test
  void callersAddUpExactlyAndBeyond() {
    // 3 callers every 60 ms: exactly 50 Hz, which max-rate 50 Hz allows (a sum in doubles would
    // make it 50.000000000000004); a fourth makes 66.7 Hz.
    final Tmos.TmoClass three =
        tmo(
            "Client",
            List.of(
                caller("a", 60, List.of("g")),
                caller("b", 60, List.of("g")),
                caller("c", 60, List.of("g"))),
            List.of(),
            gates());
    final ServiceRates.Report exact = ServiceRates.analyse(system(three)).get(0);
    assertTrue(exact.meets());
    assertEquals(3, exact.callers().size());
    assertEquals(40 * MS, exact.burstJitterNs()); // (3 - 1) x 20 ms
    final Tmos.TmoClass extra =
        tmo("Extra", List.of(caller("d", 60, List.of("g"))), List.of(), gates());
    final ServiceRates.Report beyond = ServiceRates.analyse(system(three, extra)).get(0);
    assertFalse(beyond.meets());
    assertEquals(1e9 / 15e6, beyond.callsPerSecond(), 1e-6);
  }

  @Test
  void aOneShotCallerAddsNoRateButCanCoincide() {
    final Tmos.TmoClass client =
        tmo(
            "Client",
            List.of(caller("poll", 20, List.of("g")), caller("once", 0, List.of("g"))),
            List.of(),
            gates());
    final ServiceRates.Report get = ServiceRates.analyse(system(client)).get(0);
    assertTrue(get.meets());
    assertEquals(50.0, get.callsPerSecond(), 1e-9);
    assertEquals(20 * MS, get.burstJitterNs());
  }

  @Test
  void aServiceMethodCallsAtItsOwnMaxRateOrWithoutBound() {
    final Tmos.TmoClass slow =
        tmo("Relay", List.of(), List.of(service("relay", 40, List.of("g"))), gates());
    assertTrue(ServiceRates.analyse(system(slow)).get(0).meets());
    final Tmos.TmoClass unbounded =
        tmo("Relay", List.of(), List.of(service("relay", 0, List.of("g"))), gates());
    final ServiceRates.Report get = ServiceRates.analyse(system(unbounded)).get(0);
    assertFalse(get.meets());
    assertEquals(Double.POSITIVE_INFINITY, get.callsPerSecond());
  }

  @Test
  void aServiceMethodWithoutMaxRateIsNotReportedHere() {
    // Its load is unbounded whoever calls it: the node analysis reports that.
    final Tmos.TmoClass client =
        tmo(
            "Client",
            List.of(caller("poll", 1, List.of("p"))),
            List.of(),
            List.of(gate("p", "put")));
    assertTrue(ServiceRates.analyse(system(client)).isEmpty());
  }

  @Test
  void theBurstIsReleaseJitterInTheNodeAnalysis() {
    final Tmos.TmoClass two =
        tmo(
            "Client",
            List.of(caller("a", 40, List.of("g")), caller("b", 40, List.of("g"))),
            List.of(),
            gates());
    final TimingPlan report = HolisticAnalysis.analyse(system(two));
    assertEquals(1, report.rates().size());
    final TaskReport get =
        report.nodes().get(1).tasks().stream()
            .filter(t -> t.method().equals("get"))
            .findFirst()
            .orElseThrow();
    // The chains' jitter of the requests (each caller's send window and the network) plus one
    // period for the second caller.
    assertTrue(get.jitterNs() >= 20 * MS, () -> "jitter " + get.jitterNs());
    assertTrue(report.schedulable());
  }

  private static List<Tmos.Gate> gates() {
    return List.of(gate("g", "get"));
  }
}
