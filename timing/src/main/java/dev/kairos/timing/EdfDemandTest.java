package dev.kairos.timing;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The processor-demand tests for EDF as the runtime executes it, both exact for sporadic loads with
 * constrained deadlines: schedulable iff utilization <= 1 and, at every absolute deadline t up to
 * the hyperperiod (plus the longest deadline), the demand of the jobs due by t plus a blocking term
 * B(t) fits in t (Baruah, Rosier and Howell, 1990).
 *
 * <ul>
 *   <li>{@link Dispatch#NON_PREEMPTIVE} ({@code np-edf}, Kokyu's EDF queue: one band in deadline
 *       order, a started method never preempted): B(t) is the longest job due later than t, which
 *       may have started just before (George, Rivierre and Spuri, 1996).
 *   <li>{@link Dispatch#PREEMPTIVE} ({@code edf}): a method holds its segments from start to
 *       finish, under the Stack Resource Policy (Baker, 1991) with preemption levels ordered by
 *       relative deadline; B(t) is the longest job due later than t that uses a segment which some
 *       job due by t also uses (Baruah, "Resource sharing in EDF-scheduled systems: a closer look",
 *       RTSS 2006). Without shared segments that is 0, and for implicit deadlines the test reduces
 *       to U <= 1 (Liu and Layland, 1973).
 * </ul>
 */
public final class EdfDemandTest {
  private EdfDemandTest() {}

  /** How the node dispatches the jobs of its one EDF band. */
  public enum Dispatch {
    PREEMPTIVE,
    NON_PREEMPTIVE
  }

  /**
   * A periodic or sporadic load: WCET, period (minimum inter-arrival), relative deadline, and the
   * ODS segments its jobs hold from start to finish (named uniquely on the node).
   */
  public record Load(long wcetNs, long periodNs, long deadlineNs, Set<String> segments) {
    public Load(long wcetNs, long periodNs, long deadlineNs) {
      this(wcetNs, periodNs, deadlineNs, Set.of());
    }
  }

  public record Verdict(boolean schedulable, boolean exact, long failingAtNs) {}

  /** The non-preemptive test (Kokyu's EDF queue). */
  public static Verdict test(List<Load> loads) {
    return test(loads, Dispatch.NON_PREEMPTIVE);
  }

  public static Verdict test(List<Load> loads, Dispatch dispatch) {
    double utilization = 0;
    double density = 0;
    for (Load load : loads) {
      utilization += (double) load.wcetNs / load.periodNs;
      density += (double) load.wcetNs / Math.min(load.deadlineNs, load.periodNs);
    }
    final ReleaseGrid grid = ReleaseGrid.of(loads.stream().mapToLong(l -> l.periodNs));
    if (utilization > 1.0) {
      return new Verdict(false, true, 0);
    }
    if (grid.size() == ReleaseGrid.Size.NONE) {
      return new Verdict(true, true, -1); // no periodic load: no demand
    }
    // The deadlines of one hyperperiod (and the first of the next) are the points to examine,
    // unless the grid is too big to unroll; then the sufficient density test decides.
    if (!grid.unrollable(1)) {
      // Too long to examine point by point: the density bound (with the same blocking) decides.
      long longest = 0;
      long shortestDeadline = Long.MAX_VALUE;
      for (Load load : loads) {
        if (dispatch == Dispatch.NON_PREEMPTIVE || !load.segments.isEmpty()) {
          longest = Math.max(longest, load.wcetNs);
        }
        shortestDeadline = Math.min(shortestDeadline, load.deadlineNs);
      }
      final boolean fits = density + (double) longest / shortestDeadline <= 1.0;
      return new Verdict(fits, false, -1);
    }
    final TreeSet<Long> points = new TreeSet<>();
    for (Load load : loads) {
      for (long t = load.deadlineNs;
          t <= grid.hyperperiodNs() + load.deadlineNs;
          t += load.periodNs) {
        points.add(t);
      }
    }
    for (long t : points) {
      long demand = 0;
      final Set<String> usedByDue = new HashSet<>();
      for (Load load : loads) {
        if (load.deadlineNs <= t) {
          demand =
              Math.addExact(
                  demand,
                  Math.multiplyExact((t - load.deadlineNs) / load.periodNs + 1, load.wcetNs));
          usedByDue.addAll(load.segments);
        }
      }
      long blocking = 0;
      for (Load load : loads) {
        final boolean blocks =
            load.deadlineNs > t
                && (dispatch == Dispatch.NON_PREEMPTIVE
                    || load.segments.stream().anyMatch(usedByDue::contains));
        if (blocks) {
          // It started (holding its segments) at least 1 ns before the first job due by t arrived.
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
