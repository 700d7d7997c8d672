package dev.kairos.languageserver.live;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.SchedulingAnalysis;
import dev.kairos.timing.TaskReport;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** The same analysis on a node changed in one place: what a fix of a deadline would need. */
final class WhatIf {
  private WhatIf() {}

  static OptionalLong requiredDeadline(AnalysisSnapshot.MethodFigures figures) {
    final TaskReport task = figures.task();
    if (task.responseTimeNs() > task.deadlineNs()) {
      return OptionalLong.of(task.responseTimeNs());
    }
    if (task.responseTimeNs() >= 0 || task.periodNs() <= 0) {
      // It meets its deadline by response time (a start window is what it misses), or it is
      // not periodic and its response is unbounded: no deadline fixes that.
      return OptionalLong.empty();
    }
    final Node relaxed = withDeadlineAtPeriod(figures.node().node(), task);
    if (relaxed == null) {
      return OptionalLong.empty();
    }
    final NodePlan again = SchedulingAnalysis.analyse(relaxed);
    for (TaskReport row : again.tasks()) {
      if (row.instance().equals(task.instance())
          && row.method().equals(task.method())
          && row.responseTimeNs() > task.deadlineNs()
          && row.responseTimeNs() <= task.periodNs()) {
        return OptionalLong.of(row.responseTimeNs());
      }
    }
    return OptionalLong.empty();
  }

  /** The node with the task's relative deadline equal to its period. */
  private static Node withDeadlineAtPeriod(Node node, TaskReport task) {
    final List<Deployment> deployments = new ArrayList<>();
    boolean found = false;
    for (Deployment deployment : node.deployments()) {
      if (!deployment.instance().equals(task.instance())) {
        deployments.add(deployment);
        continue;
      }
      final TmoClass tmo = deployment.tmo();
      final List<Spm> spms = new ArrayList<>();
      for (Spm spm : tmo.spms()) {
        final boolean relaxed =
            task.kind() == TaskReport.Kind.SPM && spm.name().equals(task.method());
        found |= relaxed;
        spms.add(relaxed ? spm.withDeadline(spm.windowOpenNs() + spm.periodNs()) : spm);
      }
      final List<Svm> svms = new ArrayList<>();
      for (Svm svm : tmo.svms()) {
        final boolean relaxed =
            task.kind() == TaskReport.Kind.SVM && svm.name().equals(task.method());
        found |= relaxed;
        svms.add(relaxed ? svm.withGct(svm.minInterArrivalNs()) : svm);
      }
      deployments.add(deployment.withTmo(tmo.withMethods(spms, svms)));
    }
    if (!found) {
      return null;
    }
    return node.withDeployments(deployments);
  }
}
