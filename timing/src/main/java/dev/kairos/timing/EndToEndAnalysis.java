package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.wire.Frames;
import dev.kairos.ir.wire.MaxEncodedSize;
import dev.kairos.ir.wire.OperationMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * End-to-end deadlines of remote calls: a gate's result-return deadline must cover the network both
 * ways (latency plus jitter each way, and on a link with a bandwidth the time the largest request
 * and the largest answer take onto the wire) and the callee's guaranteed completion time, and the
 * callee must keep that guarantee on its node (its worst-case response within its GCT).
 */
public final class EndToEndAnalysis {
  /** {@link GateReport#answerBytes()} of a oneway call. */
  public static final long NO_ANSWER = -1;

  private EndToEndAnalysis() {}

  /**
   * One gate of a deployed caller.
   *
   * @param networkNs 2 x (latency + jitter) of the link, 0 on the same node
   * @param serialisationNs the time the largest request frame and the largest answer frame (reply
   *     or exception; none for a oneway) take onto the link at its bandwidth; 0 without one, on the
   *     same node, or without a path
   * @param requestBytes the most bytes of the request's body (the frame adds its header)
   * @param answerBytes the most bytes of the reply's or exception's body; -1 for a oneway, which is
   *     not answered
   * @param calleeResponseNs the callee SvM's worst-case response on its node, -1 if unbounded
   */
  public record GateReport(
      String caller,
      String gate,
      String callee,
      long deadlineNs,
      long networkNs,
      long serialisationNs,
      long requestBytes,
      long answerBytes,
      long calleeGctNs,
      long calleeResponseNs,
      boolean meets,
      SourceRef source) {}

  public static List<GateReport> analyse(SystemModel system, List<NodePlan> nodes) {
    final List<GateReport> gates = new ArrayList<>();
    final OperationMessages messages = new OperationMessages(new MaxEncodedSize(system));
    for (NodePlan callerReport : nodes) {
      final Node callerNode = callerReport.node();
      for (Deployment caller : callerNode.deployments()) {
        for (Gate gate : caller.tmo().gates()) {
          gates.add(analyse(system, messages, nodes, callerNode, caller, gate));
        }
      }
    }
    return gates;
  }

  private static GateReport analyse(
      SystemModel system,
      OperationMessages messages,
      List<NodePlan> nodes,
      Node callerNode,
      Deployment caller,
      Gate gate) {
    final Optional<SystemModel.Callee> resolved = system.callee(gate);
    final Optional<NodePlan> served =
        resolved.flatMap(
            c -> nodes.stream().filter(r -> r.node().name().equals(c.node().name())).findFirst());
    if (resolved.isPresent() && served.isPresent()) {
      final NodePlan calleeReport = served.get();
      final Deployment callee = resolved.get().deployment();
      final Svm svm = resolved.get().svm();
      final Optional<Network> link = linkBetween(system, callerNode, calleeReport.node());
      final long network = networkNs(callerNode, calleeReport.node(), link);
      // A service method of no interface operation is called two-way with empty bodies.
      final Optional<Operation> operation = svm.signature();
      final long requestBytes = operation.map(messages::requestBytes).orElse(0L);
      final boolean answered = operation.map(o -> !o.oneway()).orElse(true);
      final long answerBytes =
          answered ? operation.map(messages::answerBytes).orElse(0L) : NO_ANSWER;
      final long bitsPerSecond = link.map(Network::bitsPerSecond).orElse(Network.UNLIMITED);
      final long serialisation =
          saturatedSum(
              Frames.serialisationNs(requestBytes, bitsPerSecond),
              answered ? Frames.serialisationNs(answerBytes, bitsPerSecond) : 0);
      final long response =
          calleeReport.tasks().stream()
              .filter(t -> t.instance().equals(callee.instance()) && t.method().equals(svm.name()))
              .mapToLong(TaskReport::responseTimeNs)
              .findFirst()
              .orElse(-1);
      final boolean meets =
          network >= 0
              && response >= 0
              && response <= svm.gctNs()
              && gate.deadlineNs()
                  >= saturatedSum(saturatedSum(network, serialisation), svm.gctNs());
      return new GateReport(
          caller.instance(),
          gate.name(),
          callee.instance() + "." + svm.name(),
          gate.deadlineNs(),
          network,
          serialisation,
          requestBytes,
          answerBytes,
          svm.gctNs(),
          response,
          meets,
          gate.source());
    }
    // Validation rejects gates to undeployed callees; a report still says so.
    return new GateReport(
        caller.instance(),
        gate.name(),
        gate.calleeTmo() + "." + gate.calleeMethod(),
        gate.deadlineNs(),
        -1,
        0,
        0,
        0,
        -1,
        -1,
        false,
        gate.source());
  }

  /** The first network connecting both nodes; none on one node, or when none connects them. */
  private static Optional<Network> linkBetween(SystemModel system, Node a, Node b) {
    if (a.name().equals(b.name())) {
      return Optional.empty();
    }
    return system.networks().stream()
        .filter(n -> n.nodes().contains(a.name()) && n.nodes().contains(b.name()))
        .findFirst();
  }

  /** 2 x (latency + jitter) of the link; 0 on one node, -1 when no network connects them. */
  private static long networkNs(Node a, Node b, Optional<Network> link) {
    if (a.name().equals(b.name())) {
      return 0;
    }
    return link.map(n -> 2 * (n.latencyNs() + n.jitterNs())).orElse(-1L);
  }

  /** a + b, or Long.MAX_VALUE where that overflows: the analyses' sums of times saturate. */
  static long saturatedSum(long a, long b) {
    final long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
