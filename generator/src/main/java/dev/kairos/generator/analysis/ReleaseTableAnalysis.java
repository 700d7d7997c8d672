package dev.kairos.generator.analysis;

import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Tmos;
import dev.kairos.generator.ir.Tmos.Spm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The static release table of a node's spontaneous methods over one hyperperiod, played out exactly
 * as the engine dispatches it: every activation becomes ready when its start window opens, bands
 * preempt each other, a band serves its activations in order. With the real offsets of every AAC
 * this checks what response-time analysis cannot: that each activation starts inside its start
 * window, next to every other SpM of the node.
 */
public final class ReleaseTableAnalysis {
  /** Activations played out at most; longer hyperperiods are reported, not unrolled. */
  public static final int MAX_ACTIVATIONS = 200_000;

  private ReleaseTableAnalysis() {}

  /** Worst cases of one SpM over the table. */
  public record SpmTiming(
      String instance,
      String method,
      long activations,
      long worstStartLatencyNs,
      long worstResponseNs,
      long windowMisses,
      long deadlineMisses) {
    public boolean meets() {
      return windowMisses == 0 && deadlineMisses == 0;
    }
  }

  /** The table: its length (0 when too long to unroll) and the per-SpM outcome. */
  public record Table(long hyperperiodNs, boolean unrolled, List<SpmTiming> timings) {}

  private static final class Job {
    final int spm;
    final long release;
    final long ready;
    final long order;
    long remaining;
    long start = -1;

    Job(int spm, long release, long ready, long wcet, long order) {
      this.spm = spm;
      this.release = release;
      this.ready = ready;
      this.remaining = wcet;
      this.order = order;
    }
  }

  private record Row(String instance, Spm spm, long wcet, int band) {}

