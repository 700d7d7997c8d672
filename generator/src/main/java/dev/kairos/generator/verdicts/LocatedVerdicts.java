package dev.kairos.generator.verdicts;

import dev.kairos.dsl.kairos.Model;
import dev.kairos.generator.analysis.AnalysisReport;
import dev.kairos.generator.analysis.EndToEndAnalysis;
import dev.kairos.generator.analysis.NodeReport;
import dev.kairos.generator.analysis.TaskReport;
import dev.kairos.generator.ir.Platform;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.diagnostics.Severity;

/**
 * The verdicts of the analysis that fail or warn, each on the model element it concerns (the name
 * of the method, node or gate), with a stable code: what the language server shows while the user
 * edits and what `kairos check` reports as diagnostics (SARIF, -q), in the same words.
 */
public final class LocatedVerdicts {
  private LocatedVerdicts() {}

  /** A method misses its deadline (or GCT): an error. */
  public static final String UNSCHEDULABLE = "kairos.unschedulable";

  /** A soft method may miss its deadline under overload on a node that holds: a warning. */
  public static final String MAY_MISS = "kairos.may-miss";

  /** A node is not schedulable: an error on its name, with its utilization. */
  public static final String NODE_UNSCHEDULABLE = "kairos.node-unschedulable";

  /** A remote call cannot return within its gate's deadline: an error on the gate. */
  public static final String REMOTE_CALL_UNSCHEDULABLE = "kairos.remote-call-unschedulable";

  /**
   * One verdict at its element; {@code data} carries the figures in nanoseconds ({@code [response,
   * deadline]}) for code actions.
   */
  public record Located(
      EObject element,
      ModelElements.Region region,
      String code,
      Severity severity,
      String message,
      List<String> data) {}

  /** Every failing or warning verdict of the report whose element is found in the models. */
  public static List<Located> of(AnalysisReport report, List<Model> models) {
    return of(report, new ModelElements(models));
  }

  /** As {@link #of(AnalysisReport, List)}, with the elements already indexed. */
  public static List<Located> of(AnalysisReport report, ModelElements elements) {
    final List<Located> found = new ArrayList<>();
    final Map<String, String> classOfInstance = new HashMap<>();
    for (NodeReport node : report.nodes()) {
      for (Platform.Deployment deployment : node.node().deployments()) {
        classOfInstance.put(deployment.instance(), deployment.tmo().qualifiedName());
      }
      for (TaskReport task : node.tasks()) {
        final String tmo = classOfInstance.get(task.instance());
        if (task.schedulable() || tmo == null) {
          continue;
        }
        final boolean fails = Verdicts.fails(node, task);
        elements
            .method(tmo, task.method())
            .ifPresent(
                method ->
                    add(
                        found,
                        method,
                        fails ? UNSCHEDULABLE : MAY_MISS,
                        fails ? Severity.ERROR : Severity.WARNING,
                        Verdicts.taskMessage(node, task, fails),
                        List.of(
                            Long.toString(task.responseTimeNs()),
                            Long.toString(task.deadlineNs()))));
      }
      if (!node.schedulable()) {
        elements
            .node(node.node().name())
            .ifPresent(
                element ->
                    add(
                        found,
                        element,
                        NODE_UNSCHEDULABLE,
                        Severity.ERROR,
                        Verdicts.nodeMessage(node),
                        List.of()));
      }
    }
    for (EndToEndAnalysis.GateReport gate : report.gates()) {
      final String tmo = classOfInstance.get(gate.caller());
      if (gate.meets() || tmo == null) {
        continue;
      }
      elements
          .gate(tmo, gate.gate())
          .ifPresent(
              element ->
                  add(
                      found,
                      element,
                      REMOTE_CALL_UNSCHEDULABLE,
                      Severity.ERROR,
                      Verdicts.gateMessage(gate),
                      List.of(
                          Long.toString(gate.calleeResponseNs()),
                          Long.toString(gate.deadlineNs()))));
    }
    return found;
  }

  private static void add(
      List<Located> found,
      EObject element,
      String code,
      Severity severity,
      String message,
      List<String> data) {
    ModelElements.nameRegion(element)
        .ifPresent(
            region -> found.add(new Located(element, region, code, severity, message, data)));
  }
}
