package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.Strategy;
import dev.kairos.ir.Tmos;
import dev.kairos.timing.ReleaseTableAnalysis.Job;
import dev.kairos.timing.ReleaseTableAnalysis.Observer;
import dev.kairos.timing.ReleaseTableAnalysis.Row;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Plays a processor's jobs, sorted by readiness, as the engine dispatches them: the highest band
 * first, inside a band by the dispatch rule, preemptive EDF under the Stack Resource Policy.
 */
final class JobPlayer {
  private JobPlayer() {}

  /** Plays the jobs (sorted by readiness) as the engine dispatches them. */
  static void play(
      Strategy strategy,
      List<Row> rows,
      java.util.Map<String, Long> srpCeilings,
      List<Job> jobs,
      Observer observer) {
    // Ready activations: highest band first, then the band's queue discipline (Kokyu), then
    // the order they became ready: the engine's rule (discipline_for and Engine::key_of).
    final Comparator<Job> urgency =
        Comparator.comparingInt((Job j) -> -rows.get(j.spm).band())
            .thenComparingLong(j -> DispatchRule.readyKey(strategy, rows.get(j.spm), j)[0])
            .thenComparingLong(j -> DispatchRule.readyKey(strategy, rows.get(j.spm), j)[1])
            .thenComparingLong(j -> j.ready)
            .thenComparingLong(j -> j.order);
    final PriorityQueue<Job> ready = new PriorityQueue<>(urgency);
    final StackResourcePolicy srp =
        strategy.preemptsByDeadline() ? new StackResourcePolicy(rows, srpCeilings) : null;
    int next = 0;
    long now = 0;
    Job running = null;
    // A lane runs its activations to completion; one preempted by a higher band (or, under
    // preemptive EDF, by an earlier deadline) resumes first.
    final ArrayDeque<Job> preempted = new ArrayDeque<>();
    while (next < jobs.size() || !ready.isEmpty() || running != null || !preempted.isEmpty()) {
      if (running == null && ready.isEmpty() && preempted.isEmpty()) {
        now = Math.max(now, jobs.get(next).ready);
      }
      while (next < jobs.size() && jobs.get(next).ready <= now) {
        ready.add(jobs.get(next++));
      }
      final Job candidate = srp == null ? ready.peek() : srp.mostUrgentStartable(ready, urgency);
      if (running != null
          && candidate != null
          && DispatchRule.outranks(strategy, rows, candidate, running)) {
        preempted.push(running); // its lane resumes it before anything else of its band
        running = null;
      }
      if (running == null) {
        final boolean resume =
            !preempted.isEmpty()
                && (candidate == null
                    || !DispatchRule.outranks(strategy, rows, candidate, preempted.peek()));
        if (!resume && candidate == null) {
          // Every ready job waits for the system ceiling to drop, and nothing holds it: cannot be.
          throw new IllegalStateException("SRP blocked every ready job with nothing running");
        }
        if (resume) {
          running = preempted.pop();
        } else {
          running = candidate;
          ready.remove(candidate);
        }
        final Row row = rows.get(running.spm);
        if (running.start < 0) {
          running.start = now;
          if (now > running.release + row.spm().windowCloseNs()) {
            // The engine does not start it: a start-window miss, and no execution.
            running.dropped = true;
            observer.dropped(running, now);
            running = null;
            continue;
          }
          if (srp != null) {
            srp.hold(running);
          }
        }
      }
      final long arrival = next < jobs.size() ? jobs.get(next).ready : Long.MAX_VALUE;
      final long finish = now + running.remaining;
      if (finish <= arrival) {
        observer.ran(running, now, finish);
        now = finish;
        running.remaining = 0;
        running.finish = now;
        if (srp != null) {
          srp.release(running);
        }
        observer.finished(running, now);
        running = null;
      } else {
        observer.ran(running, now, arrival);
        running.remaining -= arrival - now;
        now = arrival;
      }
    }
  }

  /**
   * Each segment's SRP ceiling as a relative deadline: the shortest of its users', SpMs from their
   * window's opening and service methods (which the table does not play) their GCT from arrival.
   */
  static java.util.Map<String, Long> srpCeilings(Node node, List<Row> rows) {
    final java.util.Map<String, Long> ceilings = new java.util.HashMap<>();
    for (Row row : rows) {
      for (String segment : row.segments()) {
        ceilings.merge(segment, row.relativeDeadline(), Math::min);
      }
    }
    for (Deployment deployment : node.deployments()) {
      for (Tmos.Svm svm : deployment.tmo().svms()) {
        for (String segment : Resources.segmentsOf(deployment.instance(), svm.uses())) {
          ceilings.merge(segment, svm.gctNs(), Math::min);
        }
      }
    }
    return ceilings;
  }

  /**
   * Baker's Stack Resource Policy as the engine applies it under preemptive EDF: a job's preemption
   * level orders rows by relative deadline (shorter is higher), a segment's ceiling is the highest
   * level of its users, and a job starts only when its level is above the ceiling of every segment
   * that started jobs hold. It then never waits for a segment.
   */
  private static final class StackResourcePolicy {
    private final List<Row> rows;
    private final java.util.Map<String, Long> ceilings;
    private final java.util.Map<String, Integer> holders = new java.util.HashMap<>();

    StackResourcePolicy(List<Row> rows, java.util.Map<String, Long> ceilings) {
      this.rows = rows;
      this.ceilings = ceilings;
    }

    /** The system ceiling as a relative deadline: a job starts if its own is strictly shorter. */
    private long ceiling() {
      long ceiling = Long.MAX_VALUE;
      for (java.util.Map.Entry<String, Integer> held : holders.entrySet()) {
        if (held.getValue() > 0) {
          ceiling = Math.min(ceiling, ceilings.get(held.getKey()));
        }
      }
      return ceiling;
    }

    Job mostUrgentStartable(PriorityQueue<Job> ready, Comparator<Job> urgency) {
      final long ceiling = ceiling();
      Job best = null;
      for (Job job : ready) {
        final boolean startable = job.start >= 0 || rows.get(job.spm).relativeDeadline() < ceiling;
        if (startable && (best == null || urgency.compare(job, best) < 0)) {
          best = job;
        }
      }
      return best;
    }

    void hold(Job job) {
      rows.get(job.spm).segments().forEach(segment -> holders.merge(segment, 1, Integer::sum));
    }

    void release(Job job) {
      rows.get(job.spm).segments().forEach(segment -> holders.merge(segment, -1, Integer::sum));
    }
  }
}
