package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.Types.Interface;
import dev.kairos.ir.Types.Operation;
import dev.kairos.timing.EndToEndAnalysis.GateReport;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.ServiceRates;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How remote calls are addressed in a deployed system, decided here once for both ends: a deployed
 * TMO instance is object number {@code i} of its node (its place among the node's deployments), a
 * service method is operation number {@code j} of its TMO (its place among the TMO's SvMs), and a
 * request travels on the band the analysis gave that SvM on its node. Client stubs and server
 * dispatch are generated from the same numbers, so they agree by construction.
 */
final class RemoteCalls {
  private RemoteCalls() {}

  /**
   * A calling lane of a node: the core and band of some method of the calling instance, and which
   * lane of that (core, band) it is: 0, except under preemptive EDF, where each method runs on a
   * lane of its own (the runtime's {@code LaneIdentity::slot}).
   */
  record Lane(int core, int band, int slot) {}

  /**
   * One gate of a deployed instance, resolved: the node, object, operation and band it calls, the
   * lanes it is called from, and the end-to-end verdict of the analysis.
   */
  record ResolvedGate(
      Deployment caller,
      Gate gate,
      Node calleeNode,
      Deployment callee,
      Svm svm,
      int object,
      int operation,
      int band,
      List<Lane> callerLanes,
      Optional<GateReport> report,
      long roundTripBoundNs) {}

  /** The object number of a deployed instance on its node. */
  static int objectOf(Node node, Deployment deployment) {
    return node.deployments().indexOf(deployment);
  }

  /** The operation number of a service method within its TMO. */
  static int operationOf(TmoClass tmo, Svm svm) {
    return tmo.svms().indexOf(svm);
  }

  /** The TMO class a gate calls (the model's validation makes it exist). */
  static Optional<TmoClass> calleeClass(SystemModel system, Gate gate) {
    return system.tmos().stream()
        .filter(t -> t.qualifiedName().equals(gate.calleeTmo()))
        .findFirst();
  }

  /** The interface that declares `operation` among those `tmo` implements. */
  static Optional<Interface> interfaceOf(SystemModel system, TmoClass tmo, Operation operation) {
    for (Interface candidate : system.interfaces()) {
      final String name = qualified(candidate.namespace(), candidate.name());
      if (tmo.interfaces().contains(name) && candidate.operations().contains(operation)) {
        return Optional.of(candidate);
      }
    }
    return system.interfaces().stream().filter(i -> i.operations().contains(operation)).findFirst();
  }

  /**
   * How long `node` must still take requests in after its run ends (0: it serves no other node):
   * the latest time a call from an activation released before the end may be served here. That is
   * the latest end of a serve hop on this node in any chain, from the chain's source release, and,
   * for a call no chain bounds, the caller's own deadline (from its release or its request's
   * arrival) plus the gate's: a request that comes later finds its caller gone anyway.
   *
   * @param callers the node's callers (callersOf)
   */
  static long serveAfterEndNs(TimingPlan analysis, Node node, List<Caller> callers) {
    long latest = 0;
    for (dev.kairos.timing.ChainReport chain : analysis.chains()) {
      for (dev.kairos.timing.ChainReport.Hop hop : chain.hops()) {
        if (hop.kind() == dev.kairos.timing.ChainReport.HopKind.SERVE
            && hop.where().equals(node.name())) {
          latest = Math.max(latest, hop.latestNs());
        }
      }
    }
    for (Caller caller : callers) {
      final ResolvedGate gate = caller.gate();
      for (dev.kairos.ir.Tmos.Method method : gate.caller().tmo().methods()) {
        if (method.calls().contains(gate.gate().name())) {
          final long fromRelease =
              method instanceof dev.kairos.ir.Tmos.Spm spm
                  ? spm.deadlineNs()
                  : method.relativeDeadlineNs();
          latest = Math.max(latest, fromRelease + gate.gate().deadlineNs());
        }
      }
    }
    return latest;
  }

  /**
   * A gate of an instance on another node that calls this one, with the node it is on and how often
   * the methods that name the gate call through it together.
   *
   * @param callsPerSecond what the rates of the gate's calling methods add up to (a one-shot SpM
   *     counts nothing); {@link Double#POSITIVE_INFINITY} when one of them is an SvM without
   *     max-rate, and 0 when the service method it calls has no max-rate (nothing bounds it)
   * @param methods how many methods call through the gate
   * @param rate what the analysis found of the service method's callers and max-rate; empty for a
   *     method without max-rate
   */
  record Caller(
      Node node,
      ResolvedGate gate,
      double callsPerSecond,
      int methods,
      Optional<ServiceRates.Report> rate) {}

  /** The gates of other nodes' instances that call `node`, resolved: its callers, as modelled. */
  static List<Caller> callersOf(SystemModel system, TimingPlan analysis, Node node) {
    // The analysis's rates by service method, looked up once per gate.
    final Map<String, ServiceRates.Report> rates = new HashMap<>();
    for (ServiceRates.Report rate : analysis.rates()) {
      rates.putIfAbsent(rate.callee(), rate);
    }
    final List<Caller> callers = new ArrayList<>();
    for (Node caller : system.nodes()) {
      if (caller != node) {
        gatesOf(system, analysis, caller).stream()
            .filter(gate -> gate.calleeNode() == node)
            .forEach(gate -> callers.add(caller(rates, caller, gate)));
      }
    }
    return callers;
  }

  /** `gate` of `node` with the calls per second its methods make through it (service rates). */
  private static Caller caller(
      Map<String, ServiceRates.Report> rates, Node node, ResolvedGate gate) {
    final String callingInstance = gate.caller().instance() + ".";
    final ServiceRates.Report rate = rates.get(gate.callee().instance() + "." + gate.svm().name());
    if (rate != null) {
      double total = 0;
      int methods = 0;
      for (ServiceRates.Caller method : rate.callers()) {
        if (method.caller().startsWith(callingInstance)
            && method.gate().equals(gate.gate().name())) {
          ++methods;
          total +=
              method.intervalNs() == ServiceRates.Caller.UNBOUNDED
                  ? Double.POSITIVE_INFINITY
                  : method.intervalNs() > 0 ? 1e9 / method.intervalNs() : 0;
        }
      }
      return new Caller(node, gate, total, methods, Optional.of(rate));
    }
    return new Caller(node, gate, 0, 0, Optional.empty()); // a method without max-rate
  }

  /** Every gate of the instances deployed on `node`, resolved against the whole system. */
  static List<ResolvedGate> gatesOf(SystemModel system, TimingPlan analysis, Node node) {
    final List<ResolvedGate> gates = new ArrayList<>();
    final NodePlan callerReport = reportOf(analysis, node);
    for (Deployment caller : node.deployments()) {
      for (Gate gate : caller.tmo().gates()) {
        resolve(system, analysis, callerReport, caller, gate).ifPresent(gates::add);
      }
    }
    return gates;
  }

  private static Optional<ResolvedGate> resolve(
      SystemModel system,
      TimingPlan analysis,
      NodePlan callerReport,
      Deployment caller,
      Gate gate) {
    final Optional<SystemModel.Callee> resolved = system.callee(gate);
    if (resolved.isEmpty()) {
      return Optional.empty();
    }
    final Deployment callee = resolved.get().deployment();
    final Svm svm = resolved.get().svm();
    final Optional<NodePlan> served =
        analysis.nodes().stream()
            .filter(r -> r.node().name().equals(resolved.get().node().name()))
            .findFirst();
    if (served.isEmpty()) {
      return Optional.empty();
    }
    final Node calleeNode = served.get().node();
    final int band = taskOf(served.get(), callee.instance(), svm.name()).band();
    final Optional<GateReport> report =
        analysis.gates().stream()
            .filter(g -> g.caller().equals(caller.instance()) && g.gate().equals(gate.name()))
            .findFirst();
    return Optional.of(
        new ResolvedGate(
            caller,
            gate,
            calleeNode,
            callee,
            svm,
            objectOf(calleeNode, callee),
            operationOf(callee.tmo(), svm),
            band,
            lanesOf(callerReport, caller),
            report,
            report.map(analysis::roundTripBound).orElse(-1L)));
  }

  /**
   * The distinct lanes the methods of {@code caller} run on: one per (core, band), or, on a node
   * scheduled by preemptive EDF, one per method, numbered on each core in the order the node
   * program adds the rows (MethodRow), as the engine numbers them.
   */
  private static List<Lane> lanesOf(NodePlan report, Deployment caller) {
    final Set<Lane> lanes = new LinkedHashSet<>();
    final Node node = report.node();
    if (!node.strategy().preemptsByDeadline()) {
      for (TaskReport task : report.tasks()) {
        if (task.instance().equals(caller.instance())) {
          lanes.add(new Lane(task.core(), task.band(), 0));
        }
      }
      return List.copyOf(lanes);
    }
    final Map<Integer, Integer> lanesOnCore = new HashMap<>();
    for (MethodRow row : MethodRow.of(node)) {
      final TaskReport task = taskOf(report, row.deployment().instance(), row.method());
      final int slot = lanesOnCore.merge(task.core(), 1, Integer::sum) - 1;
      if (row.deployment().equals(caller)) {
        lanes.add(new Lane(task.core(), task.band(), slot));
      }
    }
    return List.copyOf(lanes);
  }

  static NodePlan reportOf(TimingPlan analysis, Node node) {
    return analysis.nodes().stream()
        .filter(r -> r.node().name().equals(node.name()))
        .findFirst()
        .orElseThrow();
  }

  static TaskReport taskOf(NodePlan report, String instance, String method) {
    return report.tasks().stream()
        .filter(t -> t.instance().equals(instance) && t.method().equals(method))
        .findFirst()
        .orElseThrow();
  }

  /** Whether any instance of `node` has service methods: then the node serves remote calls. */
  static boolean serves(Node node) {
    return node.deployments().stream().anyMatch(d -> !d.tmo().svms().isEmpty());
  }

  private static String qualified(List<String> namespace, String name) {
    return namespace.isEmpty() ? name : String.join(".", namespace) + "." + name;
  }
}
