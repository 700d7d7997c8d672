package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import java.util.ArrayList;
import java.util.List;

/**
 * The basic concurrency constraint (BCC) as the engine applies it, and what it costs a service
 * method. The rule, stated once (docs/language.md#the-basic-concurrency-constraint and {@code
 * Engine::admissible} apply exactly this):
 *
 * <blockquote>
 *
 * A request of service method s is admitted at instant t when, for every SpM that conflicts with s,
 * the earliest start-window opening among its activations not yet finished is at least slot(s)
 * after t. slot(s) is the analysed response of s once admitted.
 *
 * </blockquote>
 *
 * <p>So an activation of a conflicting SpM whose window opens at o and which finishes by o + R
 * keeps requests out during (o - slot, o + R]. Overlapping such intervals form stretches; a request
 * that arrives as a stretch begins waits until it ends, and its response is that wait plus its own
 * response once admitted. Pure arithmetic on nanoseconds: no model, no text.
 */
public final class BccAdmission {
  private BccAdmission() {}

  /**
   * An SpM the service method conflicts with: its first start-window opening (from the epoch), its
   * period (0: once) and its response from the opening ({@code -1}: unbounded).
   */
  public record Blocker(long firstOpenNs, long periodNs, long responseNs) {}

  /**
   * What BCC costs one service method.
   *
   * @param slotNs the room a request needs before the next conflicting opening
   * @param longestWaitNs the longest a request can wait for admission (0: no conflicts; -1: never
   *     admitted, or unbounded because a conflicting SpM has no bounded response)
   * @param cycleNs the cycle over which {@code admissionWindows} recur (0: no periodic conflicts;
   *     -1: too long to unroll)
   * @param admissionWindows the windows of one cycle in which an arriving request is admitted at
   *     once (the last may wrap past the cycle's end), from periodic conflicts
   */
  public record Admission(
      long slotNs, long longestWaitNs, long cycleNs, List<BusyIntervals.Window> admissionWindows) {
    public boolean bounded() {
      return longestWaitNs >= 0;
    }
  }

  public static Admission analyse(long slotNs, List<Blocker> blockers) {
    if (blockers.isEmpty()) {
      return new Admission(slotNs, 0, 0, List.of());
    }
    final List<BusyIntervals.Periodic> periodic = new ArrayList<>();
    final List<long[]> once = new ArrayList<>();
    for (Blocker blocker : blockers) {
      if (blocker.responseNs() < 0) {
        return new Admission(slotNs, -1, 0, List.of());
      }
      final long length;
      try {
        length = Math.addExact(slotNs, blocker.responseNs());
      } catch (ArithmeticException beyond64Bits) {
        return new Admission(slotNs, -1, 0, List.of());
      }
      if (blocker.periodNs() > 0) {
        if (length >= blocker.periodNs()) {
          return new Admission(slotNs, -1, blocker.periodNs(), List.of()); // never free
        }
        periodic.add(
            new BusyIntervals.Periodic(
                blocker.periodNs(),
                Math.floorMod(blocker.firstOpenNs() - slotNs, blocker.periodNs()),
                length));
      } else {
        once.add(
            new long[] {blocker.firstOpenNs() - slotNs, blocker.firstOpenNs() + length - slotNs});
      }
    }
    final BusyIntervals.Free free = BusyIntervals.freeWindows(periodic);
    if (!free.exhaustive()) {
      return new Admission(slotNs, -1, -1, List.of());
    }
    final long cycle = free.hyperperiodNs();
    if (cycle > 0 && free.windows().isEmpty()) {
      return new Admission(slotNs, -1, cycle, List.of());
    }
    final List<long[]> stretches = busyStretches(cycle, free.windows());
    long longest = 0;
    for (long[] stretch : stretches) {
      longest = Math.max(longest, stretch[1] - stretch[0]);
    }
    if (!once.isEmpty()) {
      longest = Math.max(longest, longestWithOneShots(cycle, stretches, once));
    }
    return new Admission(slotNs, longest, cycle, free.windows());
  }

