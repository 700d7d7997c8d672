package dev.kairos.timing;

import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.ChainTopology.Step;
import java.util.List;
import java.util.Map;

/**
 * Holistic end-to-end analysis (Tindell and Clark, "Holistic schedulability analysis for
 * distributed hard real-time systems", Microprocessing and Microprogramming 40, 1994, as MAST
 * implements it): response times along chains that cross nodes, with the release jitter each hop
 * passes on to the next.
 *
 * <p>A chain starts at an SpM (strictly periodic: no jitter of its own) and follows what its
 * activation causes: a request through a gate to a service method on another node, that method's
 * own calls and channel samples, the replies back to each caller; or a sample it publishes, read on
 * another node by a time-triggered SpM, which ends the chain. Each hop has a window of end times
 * from the chain's release: a message leaves between its sender's activation and that activation's
 * response without its own gate waits; it arrives after the network's latency and the transmission
 * of its smallest frame at the earliest and after latency + jitter + its queueing and transmission
 * on the link at the latest (the network is a resource of its own: every network is one shared
 * medium on which the frames of all chains queue, first in first out, each counted as if it went
 * first); a service method completes between its request's arrival and that arrival's latest plus
 * its response on its node. The width of the window in which a service method's requests arrive is
 * its release jitter J, which raises the interference it causes on its node: ceil((w + J) / T)
 * activations in a window w (the response-time analysis of {@link SchedulingAnalysis} with jitter
 * terms; under EDF, its demand as a job with deadline D - J). Best-case execution times are not
 * modelled: every method may finish at once, which keeps the jitter on the safe side.
 *
 * <p>Response times depend on jitters and jitters on response times: the nodes are analysed again
 * with the jitters of the last pass until nothing changes (a fixed point, reached from zero jitter
 * by growing values), or up to {@link #MAX_ITERATIONS} passes, after which the analysis has
 * diverged and the system is not schedulable; so it has too when a hop has no bound (a method
 * without a bounded response), whose jitter then has none either. A model whose chains never cross
 * a node is analysed once, exactly as without this analysis.
 */
public final class HolisticAnalysis {
  /** Passes over the nodes before the iteration counts as diverged. */
  public static final int MAX_ITERATIONS = 64;

  /** Chains derived at most; a model with more reports the first ones. */
  public static final int MAX_CHAINS = 1024;

  /** Hops of calls a chain follows at most (a call path deeper than this is not followed). */
  static final int MAX_DEPTH = 16;

  /**
   * Methods visited at most while deriving chains: call trees that fan out on one node without
   * crossing to another could otherwise take exponential time to walk.
   */
  public static final int MAX_VISITS = 100_000;

  private HolisticAnalysis() {}

  public static TimingPlan analyse(SystemModel system) {
    return analyse(system, SchedulingAnalysis::analyse);
  }

  /**
   * As {@link #analyse(SystemModel)}, with the first pass over the nodes (no jitter) from {@code
   * withoutJitter}: a caller that keeps the reports of nodes that did not change (the language
   * server) gives them here.
   */
  public static TimingPlan analyse(
      SystemModel system, java.util.function.Function<Node, NodePlan> withoutJitter) {
    final ChainTopology topology = new ChainTopology(system);
    final List<List<Step>> paths = topology.chains();
    final List<ServiceRates.Report> rates = ServiceRates.analyse(system);
    final Map<String, Long> bursts = ServiceRates.burstJitter(rates);
    Map<String, Long> serviceJitter = Map.of();
    Map<String, Long> messageJitter = Map.of();
    List<NodePlan> nodes =
        bursts.isEmpty()
            ? system.nodes().stream().map(withoutJitter).toList()
            : analyseNodes(system, bursts);
    if (paths.isEmpty()) {
      return new TimingPlan(
          nodes,
          EndToEndAnalysis.analyse(system, nodes),
          List.of(),
          TimingPlan.Holistic.NONE,
          rates);
    }
    int iteration = 1;
    while (true) {
      final ChainPass pass = new ChainPass(topology, paths, nodes, serviceJitter, messageJitter);
      final List<ChainReport> chains = paths.stream().map(pass::evaluate).toList();
      final boolean settled =
          pass.serviceJitter.equals(serviceJitter) && pass.messageJitter.equals(messageJitter);
      // A hop without a bound passes on a jitter without one: no later pass can settle.
      final boolean unbounded = chains.stream().anyMatch(c -> c.boundNs() < 0);
      if (unbounded) {
        return new TimingPlan(
            nodes,
            EndToEndAnalysis.analyse(system, nodes),
            chains.stream().map(HolisticAnalysis::diverged).toList(),
            new TimingPlan.Holistic(iteration, false, !topology.truncated),
            rates);
      }
      if (settled || iteration >= MAX_ITERATIONS) {
        return new TimingPlan(
            nodes,
            EndToEndAnalysis.analyse(system, nodes),
            settled ? chains : chains.stream().map(HolisticAnalysis::diverged).toList(),
            new TimingPlan.Holistic(iteration, settled, !topology.truncated),
            rates);
      }
      serviceJitter = pass.serviceJitter;
      messageJitter = pass.messageJitter;
      nodes = analyseNodes(system, ServiceRates.withBursts(serviceJitter, bursts));
      iteration++;
    }
  }

  /** Without a fixed point the last pass bounds nothing: no chain is guaranteed. */
  private static ChainReport diverged(ChainReport chain) {
    return new ChainReport(
        chain.name(),
        chain.source(),
        chain.periodNs(),
        chain.hard(),
        chain.hops(),
        -1,
        chain.limits(),
        false,
        chain.sourceRef());
  }

  private static List<NodePlan> analyseNodes(SystemModel system, Map<String, Long> jitter) {
    return system.nodes().stream().map(node -> SchedulingAnalysis.analyse(node, jitter)).toList();
  }
}
