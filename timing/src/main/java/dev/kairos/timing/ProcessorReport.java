package dev.kairos.timing;

import dev.kairos.ir.Platform.Node;
import java.util.List;

/**
 * The verdict for one processor (a single-core node, or one core of a partitioned one): what {@link
 * SchedulingAnalysis} finds for the deployments that share it. A partitioned node's is its cores'
 * joined, built once; a {@link NodePlan} reads it through.
 */
public record ProcessorReport(
    Node node,
    List<TaskReport> tasks,
    double utilization,
    double liuLaylandBound,
    boolean schedulable,
    List<Finding> notes,
    List<NodePlan.SegmentCeiling> segments,
    ReleaseTableAnalysis.Playout playout,
    List<NodePlan.ServiceAdmission> admissions) {}