  public static Table analyse(Node node, List<TaskReport> tasks) {
    final List<Row> rows = new ArrayList<>();
    final java.util.Map<String, TaskReport> byName = SchedulingAnalysis.byName(tasks);
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        final TaskReport task = byName.get(deployment.instance() + "." + spm.name());
        rows.add(new Row(deployment.instance(), spm, task.wcetNs(), task.band()));
      }
    }
    long hyperperiod = 1;
    long latestStart = 0;
    for (Row row : rows) {
      if (row.spm.periodic()) {
        hyperperiod = lcm(hyperperiod, row.spm.periodNs());
      }
      latestStart = Math.max(latestStart, row.spm.firstReleaseNs());
    }
    if (hyperperiod < 0) {
      return new Table(0, false, List.of());
    }
    // Settle from the last first release, then observe one whole hyperperiod.
    final long horizon;
    try {
      horizon = Math.addExact(Math.addExact(latestStart, hyperperiod), hyperperiod);
    } catch (ArithmeticException e) {
      return new Table(hyperperiod, false, List.of());
    }
    final List<Job> jobs = new ArrayList<>();
    long order = 0;
    for (int i = 0; i < rows.size(); i++) {
      final Spm spm = rows.get(i).spm;
      final long last = spm.lastReleaseNs() == Tmos.FOREVER ? horizon : spm.lastReleaseNs();
      for (long t = spm.firstReleaseNs(); t <= last && t < horizon; ) {
        jobs.add(new Job(i, t, t + spm.windowOpenNs(), rows.get(i).wcet, order++));
        if (jobs.size() > MAX_ACTIVATIONS) {
          return new Table(hyperperiod, false, List.of());
        }
        if (!spm.periodic()) {
          break;
        }
        t += spm.periodNs();
      }
    }
    jobs.sort(Comparator.comparingLong((Job j) -> j.ready).thenComparingLong(j -> j.order));

    // Ready activations: highest band first, then the band's queue discipline (Kokyu), then
    // the order they became ready.
    final dev.kairos.generator.ir.Platform.Strategy strategy = node.strategy();
    final boolean softLaxity = strategy == dev.kairos.generator.ir.Platform.Strategy.RMS_MLF;
    final java.util.function.ToLongFunction<Job> discipline =
        j -> {
          final Row row = rows.get(j.spm);
          final long deadline = j.release + row.spm.deadlineNs();
          return switch (strategy) {
            case RMS -> 0;
            case EDF -> deadline;
            case MLF, MUF -> deadline - row.wcet;
            case RMS_MLF ->
                softLaxity && row.spm.criticality() == Tmos.Criticality.SOFT
                    ? deadline - row.wcet
                    : 0;
          };
        };
    final PriorityQueue<Job> ready =
        new PriorityQueue<>(
            Comparator.comparingInt((Job j) -> -rows.get(j.spm).band)
                .thenComparingLong(discipline)
                .thenComparingLong(j -> -(long) rows.get(j.spm).spm.importance())
                .thenComparingLong(j -> j.ready)
                .thenComparingLong(j -> j.order));
    final List<Stats> stats = new ArrayList<>();
    rows.forEach(row -> stats.add(new Stats()));
    int next = 0;
    long now = 0;
    Job running = null;
    // A lane runs its activations to completion; one preempted by a higher band resumes first.
    final java.util.ArrayDeque<Job> preempted = new java.util.ArrayDeque<>();
    while (next < jobs.size() || !ready.isEmpty() || running != null || !preempted.isEmpty()) {
      if (running == null && ready.isEmpty() && preempted.isEmpty()) {
        now = Math.max(now, jobs.get(next).ready);
      }
      while (next < jobs.size() && jobs.get(next).ready <= now) {
        ready.add(jobs.get(next++));
      }
      if (running != null
          && !ready.isEmpty()
          && rows.get(ready.peek().spm).band > rows.get(running.spm).band) {
        preempted.push(running); // its lane resumes it before anything else of its band
        running = null;
      }
      if (running == null) {
        final boolean resume =
            !preempted.isEmpty()
                && (ready.isEmpty()
                    || rows.get(preempted.peek().spm).band >= rows.get(ready.peek().spm).band);
        running = resume ? preempted.pop() : ready.poll();
        final Row row = rows.get(running.spm);
        if (running.start < 0) {
          running.start = now;
          if (now > running.release + row.spm.windowCloseNs()) {
            // The engine does not start it: a start-window miss, and no execution.
            stats.get(running.spm).dropped(running, now);
            running = null;
            continue;
          }
        }
      }
      final long arrival = next < jobs.size() ? jobs.get(next).ready : Long.MAX_VALUE;
      final long finish = now + running.remaining;
      if (finish <= arrival) {
        now = finish;
        stats.get(running.spm).finished(running, now, rows.get(running.spm).spm.deadlineNs());
        running = null;
      } else {
        running.remaining -= arrival - now;
        now = arrival;
      }
    }
    final List<SpmTiming> timings = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      final Stats row = stats.get(i);
      timings.add(
          new SpmTiming(
              rows.get(i).instance,
              rows.get(i).spm.name(),
              row.count,
              row.worstStart,
              row.worstResponse,
              row.windowMisses,
              row.deadlineMisses));
    }
    return new Table(hyperperiod, true, timings);
  }

  /** What happened to the activations of one SpM in the table. */
  private static final class Stats {
    long count;
    long worstStart;
    long worstResponse;
    long windowMisses;
    long deadlineMisses;

    /** Not started: its start window had closed when its band was free. */
    void dropped(Job job, long now) {
      count++;
      worstStart = Math.max(worstStart, now - job.ready);
      windowMisses++;
    }

    void finished(Job job, long finish, long relativeDeadlineNs) {
      count++;
      worstStart = Math.max(worstStart, job.start - job.ready);
      worstResponse = Math.max(worstResponse, finish - job.release);
      if (finish > job.release + relativeDeadlineNs) {
        deadlineMisses++;
      }
    }
  }

  static long lcm(long a, long b) {
    long x = a;
    long y = b;
    while (y != 0) {
      final long t = x % y;
      x = y;
      y = t;
    }
    try {
      return Math.multiplyExact(a / x, b);
    } catch (ArithmeticException e) {
      return -1;
    }
  }
}
