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
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two single-core RMS nodes, each schedulable alone, on a host with one CPU for both and with two.
 * On one CPU their bands take host bands of their own, found from the lowest up (Audsley's
 * assignment, each node's bands in their order):
 *
 * <pre>
 * node a: fast  T 10 ms, C 3 ms   band 2   alone: 3 ms    host band 2: 3 + 6 = 9 ms
 *         slow  T 40 ms, C 10 ms  band 1   alone: 16 ms   host band 1: 10 + 4 x 3 + 2 x 6 = 34 ms
 * node b: tick  T 20 ms, C 6 ms   band 1   alone: 6 ms    host band 3: 6 ms
 * </pre>
 *
 * Host band 1: slow fits there under all the rest (34 ms within 40). Host band 2: fast fits under
 * tick (9 ms within 10). With the nodes' bands merged as they are, tick would share band 1 with
 * slow and take 6 + 3 x 3 + 10 = 25 ms, past its 20 ms deadline. No platform file: an ideal
 * processor, no overheads, no release jitter.
 */
class DeployedAnalysisTest {
  private static final long MS = 1_000_000L;
  private static final SourceRef HERE = new SourceRef("deployed.tmo", 1);

  private static Tmos.Spm spm(String name, long wcetMs, long periodMs) {
    return SchedulingAnalysisTest.spm(name, wcetMs, periodMs);
  }

  private static Platform.Node node(String name, int cores, Tmos.Spm... spms) {
    final Tmos.TmoClass tmo =
        new Tmos.TmoClass(
            List.of(),
            name.toUpperCase(java.util.Locale.ROOT),
            List.of(),
            List.of(),
            List.of(spms),
            List.of(),
            List.of(),
            List.of(),
            HERE);
    return new Platform.Node(
        name,
        Platform.OperatingSystem.LINUX,
        Platform.Strategy.RMS,
        new Platform.Hardware("h", cores, BigDecimal.ONE),
        null,
        List.of(new Platform.Deployment(name + "obj", tmo, HERE)),
        HERE);
  }

  private static final Platform.Node A = node("a", 1, spm("fast", 3, 10), spm("slow", 10, 40));
  private static final Platform.Node B = node("b", 1, spm("tick", 6, 20));

  private static SystemModel system(Platform.Node... nodes) {
    return new SystemModel(
        "deployed",
        List.of(),
        List.of(),
        List.of(),
        List.of(nodes).stream().flatMap(n -> n.deployments().stream()).map(d -> d.tmo()).toList(),
        List.of(nodes),
        List.of(),
        List.of());
  }

  private static TimingPlan plan(Platform.Node... nodes) {
    return new TimingPlan(
        List.of(nodes).stream().map(SchedulingAnalysis::analyse).toList(), List.of());
  }

  private static DeployedAnalysis.DeployedTask task(
      DeployedAnalysis.AsDeployed deployment, String node, String method) {
    return deployment.tasks().stream()
        .filter(t -> t.node().equals(node) && t.task().method().equals(method))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void eachAloneBothSchedulable() {
    final TimingPlan plan = plan(A, B);
    assertTrue(plan.schedulable());
    assertEquals(16 * MS, plan.nodes().get(0).tasks().get(1).responseTimeNs());
  }

  @Test
  void twoCpusGiveEachNodeItsOwnAndTheBoundsOfItsAnalysis() {
    final TimingPlan plan = plan(A, B);
    final Map<DeployedAnalysis.NodeCore, Integer> cpus =
        DeployedAnalysis.place(plan.nodes(), 2).orElseThrow();
    assertEquals(0, cpus.get(new DeployedAnalysis.NodeCore("a", 0)));
    assertEquals(1, cpus.get(new DeployedAnalysis.NodeCore("b", 0)));
    final DeployedAnalysis.AsDeployed deployment =
        DeployedAnalysis.analyse(system(A, B), plan, cpus);
    assertFalse(deployment.sharesCpus());
    assertTrue(deployment.schedulable());
    assertEquals(16 * MS, task(deployment, "a", "slow").boundNs());
    assertEquals(6 * MS, task(deployment, "b", "tick").boundNs());
    assertEquals(1, task(deployment, "b", "tick").cpu());
  }

  @Test
  void oneCpuRanksBothNodesBandsInOneOrderThatKeepsEveryDeadline() {
    final TimingPlan plan = plan(A, B);
    final Map<DeployedAnalysis.NodeCore, Integer> cpus =
        DeployedAnalysis.place(plan.nodes(), 1).orElseThrow();
    final DeployedAnalysis.AsDeployed deployment =
        DeployedAnalysis.analyse(system(A, B), plan, cpus);
    assertTrue(deployment.sharesCpus());
    assertTrue(deployment.schedulable());
    assertEquals(
        List.of(
            new DeployedAnalysis.HostBand("a", 0, 1, 1),
            new DeployedAnalysis.HostBand("a", 0, 2, 2),
            new DeployedAnalysis.HostBand("b", 0, 1, 3)),
        deployment.hostBands());
    assertEquals(9 * MS, task(deployment, "a", "fast").boundNs());
    assertEquals(34 * MS, task(deployment, "a", "slow").boundNs());
    assertEquals(6 * MS, task(deployment, "b", "tick").boundNs());
    assertEquals(1, deployment.cpus().size());
    assertEquals(0.3 + 0.25 + 0.3, deployment.cpus().get(0).utilization(), 1e-9);
  }

  @Test
  void whereNoOrderKeepsEveryDeadlineTheBandsAreMergedAsTheyAreAndTheMissesSaid() {
    // b now computes 8 ms of every 10: 135% of the CPU, no order keeps every deadline.
    final Platform.Node busy = node("b", 1, spm("tick", 8, 10));
    final TimingPlan plan = plan(A, busy);
    final DeployedAnalysis.AsDeployed deployment =
        DeployedAnalysis.analyse(
            system(A, busy), plan, DeployedAnalysis.place(plan.nodes(), 1).orElseThrow());
    assertFalse(deployment.schedulable());
    assertTrue(deployment.hostBands().isEmpty());
    // As merged: fast alone at the top band keeps its 3 ms; slow and tick share band 1 and miss.
    assertTrue(task(deployment, "a", "fast").meets());
    assertFalse(task(deployment, "a", "slow").meets());
    assertFalse(task(deployment, "b", "tick").meets());
  }

  @Test
  void aNodeWithMoreCoresThanTheHostHasCpusCannotBePlaced() {
    final Platform.Node wide = node("w", 2, spm("x", 1, 10));
    assertTrue(DeployedAnalysis.place(plan(wide).nodes(), 1).isEmpty());
    final Map<DeployedAnalysis.NodeCore, Integer> cpus =
        DeployedAnalysis.place(plan(wide, A).nodes(), 2).orElseThrow();
    assertEquals(0, cpus.get(new DeployedAnalysis.NodeCore("w", 0)));
    assertEquals(1, cpus.get(new DeployedAnalysis.NodeCore("w", 1)));
    // a joins the CPU whose core of w has less to do: w's core 1 runs nothing.
    assertEquals(1, cpus.get(new DeployedAnalysis.NodeCore("a", 0)));
  }
}
