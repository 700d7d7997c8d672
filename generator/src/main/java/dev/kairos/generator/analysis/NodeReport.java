package dev.kairos.generator.analysis;

import dev.kairos.generator.ir.Platform.Node;
import java.util.List;

/**
 * The verdict for one node: its tasks in priority order, whether every deadline holds, and the
 * priority ceiling of every ODS segment (in the node's segment-table order).
 */
public record NodeReport(
    Node node,
    List<TaskReport> tasks,
    double utilization,
    double liuLaylandBound,
    boolean schedulable,
    List<String> notes,
    List<SegmentCeiling> segments,
    ReleaseTableAnalysis.Table releaseTable,
    List<BccWindow> bccWindows,
    StaticReleaseTable.Table staticReleases) {

  /**
   * The room the basic concurrency constraint leaves a service method: the longest free window
   * between the SpMs it conflicts with over their hyperperiod (Long.MAX_VALUE: no conflicts), and
   * every free window of that hyperperiod ({@code hyperperiodNs} 0: no conflicts; -1: too long to
   * unroll).
   */
  public record BccWindow(
      String instance,
      String svm,
      long longestFreeNs,
      long gctNs,
      long hyperperiodNs,
      List<dev.kairos.dsl.timing.BusyIntervals.Window> freeWindows) {
    public boolean fits() {
      return longestFreeNs >= gctNs;
    }
  }

  /** An ODS segment of a deployed TMO and the highest band of the methods that use it. */
  public record SegmentCeiling(String instance, String segment, int ceiling) {}

  /** Index of a segment in the node's table, or -1. */
  public int segmentIndex(String instance, String segment) {
    for (int i = 0; i < segments.size(); i++) {
      if (segments.get(i).instance().equals(instance)
          && segments.get(i).segment().equals(segment)) {
        return i;
      }
    }
    return -1;
  }
}
