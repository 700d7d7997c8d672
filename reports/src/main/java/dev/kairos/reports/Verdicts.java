package dev.kairos.reports;

import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.timing.ChainReport;
import dev.kairos.timing.EndToEndAnalysis;
import dev.kairos.timing.HolisticAnalysis;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.List;

/** The analysis's verdicts in the words of diagnostics, with the figures that support them. */
public final class Verdicts {
  private Verdicts() {}

  /**
   * Whether a method that is not schedulable fails its node, by the rule of `kairos check`: it does
   * unless it is soft on a node whose guaranteed set holds (then it may miss under overload).
   */
  public static boolean fails(NodePlan node, TaskReport task) {
    return !task.schedulable() && !(task.criticality() == Criticality.SOFT && node.schedulable());
  }

  public static String taskMessage(NodePlan node, TaskReport task, boolean fails) {
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

  public static String nodeMessage(NodePlan node) {
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
            .append(Figures.duration(gate.networkNs()));
    if (gate.serialisationNs() > 0) {
      why.append(", serialisation ").append(Figures.duration(gate.serialisationNs()));
    }
    why.append(", callee GCT ").append(Figures.duration(gate.calleeGctNs()));
    if (gate.calleeResponseNs() < 0) {
      why.append(", callee response unbounded");
    } else if (gate.calleeResponseNs() > gate.calleeGctNs()) {
      why.append(", callee response ")
          .append(Figures.duration(gate.calleeResponseNs()))
          .append(" beyond its GCT");
    }
    return why.toString();
  }

  /**
   * Why the model's callers of a service method exceed its max-rate: the rate they add up to and
   * each caller with how often it calls.
   */
  public static String rateMessage(dev.kairos.timing.ServiceRates.Report rate) {
    return rate.callee()
        + " is called at up to "
        + callRate(rate)
        + ", beyond its max-rate of "
        + hertz(rate.maxRateHz())
        + " ("
        + callers(rate)
        + "); the node refuses requests beyond max-rate, so these calls would fail: raise"
        + " max-rate or call less often";
  }

  /** What the callers' rates add up to, in Hz ("unbounded" with a caller of no max-rate). */
  public static String callRate(dev.kairos.timing.ServiceRates.Report rate) {
    return Double.isInfinite(rate.callsPerSecond())
        ? "an unbounded rate"
        : hertz(rate.callsPerSecond());
  }

  /** Each caller of a service method, with how often it calls. */
  public static String callers(dev.kairos.timing.ServiceRates.Report rate) {
    return String.join(
        ", ",
        rate.callers().stream()
            .map(c -> c.caller() + " through gate " + c.gate() + " " + howOften(c))
            .toList());
  }

  private static String howOften(dev.kairos.timing.ServiceRates.Caller caller) {
    if (caller.intervalNs() == dev.kairos.timing.ServiceRates.Caller.ONCE) {
      return "once";
    }
    if (caller.intervalNs() == dev.kairos.timing.ServiceRates.Caller.UNBOUNDED) {
      return "as often as it is called (it has no max-rate)";
    }
    return "every " + Figures.duration(caller.intervalNs());
  }

  /** A rate in Hz, to three significant digits. */
  public static String hertz(double hz) {
    final java.math.BigDecimal rounded =
        new java.math.BigDecimal(hz).round(new java.math.MathContext(3)).stripTrailingZeros();
    return rounded.toPlainString() + " Hz";
  }

  /**
   * Why a chain misses: the limits it breaks (a call's round trip beyond its gate's deadline, a
   * sample older than its channel's validity when read), or a hop without a bound, or the holistic
   * iteration that found no fixed point.
   */
  public static String chainMessage(ChainReport chain, TimingPlan.Holistic holistic) {
    final StringBuilder why =
        new StringBuilder("end-to-end chain ")
            .append(chain.name())
            .append(chain.hard() ? "" : " (soft)")
            .append(chain.hard() ? " misses" : " may miss")
            .append(": ");
    if (!holistic.complete()) {
      return why.append("the model has more chains than the holistic analysis follows (")
          .append(HolisticAnalysis.MAX_CHAINS)
          .append(" chains, ")
          .append(HolisticAnalysis.MAX_VISITS)
          .append(" methods visited): the jitter of those left out is not counted")
          .toString();
    }
    final boolean unboundedHop = chain.hops().stream().anyMatch(h -> h.latestNs() < 0);
    if (!holistic.converged() && !unboundedHop) {
      return why.append("the holistic analysis found no fixed point of response times and")
          .append(" jitters after ")
          .append(holistic.iterations())
          .append(" passes over the nodes (the load they pass on keeps growing)")
          .toString();
    }
    final List<String> reasons = new java.util.ArrayList<>();
    for (ChainReport.Limit limit : chain.limits()) {
      if (limit.meets()) {
        continue;
      }
      final String bound = limit.boundNs() >= 0 ? Figures.duration(limit.boundNs()) : "unbounded";
      if (limit.kind() == ChainReport.LimitKind.GATE_DEADLINE) {
        reasons.add(
            "the round trip of gate "
                + limit.instance()
                + "."
                + limit.element()
                + " ("
                + bound
                + ", network, queueing and the callee's response with its arrival jitter) exceeds"
                + " its deadline of "
                + Figures.duration(limit.limitNs()));
      } else {
        reasons.add(
            "a sample of "
                + limit.channel()
                + " may be "
                + bound
                + " old when "
                + limit.instance()
                + "."
                + limit.element()
                + " reads it, beyond the channel's validity of "
                + Figures.duration(limit.limitNs()));
      }
    }
    if (unboundedHop) {
      final ChainReport.Hop hop =
          chain.hops().stream().filter(h -> h.latestNs() < 0).findFirst().orElseThrow();
      reasons.add(
          "the hop \""
              + ChainReports.what(hop)
              + "\" ("
              + hop.where()
              + ") has no bound, so neither has the jitter it passes on");
    }
    return why.append(String.join("; ", reasons)).toString();
  }

  public static String strategy(NodePlan node) {
    return node.node().strategy().keyword();
  }
}
