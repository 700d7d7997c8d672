package dev.kairos.timing;

import dev.kairos.ir.Platform.Node;
import java.util.List;

/**
 * The plan of one node, built once and never changed: its processor's verdict (for a partitioned
 * node, its cores' verdicts joined in the node's table order), the release table its time trigger
 * walks, its cores and where each TMO runs.
 */
public record NodePlan(
    Node node,
    ProcessorReport processor,
    ReleaseTable releaseTable,
    List<CorePlan> cores,
    List<Placement> placements) {

  /** Its tasks in priority order. */
  public List<TaskReport> tasks() {
    return processor.tasks();
  }

  public double utilization() {
    return processor.utilization();
  }

  public double liuLaylandBound() {
    return processor.liuLaylandBound();
  }

  /** Whether every deadline of the node holds. */
  public boolean schedulable() {
    return processor.schedulable();
  }

  public List<Finding> notes() {
    return processor.notes();
  }

  /** The priority ceiling of every ODS segment, in the node's segment-table order. */
  public List<SegmentCeiling> segments() {
    return processor.segments();
  }

  /** What became of every activation when the analysis played the release table. */
  public ReleaseTableAnalysis.Playout playout() {
    return processor.playout();
  }

  public List<ServiceAdmission> admissions() {
    return processor.admissions();
  }

  /**
   * One core of the node under partitioned scheduling: the TMOs it runs and their verdict, analysed
   * as a processor of its own.
   */
  public record CorePlan(
      int core,
      List<String> instances,
      double utilization,
      double liuLaylandBound,
      boolean schedulable,
      ReleaseTableAnalysis.Playout playout) {}

  /**
   * Where a TMO runs: the core the model names ({@code byModel}) or the one first-fit decreasing
   * chose; its utilization on the node's hardware.
   */
  public record Placement(String instance, int core, boolean byModel, double utilization) {}

  /** Whether the node has more than one core. */
  public boolean multicore() {
    return cores.size() > 1;
  }

  /**
   * What the basic concurrency constraint costs a service method: whether it conflicts with any
   * SpM, its admission (slot, longest wait, admission windows) and its response from a request's
   * arrival to completion, wait included ({@code -1}: unbounded or never admitted), and the rows of
   * the node's SpM table it conflicts with (bit i: row i, numbered across the node).
   */
  public record ServiceAdmission(
      String instance,
      String svm,
      long gctNs,
      boolean conflicts,
      BccAdmission.Admission admission,
      long responseNs,
      long conflictRows) {
    public boolean fits() {
      return responseNs >= 0 && responseNs <= gctNs;
    }
  }

  /** An ODS segment of a deployed TMO and the highest band of the methods that use it. */
  public record SegmentCeiling(String instance, String segment, int ceiling) {}

  /** Index of a segment in the node's table, or -1. */
  public int segmentIndex(String instance, String segment) {
    for (int i = 0; i < segments().size(); i++) {
      if (segments().get(i).instance().equals(instance)
          && segments().get(i).segment().equals(segment)) {
        return i;
      }
    }
    return -1;
  }
}
