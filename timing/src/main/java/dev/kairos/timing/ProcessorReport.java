package dev.kairos.timing;

import dev.kairos.ir.Platform.Node;
import java.util.List;

/**
 * The verdict for one processor (a single-core node, or one core of a partitioned one), on the way
 * to its node's report: what {@link SchedulingAnalysis} finds for the deployments that share it. A
 * node's {@link NodeReport} is built once from its processors' reports, never rebuilt.
 */
record ProcessorReport(
    Node node,
    List<TaskReport> tasks,
    double utilization,
    double liuLaylandBound,
    boolean schedulable,
    List<Finding> notes,
    List<NodeReport.SegmentCeiling> segments,
    ReleaseTableAnalysis.Table releaseTable,
    List<NodeReport.ServiceAdmission> admissions) {}
