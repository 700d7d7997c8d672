package dev.kairos.generator.emit;

import dev.kairos.generator.analysis.TaskReport;
import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Tmos.Spm;
import dev.kairos.generator.ir.Tmos.Svm;
import java.util.ArrayList;
import java.util.List;

/**
 * One method row of a node's schedule. The node's rows come in one order that three parts must
 * share: the schedule's tables list them in it, the node program adds them to its engine in it, and
 * the engine numbers the lanes of a preemptive EDF node in it (which the ORB's routes name). That
 * order is every SpM of every deployment, in deployment order and the TMO's own order, then every
 * SvM likewise.
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
