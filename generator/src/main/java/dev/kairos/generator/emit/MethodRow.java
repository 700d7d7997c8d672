package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.timing.TaskReport;
import java.util.ArrayList;
import java.util.List;

/**
 * One method row of a node's schedule, in the order of the schedule's tables (ScheduleEmitter
 * writes them by the same loops: every SpM of every deployment, in deployment order and the TMO's
 * own order, then every SvM likewise). Two parts must number the rows alike, and both take them
 * from here: the node program, which adds them to its engine by table index, and the ORB's routes,
 * which name the lanes the engine numbers in that order on a preemptive EDF node.
 */
record MethodRow(Deployment deployment, String method, TaskReport.Kind kind) {

  /** The node's rows of {@code kind}, in table order. */
  static List<MethodRow> of(Node node, TaskReport.Kind kind) {
    final List<MethodRow> rows = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      final List<String> methods =
          kind == TaskReport.Kind.SPM
              ? deployment.tmo().spms().stream().map(Spm::name).toList()
              : deployment.tmo().svms().stream().map(Svm::name).toList();
      for (String method : methods) {
        rows.add(new MethodRow(deployment, method, kind));
      }
    }
    return rows;
  }

  /** Every row of the node, in the order the node program adds them: SpMs, then SvMs. */
  static List<MethodRow> of(Node node) {
    final List<MethodRow> rows = new ArrayList<>(of(node, TaskReport.Kind.SPM));
    rows.addAll(of(node, TaskReport.Kind.SVM));
    return rows;
  }
}
