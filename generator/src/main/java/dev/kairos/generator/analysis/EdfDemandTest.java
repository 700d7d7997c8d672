package dev.kairos.generator.analysis;

import java.util.List;
import java.util.TreeSet;

/**
 * The processor-demand test for EDF as the runtime executes it: all methods in one band, earliest
 * deadline first, a started method not preempted by another of the band (Kokyu's dispatching).
 * Schedulable iff utilization <= 1 and, at every absolute deadline t up to the hyperperiod, the
 * demand of jobs due by t plus the longest job due later (which may have just started; George,
 * Rivierre and Spuri, 1996) fits in t.
 */
public final class EdfDemandTest {
  /** Deadlines examined at most; beyond, the sufficient density test decides. */
  public static final int MAX_POINTS = 500_000;

  private EdfDemandTest() {}

  /** A periodic or sporadic load: WCET, period (minimum inter-arrival), relative deadline. */
  public record Load(long wcetNs, long periodNs, long deadlineNs) {}

  public record Verdict(boolean schedulable, boolean exact, long failingAtNs) {}

  public static Verdict test(List<Load> loads) {
    double utilization = 0;
    double density = 0;
    for (Load load : loads) {
      utilization += (double) load.wcetNs / load.periodNs;
      density += (double) load.wcetNs / Math.min(load.deadlineNs, load.periodNs);
    }
    final long hyperperiod = BusyIntervals.hyperperiod(loads.stream().mapToLong(l -> l.periodNs));
    if (utilization > 1.0) {
      return new Verdict(false, true, 0);
    }
    final TreeSet<Long> points = new TreeSet<>();
    if (hyperperiod > 0) {
      for (Load load : loads) {
        for (long t = load.deadlineNs; t <= hyperperiod + load.deadlineNs; t += load.periodNs) {
          points.add(t);
          if (points.size() > MAX_POINTS) {
            break;
          }
        }
        if (points.size() > MAX_POINTS) {
          break;
        }
      }
    }
    if (hyperperiod < 0 || points.size() > MAX_POINTS) {
      // Too long to examine point by point: the density bound (with the same blocking) decides.
      long longest = 0;
      long shortestDeadline = Long.MAX_VALUE;
      for (Load load : loads) {
        longest = Math.max(longest, load.wcetNs);
        shortestDeadline = Math.min(shortestDeadline, load.deadlineNs);
      }
      final boolean fits = density + (double) longest / shortestDeadline <= 1.0;
      return new Verdict(fits, false, -1);
    }
    for (long t : points) {
      long demand = 0;
      long blocking = 0;
      for (Load load : loads) {
        if (load.deadlineNs <= t) {
          demand =
              Math.addExact(
                  demand,
                  Math.multiplyExact((t - load.deadlineNs) / load.periodNs + 1, load.wcetNs));
        } else {
          blocking = Math.max(blocking, load.wcetNs - 1);
        }
      }
      if (demand + blocking > t) {
        return new Verdict(false, true, t);
      }
    }
    return new Verdict(true, true, -1);
  }
}
