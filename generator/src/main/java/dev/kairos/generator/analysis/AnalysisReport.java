package dev.kairos.generator.analysis;

import java.util.List;

/** Verdicts for every node of a system and for every remote call between them. */
public record AnalysisReport(List<NodeReport> nodes, List<EndToEndAnalysis.GateReport> gates) {
  public boolean schedulable() {
    return nodes.stream().allMatch(NodeReport::schedulable)
        && gates.stream().allMatch(EndToEndAnalysis.GateReport::meets);
  }
}
