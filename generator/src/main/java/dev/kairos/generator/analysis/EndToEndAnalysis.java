package dev.kairos.generator.analysis;

import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.Network;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.SourceRef;
import dev.kairos.generator.ir.SystemModel;
import dev.kairos.generator.ir.Tmos.Gate;
import dev.kairos.generator.ir.Tmos.Svm;
import java.util.ArrayList;
import java.util.List;

/**
 * End-to-end deadlines of remote calls: a gate's result-return deadline must cover the network both
 * ways (latency plus jitter each way) and the callee's guaranteed completion time, and the callee
 * must keep that guarantee on its node (its worst-case response within its GCT).
 */
public final class EndToEndAnalysis {
  private EndToEndAnalysis() {}

  /**
   * One gate of a deployed caller.
   *
   * @param networkNs 2 x (latency + jitter) of the link, 0 on the same node
   * @param calleeResponseNs the callee SvM's worst-case response on its node, -1 if unbounded
   */
  public record GateReport(
      String caller,
      String gate,
      String callee,
      long deadlineNs,
      long networkNs,
      long calleeGctNs,
      long calleeResponseNs,
      boolean meets,
      SourceRef source) {}

  public static List<GateReport> analyse(SystemModel system, List<NodeReport> nodes) {
    final List<GateReport> gates = new ArrayList<>();
    for (NodeReport callerReport : nodes) {
      final Node callerNode = callerReport.node();
      for (Deployment caller : callerNode.deployments()) {
        for (Gate gate : caller.tmo().gates()) {
          gates.add(analyse(system, nodes, callerNode, caller, gate));
        }
      }
    }
    return gates;
  }

  private static GateReport analyse(
      SystemModel system, List<NodeReport> nodes, Node callerNode, Deployment caller, Gate gate) {
    for (NodeReport calleeReport : nodes) {
      for (Deployment callee : calleeReport.node().deployments()) {
        if (!callee.tmo().qualifiedName().equals(gate.calleeTmo())) {
          continue;
        }
        final Svm svm = callee.tmo().svm(gate.calleeMethod()).orElse(null);
        if (svm == null) {
          continue;
        }
        final long network = networkBetween(system, callerNode, calleeReport.node());
        final long response =
            calleeReport.tasks().stream()
                .filter(
                    t -> t.instance().equals(callee.instance()) && t.method().equals(svm.name()))
                .mapToLong(TaskReport::responseTimeNs)
                .findFirst()
                .orElse(-1);
        final boolean meets =
            network >= 0
                && response >= 0
                && response <= svm.gctNs()
                && gate.deadlineNs() >= network + svm.gctNs();
        return new GateReport(
            caller.instance(),
            gate.name(),
            callee.instance() + "." + svm.name(),
            gate.deadlineNs(),
            network,
            svm.gctNs(),
            response,
            meets,
            gate.source());
      }
    }
    // Validation rejects gates to undeployed callees; a report still says so.
    return new GateReport(
        caller.instance(),
        gate.name(),
        gate.calleeTmo() + "." + gate.calleeMethod(),
        gate.deadlineNs(),
        -1,
        -1,
        -1,
        false,
        gate.source());
  }

  /** 2 x (latency + jitter) of the first network connecting both nodes; 0 on one node. */
  private static long networkBetween(SystemModel system, Node a, Node b) {
    if (a.name().equals(b.name())) {
      return 0;
    }
    for (Network network : system.networks()) {
      if (network.nodes().contains(a.name()) && network.nodes().contains(b.name())) {
        return 2 * (network.latencyNs() + network.jitterNs());
      }
    }
    return -1;
  }
}