  /** The busy stretches of one cycle: what lies between consecutive admission windows. */
  private static List<long[]> busyStretches(long cycle, List<BusyIntervals.Window> windows) {
    final List<long[]> stretches = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      final BusyIntervals.Window window = windows.get(i);
      final long nextStart =
          i + 1 < windows.size() ? windows.get(i + 1).startNs() : windows.get(0).startNs() + cycle;
      if (nextStart > window.endNs()) {
        stretches.add(new long[] {window.endNs(), nextStart});
      }
    }
    return stretches;
  }

  /**
   * The longest stretch that contains a one-shot blocker: its interval merged with the others and
   * with the periodic stretches it touches, in absolute time. Periodic stretches are shorter than
   * their cycle and separated by free gaps, so only the instances within one cycle either side of
   * the one-shot intervals can join them.
   */
  private static long longestWithOneShots(long cycle, List<long[]> stretches, List<long[]> once) {
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    for (long[] interval : once) {
      from = Math.min(from, interval[0]);
      to = Math.max(to, interval[1]);
    }
    final List<long[]> intervals = new ArrayList<>();
    for (long[] interval : once) {
      intervals.add(new long[] {interval[0], interval[1], 1});
    }
    if (cycle > 0) {
      for (long[] stretch : stretches) {
        final long first = Math.floorDiv(from - cycle - stretch[1], cycle);
        final long last = Math.floorDiv(to + cycle - stretch[0], cycle) + 1;
        for (long k = first; k <= last; k++) {
          intervals.add(new long[] {stretch[0] + k * cycle, stretch[1] + k * cycle, 0});
        }
      }
    }
    intervals.sort((a, b) -> Long.compare(a[0], b[0]));
    long longest = 0;
    long start = 0;
    long end = Long.MIN_VALUE;
    boolean withOneShot = false;
    for (long[] interval : intervals) {
      if (interval[0] > end) {
        if (withOneShot) {
          longest = Math.max(longest, end - start);
        }
        start = interval[0];
        end = interval[1];
        withOneShot = interval[2] == 1;
      } else {
        end = Math.max(end, interval[1]);
        withOneShot |= interval[2] == 1;
      }
    }
    if (withOneShot) {
      longest = Math.max(longest, end - start);
    }
    return longest;
  }

  static Svm svmOf(Deployment deployment, String method) {
    return deployment.tmo().svm(method).orElseThrow();
  }

  /**
   * BCC admission of every service method (see {@link BccAdmission} for the rule): its slot is its
   * response once admitted (its GCT where that is unbounded), and the SpMs it conflicts with block
   * admission from a slot before each start-window opening until their analysed response.
   */
  static List<NodePlan.ServiceAdmission> admissions(
      Node node, List<TaskReport> taskList, java.util.Map<String, Long> admittedResponses) {
    final java.util.Map<String, TaskReport> tasks = TaskReport.byName(taskList);
    final List<NodePlan.ServiceAdmission> admissions = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (Svm svm : deployment.tmo().svms()) {
        final String name = deployment.instance() + "." + svm.name();
        final long admitted = admittedResponses.getOrDefault(name, -1L);
        final long slot = admitted > 0 ? admitted : svm.gctNs();
        final List<BccAdmission.Blocker> blockers = new ArrayList<>();
        for (Spm spm : deployment.tmo().spms()) {
          if (conflicts(svm.uses(), spm.uses())) {
            final TaskReport task = tasks.get(deployment.instance() + "." + spm.name());
            final long response =
                task != null && task.schedulable() && task.responseTimeNs() >= 0
                    ? task.responseTimeNs()
                    : -1;
            blockers.add(
                new BccAdmission.Blocker(
                    spm.firstReleaseNs() + spm.windowOpenNs(), spm.periodNs(), response));
          }
        }
        final BccAdmission.Admission admission = BccAdmission.analyse(slot, blockers);
        long response =
            admitted >= 0 && admission.bounded()
                ? saturatingAdd(admission.longestWaitNs(), admitted)
                : -1;
        // Beyond its minimum inter-arrival time a request could queue behind the one before it,
        // which the bound above does not count: not analysed, so not guaranteed.
        if (svm.minInterArrivalNs() > 0 && response > svm.minInterArrivalNs()) {
          response = -1;
        }
        admissions.add(
            new NodePlan.ServiceAdmission(
                deployment.instance(),
                svm.name(),
                svm.gctNs(),
                !blockers.isEmpty(),
                admission,
                response,
                conflictRows(node, deployment, svm)));
      }
    }
    return admissions;
  }

  /**
   * The rows of the node's SpM table (numbered across its deployments, in order) that an SvM
   * conflicts with: only its own TMO's SpMs can. A multicore node numbers them again for the whole
   * node when its cores' reports are merged.
   */
  static long conflictRows(Node node, Deployment owner, Svm svm) {
    long rows = 0;
    int row = 0;
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        if (deployment == owner && row < Long.SIZE && conflicts(svm.uses(), spm.uses())) {
          rows |= 1L << row;
        }
        row++;
      }
    }
    return rows;
  }

  static long saturatingAdd(long a, long b) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException beyond64Bits) {
      return -1;
    }
  }

  /** Whether two methods of one TMO conflict: they share a segment and one of them writes it. */
  public static boolean conflicts(
      List<dev.kairos.ir.Tmos.SegmentAccess> a, List<dev.kairos.ir.Tmos.SegmentAccess> b) {
    for (var x : a) {
      for (var y : b) {
        if (x.segment().equals(y.segment())
            && (x.access() == dev.kairos.ir.Tmos.Access.WRITE
                || y.access() == dev.kairos.ir.Tmos.Access.WRITE)) {
          return true;
        }
      }
    }
    return false;
  }
}
