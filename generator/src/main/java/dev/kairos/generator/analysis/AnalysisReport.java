package dev.kairos.generator.analysis;

import java.util.List;

/**
 * Verdicts for every node of a system, for every remote call between them, for every chain that
 * crosses them and for the rates at which service methods are called; {@code holistic} says how the
 * iteration over the nodes ended.
 */
public record AnalysisReport(
    List<NodeReport> nodes,
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
  public AnalysisReport(List<NodeReport> nodes, List<EndToEndAnalysis.GateReport> gates) {
    this(nodes, gates, List.of(), Holistic.NONE);
  }

  /** A report without service methods that are called at a limited rate. */
  public AnalysisReport(
      List<NodeReport> nodes,
      List<EndToEndAnalysis.GateReport> gates,
      List<ChainReport> chains,
      Holistic holistic) {
    this(nodes, gates, chains, holistic, List.of());
  }

  public boolean schedulable() {
    return nodes.stream().allMatch(NodeReport::schedulable)
        && gates.stream().allMatch(EndToEndAnalysis.GateReport::meets)
        && chains.stream().allMatch(c -> c.meets() || !c.hard())
        && holistic.converged()
        && holistic.complete()
        && rates.stream().allMatch(ServiceRates.Report::meets);
  }
}
