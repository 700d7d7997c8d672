package dev.kairos.generator.analysis;

import dev.kairos.generator.ir.Platform.Node;
import java.util.List;

/** The verdict for one node: its tasks in priority order and whether every deadline holds. */
public record NodeReport(
    Node node,
    List<TaskReport> tasks,
    double utilization,
    double liuLaylandBound,
    boolean schedulable,
    List<String> notes) {}
