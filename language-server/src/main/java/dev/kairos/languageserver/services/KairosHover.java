package dev.kairos.languageserver.services;

import com.google.inject.Inject;
import com.google.inject.Singleton;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.ExceptionDecl;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Struct;
import dev.kairos.dsl.kairos.TypeDecl;
import dev.kairos.dsl.kairos.Typedef;
import dev.kairos.generator.verdicts.ModelElements;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.languageserver.live.AnalysisSnapshot;
import dev.kairos.languageserver.live.LatestAnalysis;
import dev.kairos.languageserver.live.WireLayout;
import dev.kairos.reports.Figures;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.ide.server.hover.HoverService;

/**
 * Hover: the model's own documentation of an element (its timing as written), and what the live
 * analysis found for it: a method's figures on its node, a node's verdict, a type's wire layout.
 */
@Singleton
public class KairosHover extends HoverService {
  @Inject private LatestAnalysis latest;

  @Override
  public String getContents(EObject element) {
    final String documentation = super.getContents(element);
    final String analysed = analysed(element);
    if (analysed == null) {
      return documentation;
    }
    return documentation.isEmpty() ? analysed : documentation + "\n\n---\n\n" + analysed;
  }

  private String analysed(EObject element) {
    if (element == null || element.eResource() == null) {
      return null;
    }
    if (!(element instanceof Method || element instanceof Node || element instanceof TypeDecl)) {
      return null;
    }
    final Optional<AnalysisSnapshot> snapshot = latest.analysedFor(element.eResource().getURI());
    if (snapshot.isEmpty()) {
      return latest
          .latestFor(element.eResource().getURI())
          .map(run -> "_" + run.reason() + "_")
          .orElse("_not analysed yet_");
    }
    final String text;
    if (element instanceof Method method) {
      text = method(method, snapshot.get());
    } else if (element instanceof Node node) {
      text = node(node, snapshot.get());
    } else {
      text = layout((TypeDecl) element, snapshot.get());
    }
    if (text == null) {
      return null;
    }
    return latest.currentFor(element.eResource().getURI())
        ? text
        : text + "\n\n_from the last analysis of the model without errors_";
  }

  private static String method(Method method, AnalysisSnapshot snapshot) {
    final Optional<String> key = ModelElements.methodKey(method);
    if (key.isEmpty()) {
      return null;
    }
    final List<AnalysisSnapshot.MethodFigures> rows = snapshot.method(key.get());
    if (rows.isEmpty()) {
      return "_not analysed: no node deploys this TMO_";
    }
    final StringBuilder out = new StringBuilder();
    for (AnalysisSnapshot.MethodFigures row : rows) {
      final NodePlan node = row.node();
      final TaskReport task = row.task();
      final boolean service = task.kind() == TaskReport.Kind.SVM;
      out.append(out.length() == 0 ? "" : "\n\n")
          .append("**analysed** as `")
          .append(task.name())
          .append("` on node `")
          .append(node.node().name())
          .append("` (")
          .append(node.node().strategy().keyword())
          .append(node.multicore() ? ", core " + task.core() : "")
          .append("):\n")
          .append("- band ")
          .append(task.band())
          .append(", priority ")
          .append(row.rank())
          .append(" of ")
          .append(row.ofTasks())
          .append(" (1 is the most urgent)\n")
          .append("- ")
          .append(
              task.periodNs() > 0
                  ? (service ? "minimum inter-arrival " : "period ")
                      + Figures.duration(task.periodNs())
                  : (service ? "no max-rate" : "once"))
          .append(", WCET ")
          .append(Figures.duration(task.wcetNs()))
          .append(" on this node's hardware\n")
          .append("- ")
          .append(service ? "GCT " : "deadline ")
          .append(Figures.duration(task.deadlineNs()))
          .append(", response ")
          .append(
              task.responseTimeNs() >= 0
                  ? Figures.duration(task.responseTimeNs())
                      + ", slack "
                      + Figures.duration(task.deadlineNs() - task.responseTimeNs())
                  : "beyond the " + (service ? "GCT" : "deadline"))
          .append('\n')
          .append("- ")
          .append(verdict(node, task));
    }
    return out.toString();
  }

  private static String verdict(NodePlan node, TaskReport task) {
    if (task.schedulable()) {
      return task.kind() == TaskReport.Kind.SVM ? "completes within its GCT" : "meets its deadline";
    }
    final boolean soft = task.criticality() == Criticality.SOFT;
    return soft && node.schedulable()
        ? "**may miss** under overload (soft)"
        : "**misses** its " + (task.kind() == TaskReport.Kind.SVM ? "GCT" : "deadline");
  }

  private static String node(Node node, AnalysisSnapshot snapshot) {
    return snapshot
        .node(node.getName())
        .map(
            report -> {
              final StringBuilder out =
                  new StringBuilder("**analysed**: ")
                      .append(report.tasks().size())
                      .append(" methods, utilization ")
                      .append(Figures.percent(report.utilization()))
                      .append(
                          report.multicore()
                              ? " summed over " + report.cores().size() + " cores"
                              : " ("
                                  + Figures.utilizationBound(report.node().strategy())
                                  + " "
                                  + Figures.percent(report.liuLaylandBound())
                                  + ")")
                      .append(": ")
                      .append(report.schedulable() ? "schedulable" : "**not schedulable**");
              if (report.multicore()) {
                for (NodePlan.CorePlan core : report.cores()) {
                  out.append("\n- core ")
                      .append(core.core())
                      .append(": ")
                      .append(
                          core.instances().isEmpty() ? "idle" : String.join(", ", core.instances()))
                      .append(", utilization ")
                      .append(Figures.percent(core.utilization()))
                      .append(" (")
                      .append(Figures.utilizationBound(report.node().strategy()))
                      .append(" ")
                      .append(Figures.percent(core.liuLaylandBound()))
                      .append(")")
                      .append(core.schedulable() ? "" : ", **not schedulable**");
                }
              }
              return out.toString();
            })
        .orElse(null);
  }

  private static String layout(TypeDecl type, AnalysisSnapshot snapshot) {
    if (!(type instanceof Struct
        || type instanceof EnumDecl
        || type instanceof ExceptionDecl
        || type instanceof Typedef)) {
      return null;
    }
    final Model model = EcoreUtil2.getContainerOfType(type, Model.class);
    final List<String> namespace =
        model == null || model.getName() == null || model.getName().isEmpty()
            ? List.of()
            : Arrays.asList(model.getName().split("\\."));
    final Object name = type.eGet(type.eClass().getEStructuralFeature("name"));
    if (!(name instanceof String)) {
      return null;
    }
    return snapshot
        .layouts()
        .flatMap(layouts -> layouts.of(namespace, (String) name))
        .map(KairosHover::layoutText)
        .orElse(null);
  }

  private static String layoutText(WireLayout.Layout layout) {
    return "**wire layout**: at most "
        + bytes(layout.maxBodyBytes())
        + " as a message body, "
        + layout.maxBytes()
        + " wherever it starts inside one (alignment padding); aligned to "
        + layout.alignment()
        + " (its widest primitive); "
        + (layout.variable() ? "size varies with its strings and sequences" : "fixed size");
  }

  private static String bytes(long count) {
    return count == 1 ? "1 byte" : count + " bytes";
  }
}
