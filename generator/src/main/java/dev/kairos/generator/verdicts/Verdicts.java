package dev.kairos.generator.verdicts;

import dev.kairos.generator.analysis.EndToEndAnalysis;
import dev.kairos.generator.analysis.NodeReport;
import dev.kairos.generator.analysis.TaskReport;
import dev.kairos.generator.ir.Tmos.Criticality;
import java.util.Locale;

/** The analysis's verdicts in the words of diagnostics, with the figures that support them. */
public final class Verdicts {
  private Verdicts() {}

  /**
   * Whether a method that is not schedulable fails its node, by the rule of `kairos check`: it does
   * unless it is soft on a node whose guaranteed set holds (then it may miss under overload).
   */
  public static boolean fails(NodeReport node, TaskReport task) {
    return !task.schedulable() && !(task.criticality() == Criticality.SOFT && node.schedulable());
  }

  public static String taskMessage(NodeReport node, TaskReport task, boolean fails) {
    final boolean service = task.kind() == TaskReport.Kind.SVM;
    final String limit = service ? "GCT" : "deadline";
    final String where =
        " on node "
            + node.node().name()
            + (node.multicore() ? ", core " + task.core() : "")
            + " ("
            + strategy(node)
            + ", band "
            + task.band()
            + ", WCET "
            + Figures.duration(task.wcetNs())
            + (task.periodNs() > 0 ? ", period " + Figures.duration(task.periodNs()) : "")
            + ")";
    final String response;
    if (task.responseTimeNs() < 0) {
      response =
          "its worst-case response grows beyond its "
              + limit
              + " of "
              + Figures.duration(task.deadlineNs());
    } else if (task.responseTimeNs() > task.deadlineNs()) {
      response =
          "worst-case response "
              + Figures.duration(task.responseTimeNs())
              + (service ? " (admission wait included)" : "")
              + " > "
              + limit
              + " "
              + Figures.duration(task.deadlineNs());
    } else {
      response =
          "its response by analysis ("
              + Figures.duration(task.responseTimeNs())
              + ") fits the "
              + limit
              + " of "
              + Figures.duration(task.deadlineNs())
              + ", but the release table, played over two hyperperiods, shows missed start windows or"
              + " deadlines";
    }
    if (fails) {
      return task.name()
          + (service ? " cannot complete within its GCT" : " misses its deadline")
          + where
          + ": "
          + response;
    }
    return task.name()
        + " (soft) may miss its "
        + limit
        + " under overload"
        + where
        + ": "
        + response;
  }

  public static String nodeMessage(NodeReport node) {
    final long failing = node.tasks().stream().filter(t -> fails(node, t)).count();
    return "node "
        + node.node().name()
        + " is not schedulable ("
        + strategy(node)
        + "): "
        + failing
        + (failing == 1 ? " method misses" : " methods miss")
        + " its deadline; utilization "
        + Figures.percent(node.utilization())
        + " (Liu-Layland bound "
        + Figures.percent(node.liuLaylandBound())
        + ")";
  }

  public static String gateMessage(EndToEndAnalysis.GateReport gate) {
    final String call = "remote call " + gate.caller() + "." + gate.gate() + " -> " + gate.callee();
    if (gate.networkNs() < 0) {
      return call + ": no network connects the caller's node with the callee's";
    }
    final StringBuilder why =
        new StringBuilder(call)
            .append(" cannot return within its deadline of ")
            .append(Figures.duration(gate.deadlineNs()))
            .append(": network ")
            .append(Figures.duration(gate.networkNs()))
            .append(", callee GCT ")
            .append(Figures.duration(gate.calleeGctNs()));
    if (gate.calleeResponseNs() < 0) {
      why.append(", callee response unbounded");
    } else if (gate.calleeResponseNs() > gate.calleeGctNs()) {
      why.append(", callee response ")
          .append(Figures.duration(gate.calleeResponseNs()))
          .append(" beyond its GCT");
    }
    return why.toString();
  }

  public static String strategy(NodeReport node) {
    return node.node().strategy().name().toLowerCase(Locale.ROOT).replace('_', '+');
  }
}
