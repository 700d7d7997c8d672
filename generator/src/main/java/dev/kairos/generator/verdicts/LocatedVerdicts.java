package dev.kairos.generator.verdicts;

import dev.kairos.dsl.kairos.Model;
import dev.kairos.ir.Platform;
import dev.kairos.reports.Verdicts;
import dev.kairos.timing.ChainReport;
import dev.kairos.timing.EndToEndAnalysis;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.ServiceRates;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
   * A hard end-to-end chain misses a limit (a gate's deadline, a channel's validity) or has no
   * bound: an error on the gate or the reading method, or on the chain's source.
   */
  public static final String CHAIN_UNSCHEDULABLE = "kairos.chain-unschedulable";

  /** A soft end-to-end chain may miss: a warning at the same places. */
  public static final String CHAIN_MAY_MISS = "kairos.chain-may-miss";

  /**
   * The model's callers of a service method call it more often together than its max-rate: an error
   * on the service method.
   */
  public static final String SERVICE_RATE_EXCEEDED = "kairos.service-rate-exceeded";

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
  public static List<Located> of(TimingPlan report, List<Model> models) {
    return of(report, new ModelElements(models));
  }

  /** As {@link #of(TimingPlan, List)}, with the elements already indexed. */
  public static List<Located> of(TimingPlan report, ModelElements elements) {
    final List<Located> found = new ArrayList<>();
    final Map<String, String> classOfInstance = new HashMap<>();
    for (NodePlan node : report.nodes()) {
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
    for (ServiceRates.Report rate : report.rates()) {
      final int dot = rate.callee().indexOf('.');
      final String tmo = classOfInstance.get(rate.callee().substring(0, dot));
      if (rate.meets() || tmo == null) {
        continue;
      }
      elements
          .method(tmo, rate.callee().substring(dot + 1))
          .ifPresent(
              method ->
                  add(
                      found,
                      method,
                      SERVICE_RATE_EXCEEDED,
                      Severity.ERROR,
                      Verdicts.rateMessage(rate),
                      List.of()));
    }
    for (ChainReport chain : report.chains()) {
      if (chain.meets() && report.holistic().converged() && report.holistic().complete()) {
        continue;
      }
      final boolean fails = chain.hard();
      final String code = fails ? CHAIN_UNSCHEDULABLE : CHAIN_MAY_MISS;
      final Severity severity = fails ? Severity.ERROR : Severity.WARNING;
      final String message = Verdicts.chainMessage(chain, report.holistic());
      final List<String> data =
          List.of(Long.toString(chain.boundNs()), Long.toString(chain.periodNs()));
      // At the limit that breaks (the gate, the reading method), else at the chain's source.
      Optional<EObject> element = Optional.empty();
      for (ChainReport.Limit limit : chain.limits()) {
        final String tmo = classOfInstance.get(limit.instance());
        if (limit.meets() || tmo == null || element.isPresent()) {
          continue;
        }
        element =
            limit.kind() == ChainReport.LimitKind.GATE_DEADLINE
                ? elements.gate(tmo, limit.element()).map(EObject.class::cast)
                : elements.method(tmo, limit.element()).map(EObject.class::cast);
      }
      if (element.isEmpty()) {
        final int dot = chain.source().indexOf('.');
        final String tmo = dot < 0 ? null : classOfInstance.get(chain.source().substring(0, dot));
        if (tmo != null) {
          element =
              elements.method(tmo, chain.source().substring(dot + 1)).map(EObject.class::cast);
        }
      }
      element.ifPresent(e -> add(found, e, code, severity, message, data));
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
    at(element, code, severity, message, data).ifPresent(found::add);
  }

  /** A finding on the name of {@code element}; empty where the element has no name in its text. */
  public static Optional<Located> at(
      EObject element, String code, Severity severity, String message, List<String> data) {
    return ModelElements.nameRegion(element)
        .map(region -> new Located(element, region, code, severity, message, data));
  }
}
