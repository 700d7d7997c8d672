package dev.kairos.timing;

import java.util.List;

/**
 * The timing plan of a system, computed once by the analyses and read by every report and emitter:
 * the plan and verdict of every node, of every remote call between them, of every chain that
 * crosses them and of the rates at which service methods are called; {@code holistic} says how the
 * iteration over the nodes ended.
 */
public record TimingPlan(
    List<NodePlan> nodes,
    List<EndToEndAnalysis.GateReport> gates,
    List<ChainReport> chains,
    Holistic holistic,
    List<ServiceRates.Report> rates) {

  /**
   * How the holistic iteration ended: the node analyses it ran ({@code iterations}, 1 when the
   * model has no chain), whether response times and jitters reached a fixed point, and whether
   * every chain of the model was derived ({@code complete}; false past the analysis's limits, when
   * the jitter of the chains left out is missing from the nodes' figures).
   */
  public record Holistic(int iterations, boolean converged, boolean complete) {
    public static final Holistic NONE = new Holistic(1, true, true);
  }

  /** A report without chains. */
  public TimingPlan(List<NodePlan> nodes, List<EndToEndAnalysis.GateReport> gates) {
    this(nodes, gates, List.of(), Holistic.NONE);
  }

  /** A report without service methods that are called at a limited rate. */
  public TimingPlan(
      List<NodePlan> nodes,
      List<EndToEndAnalysis.GateReport> gates,
      List<ChainReport> chains,
      Holistic holistic) {
    this(nodes, gates, chains, holistic, List.of());
  }

  public boolean schedulable() {
    return nodes.stream().allMatch(NodePlan::schedulable)
        && gates.stream().allMatch(EndToEndAnalysis.GateReport::meets)
        && chains.stream().allMatch(c -> c.meets() || !c.hard())
        && holistic.converged()
        && holistic.complete()
        && rates.stream().allMatch(ServiceRates.Report::meets);
  }

  /**
   * The longest a call through {@code gate} may take from its request to its reply, as the node
   * prints it beside the measured calls: the holistic analysis's round trip where a chain passes
   * through the gate (queueing on the network and the callee's response with its requests' jitter),
   * else the network both ways, the serialisation and the callee's response; -1 without a bound.
   */
  public long roundTripBound(EndToEndAnalysis.GateReport gate) {
    final List<Long> holistic =
        chains.stream()
            .flatMap(c -> c.limits().stream())
            .filter(
                l ->
                    l.kind() == ChainReport.LimitKind.GATE_DEADLINE
                        && l.instance().equals(gate.caller())
                        && l.element().equals(gate.gate()))
            .map(ChainReport.Limit::boundNs)
            .toList();
    if (!holistic.isEmpty()) {
      return holistic.contains(-1L)
          ? -1
          : holistic.stream().mapToLong(Long::longValue).max().getAsLong();
    }
    return gate.networkNs() >= 0 && gate.calleeResponseNs() >= 0
        ? gate.networkNs() + gate.serialisationNs() + gate.calleeResponseNs()
        : -1;
  }

  /**
   * The oldest a sample of {@code channel} from another node may be when the hub of node {@code
   * node} hands it to a reader there: the latest {@code deliver} hop of the chains that bring it to
   * a reader on the node (from the publisher's release, which is before its publication); -1 where
   * no chain does, or one has no bound.
   */
  public long deliveryBound(String node, String channel) {
    long bound = -1;
    for (ChainReport chain : chains) {
      final boolean carriesIt =
          chain.limits().stream()
              .anyMatch(
                  l ->
                      l.kind() == ChainReport.LimitKind.CHANNEL_VALIDITY
                          && l.channel().equals(channel));
      if (!carriesIt) {
        continue;
      }
      for (ChainReport.Hop hop : chain.hops()) {
        if (hop.kind() == ChainReport.HopKind.DELIVER && hop.where().equals(node)) {
          if (hop.latestNs() < 0) {
            return -1;
          }
          bound = Math.max(bound, hop.latestNs());
        }
      }
    }
    return bound;
  }
}
