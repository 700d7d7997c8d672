package dev.kairos.generator.analysis;

import java.util.List;

/** Verdicts for every node of a system. */
public record AnalysisReport(List<NodeReport> nodes) {
  public boolean schedulable() {
    return nodes.stream().allMatch(NodeReport::schedulable);
  }
}
