package dev.kairos.reports;

import dev.kairos.ir.Durations;
import dev.kairos.timing.Finding;
import dev.kairos.timing.MessageCapacity;

/**
 * The analysis' findings, and the lowered model's problems, in words: for every report that shows
 * them.
 */
public final class Findings {
  private Findings() {}

  static String text(Finding finding) {
    if (finding instanceof Finding.OnCore onCore) {
      return "core " + onCore.core() + ": " + text(onCore.finding());
    }
    if (finding instanceof Finding.UnboundedServiceLoad unbounded) {
      return unbounded.method()
          + " has no max-rate: its load is unbounded and not part of this analysis";
    }
    if (finding instanceof Finding.EdfDensityBound) {
      return "EDF demand examined with the density bound (hyperperiod too long)";
    }
    if (finding instanceof Finding.EdfDemandExceeded demand) {
      return "EDF processor demand (worst-case arrivals, "
          + (demand.preemptive() ? "preemptive, segments under SRP" : "non-preemptive band")
          + ") exceeds the time available at t = "
          + Durations.format(demand.atNs())
          + "; strictly periodic SpMs are judged by the release table instead";
    }
    if (finding instanceof Finding.TableNotUnrolled table) {
      return "the hyperperiod is too long to unroll ("
          + (table.grid().beyond64Bits() ? "beyond 64 bits" : table.grid().hyperperiodNs() + " ns")
          + "); start windows were checked by response-time analysis only";
    }
    if (finding instanceof Finding.TableMisses misses) {
      return misses.method()
          + " misses "
          + misses.windowMisses()
          + " start window(s) and "
          + misses.deadlineMisses()
          + " deadline(s) in the release table, played over two hyperperiods";
    }
    if (finding instanceof Finding.GateWait wait) {
      return wait.method()
          + " calls "
          + String.join(", ", wait.gates())
          + ": up to "
          + Durations.format(wait.waitNs())
          + " waiting for replies, counted as execution (its lane and segments stay held)";
    }
    final Finding.ServiceDelay delay = (Finding.ServiceDelay) finding;
    return delay.method()
        + " may miss its start window or deadline when service requests arrive (they can delay it"
        + " by "
        + Durations.format(delay.delayNs())
        + ")";
  }

  /** What `kairos` says of a message the ORB cannot carry, on its operation. */
  public static String text(MessageCapacity.Oversized oversized) {
    return "the "
        + oversized.message()
        + " of "
        + oversized.iface().name()
        + "."
        + oversized.operation().name()
        + " may take "
        + (oversized.maxBytes() == Long.MAX_VALUE
            ? "more than 2^63 - 1"
            : Long.toString(oversized.maxBytes()))
        + " bytes, more than the "
        + oversized.capacityBytes()
        + " bytes of message body the runtime's ORB carries (body in"
        + " runtime-cpp/capacities.properties); lower the bounds of its strings and sequences";
  }
}
