package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.timing.ChainTopology.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How long a node's channel hub may wait for the processor before it passes a sample on, for one
 * pass of the holistic analysis (the nodes' reports and the requests' jitters of that pass); each
 * node's figure is computed once.
 */
final class HubWait {
  private final Map<String, TaskReport> tasks;
  private final Map<String, Long> requestJitter;
  private final Map<String, Long> waits = new HashMap<>();

  HubWait(Map<String, TaskReport> tasks, Map<String, Long> requestJitter) {
    this.tasks = tasks;
    this.requestJitter = requestJitter;
  }

  /**
   * How long a node's channel hub may wait for the processor before it passes a sample on (sends
   * it, or hands it to the readers' histories; on Linux DDS's receive thread does the latter for a
   * channel only other nodes publish, started on the same CPU). Its threads run below every lane,
   * on the CPU of the node's core 0, and run as soon as no lane there is ready: at most the longest
   * busy period of the methods there in which the hub's own work, however small, is done, w = e +
   * sum of ceil((w + J) / T) * C with e > 0 (1 ns): a method released at the instant the others'
   * work ends takes the processor before the hub does. J is a method's release jitter (the
   * platform's release lateness for an SpM, its requests' jitter for a service method).
   *
   * <p>A lane that waits for a reply is not ready, and the hub runs; but work the wait holds back
   * comes later, all at once. Two bounds, the smaller of which holds: C is what the method
   * computes, without its waits, and a method whose work may be put off past its release by
   * something that leaves the processor idle has R - C more jitter, as any self-suspending task (a
   * method that waits, and every method that a waiting one holds back: its lane, which serves
   * nothing else while it waits, or a segment, which it keeps while it waits); or C counts the
   * waits as execution, with no more jitter: from the instant when no lane is ready or waiting,
   * each instant either computes or waits some released work, so such a period ends by the time all
   * that work is done, and the hub's wait lies in one. The first needs a bounded response of every
   * method put off, the second a load of the methods and their waits below 1.
   *
   * <p>A one-shot SpM counts once. -1 without a bound: neither has one, or a service method has no
   * max-rate.
   */
  long of(Node node) {
    return waits.computeIfAbsent(node.name(), name -> hubWaitOf(node));
  }

  private long hubWaitOf(Node node) {
    final PlatformOverheads overheads = PlatformOverheads.of(node);
    final long releaseLateness = overheads.releaseJitterNs();
    final List<Method> methods = new ArrayList<>();
    for (Method method : methodsOf(node)) {
      final TaskReport task = tasks.get(method.name());
      if (task == null) {
        return -1;
      }
      if (task.core() == 0) {
        methods.add(method);
      }
    }
    final List<Method> waiting =
        methods.stream().filter(m -> m.deployment().tmo().callWaitNs(m.calls()) > 0).toList();
    // Rows {period, jitter, work} of each bound, and the one-shot SpMs' work.
    final List<long[]> suspending = new ArrayList<>();
    final List<long[]> waitsExecute = new ArrayList<>();
    long onceComputing = 0;
    long onceWaiting = 0;
    boolean suspendingBounded = true;
    for (Method method : methods) {
      final TaskReport task = tasks.get(method.name());
      final long waits = method.deployment().tmo().callWaitNs(method.calls());
      final long computes = task.wcetNs() - waits;
      final boolean service = method.svm().isPresent();
      if (method.periodNs() <= 0) {
        if (service) {
          return -1;
        }
        onceComputing += computes;
        onceWaiting += task.wcetNs();
        continue;
      }
      final long released =
          service
              ? overheads.requestJitterNs(requestJitter.getOrDefault(method.name(), 0L))
              : releaseLateness;
      waitsExecute.add(new long[] {method.periodNs(), released, task.wcetNs()});
      final boolean putOff = waiting.stream().anyMatch(w -> holdsBack(node, w, method));
      if (putOff && task.responseTimeNs() < 0) {
        suspendingBounded = false;
      }
      final long suspended = putOff ? Math.max(0, task.responseTimeNs() - computes) : 0;
      suspending.add(new long[] {method.periodNs(), released + suspended, computes});
    }
    final long bySuspension = suspendingBounded ? busyPeriod(onceComputing, suspending) : -1;
    final long byWaiting = waiting.isEmpty() ? -1 : busyPeriod(onceWaiting, waitsExecute);
    if (bySuspension < 0 || byWaiting < 0) {
      return Math.max(bySuspension, byWaiting);
    }
    return Math.min(bySuspension, byWaiting);
  }

  /**
   * The longest busy period of work {@code rows} ({period, jitter, work}) and {@code once}, in
   * which 1 ns of the hub's own is done; -1 where their load is 1 or more.
   */
  private static long busyPeriod(long once, List<long[]> rows) {
    double load = 0;
    for (long[] row : rows) {
      load += (double) row[2] / row[0];
    }
    if (load >= 1.0) {
      return -1;
    }
    try {
      final long own = Math.addExact(1, once);
      long busy = own;
      for (long[] row : rows) {
        busy = Math.addExact(busy, row[2]);
      }
      for (int iteration = 0; iteration < 100_000; iteration++) {
        long next = own;
        for (long[] row : rows) {
          final long arrivals = Interference.ceilDiv(Math.addExact(busy, row[1]), row[0]);
          next = Math.addExact(next, Math.multiplyExact(arrivals, row[2]));
        }
        if (next == busy) {
          return busy;
        }
        busy = next;
      }
    } catch (ArithmeticException beyond64Bits) {
      return -1;
    }
    return -1;
  }

  /**
   * Whether {@code method}'s work may wait, with the processor idle, while {@code waiting} waits
   * for a reply: it is that method, shares its lane (one per core and band, but a method of its own
   * each under preemptive EDF), or uses a segment of it.
   */
  private boolean holdsBack(Node node, Method waiting, Method method) {
    if (waiting == method) {
      return true;
    }
    final TaskReport waiter = tasks.get(waiting.name());
    final TaskReport task = tasks.get(method.name());
    final boolean sameLane =
        !node.strategy().preemptsByDeadline()
            && waiter.core() == task.core()
            && waiter.band() == task.band();
    final Set<String> held = segmentsOf(waiting);
    return sameLane || segmentsOf(method).stream().anyMatch(held::contains);
  }

  private static Set<String> segmentsOf(Method method) {
    return Resources.segmentsOf(method.deployment().instance(), method.declared().uses());
  }

  /** Every method deployed on {@code node}. */
  private static List<Method> methodsOf(Node node) {
    final List<Method> methods = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        methods.add(new Method(node, deployment, Optional.of(spm), Optional.empty()));
      }
      for (Svm svm : deployment.tmo().svms()) {
        methods.add(new Method(node, deployment, Optional.empty(), Optional.of(svm)));
      }
    }
    return methods;
  }
}
