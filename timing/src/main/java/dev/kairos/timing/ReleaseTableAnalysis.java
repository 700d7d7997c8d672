package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.Strategy;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Spm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The static release table of a node's spontaneous methods over one hyperperiod, played out exactly
 * as the engine dispatches it: every activation becomes ready when its start window opens, bands
 * preempt each other, a band serves its activations in order. Under preemptive EDF ({@code edf}) an
 * activation with an earlier absolute deadline also preempts within the band, when the Stack
 * Resource Policy lets it start (as the engine's lanes do, one per method). With the real offsets
 * of every AAC this checks what response-time analysis cannot: that each activation starts inside
 * its start window, next to every other SpM of the node.
 *
 * <p>Besides the verdict it keeps a bounded trace of the beginning of the table (releases, windows,
 * execution slices, deadlines) for reports to draw.
 */
public final class ReleaseTableAnalysis {
  /** Activations a trace covers at most: a longer hyperperiod is traced from its beginning. */
  public static final int MAX_TRACED_ACTIVATIONS = 240;

  /** SpMs a trace keeps, highest bands first; the others are played but not traced. */
  public static final int MAX_TRACED_SPMS = 32;

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

  /**
   * The table: the grid of its SpMs' periods, whether it was unrolled (at most {@link
   * ReleaseGrid#MAX_RELEASES} activations played), the per-SpM outcome, and the trace of its
   * beginning (empty when the node has no SpM).
   */
  public record Playout(
      ReleaseGrid grid, boolean unrolled, List<SpmTiming> timings, Optional<Trace> trace) {
    /** The hyperperiod; 0 when nothing repeats or it is beyond 64 bits. */
    public long hyperperiodNs() {
      return grid.hyperperiodNs();
    }
  }

  /** How much of the table a trace covers. */
  public enum Extent {
    /** From 0 to the end of the first whole hyperperiod after the last first release. */
    HYPERPERIOD,
    /** Every activation there is (no hyperperiod: only one-shot or bounded SpMs). */
    ALL_ACTIVATIONS,
    /** The beginning: the whole would hold more than {@link #MAX_TRACED_ACTIVATIONS}. */
    BEGINNING
  }

  /**
   * What the table does from time 0 to {@code endNs}. Exact: nothing before {@code endNs} depends
   * on releases after it, and an outcome the view cannot decide is {@link Outcome#OPEN}.
   *
   * @param activations activations of every SpM released in the view, traced or not
   * @param spms the traced SpMs in the node's priority order
   * @param untracedSpms SpMs played but not traced (beyond {@link #MAX_TRACED_SPMS})
   */
  public record Trace(
      long endNs, Extent extent, int activations, List<TracedSpm> spms, int untracedSpms) {}

  /** One SpM in a trace, with its activations released in the view, in release order. */
  public record TracedSpm(
      String instance,
      String method,
      Criticality criticality,
      boolean periodic,
      List<Activation> activations) {}

  /** What became of an activation, as far as the view shows. */
  public enum Outcome {
    MET,
    /** Not started: its start window had closed when its band was free. */
    WINDOW_MISSED,
    /** Started, but finished after its deadline. */
    DEADLINE_MISSED,
    /** Not decided before the end of the view. */
    OPEN
  }

  /**
   * One activation, in absolute nanoseconds.
   *
   * @param startNs when it started, -1 if not started in the view (or not at all)
   * @param finishNs when it finished, -1 if not within the view
   * @param executions when it ran, one slice per stretch between preemptions, cut at the view's end
   */
  public record Activation(
      long releaseNs,
      long windowOpenNs,
      long windowCloseNs,
      long deadlineNs,
      long startNs,
      long finishNs,
      Outcome outcome,
      List<Execution> executions) {}

  /** A stretch of execution: [startNs, endNs). */
  public record Execution(long startNs, long endNs) {}

  static final class Job {
    final int spm;
    final long release;
    final long ready;
    final long order;
    long remaining;
    long start = -1;
    long finish = -1;
    boolean dropped;
    List<Execution> executions;

    Job(int spm, long release, long ready, long wcet, long order) {
      this.spm = spm;
      this.release = release;
      this.ready = ready;
      this.remaining = wcet;
      this.order = order;
    }
  }

  /**
   * An SpM row as the play needs it: charged WCET, band, and the segments it holds from start to
   * finish (named {@code instance.segment}, for the Stack Resource Policy under preemptive EDF).
   */
  record Row(String instance, Spm spm, long wcet, int band, Set<String> segments) {
    /** Its relative deadline from the arrival of a job (window opening): the SRP level order. */
    long relativeDeadline() {
      return spm.deadlineNs() - spm.windowOpenNs();
    }
  }

  /** What the play reports as it goes. */
  interface Observer {
    /** The job ran from `from` to `to` without interruption. */
    default void ran(Job job, long from, long to) {}

    /** Not started: its start window had closed when its band was free. */
    void dropped(Job job, long now);

    void finished(Job job, long now);
  }

  public static Playout analyse(Node node, List<TaskReport> tasks) {
    final List<Row> rows = new ArrayList<>();
    final java.util.Map<String, TaskReport> byName = TaskReport.byName(tasks);
    // Each job runs for what the analysis charges it: its WCET and the platform's overheads
    // (releases are played on time: their lateness is in the response-time bounds).
    final PlatformOverheads overheads = PlatformOverheads.of(node);
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        final TaskReport task = byName.get(deployment.instance() + "." + spm.name());
        final Set<String> segments = Resources.segmentsOf(deployment.instance(), spm.uses());
        rows.add(
            new Row(
                deployment.instance(),
                spm,
                overheads.chargedNs(
                    task.wcetNs(),
                    segments.size(),
                    PlatformOverheads.messages(false, spm.calls().size())),
                task.band(),
                segments));
      }
    }
    final java.util.Map<String, Long> srpCeilings = JobPlayer.srpCeilings(node, rows);
    final ReleaseGrid grid = ReleaseGrid.of(rows.stream().mapToLong(row -> row.spm.periodNs()));
    // One-shot methods alone are played once, over a nominal cycle of 1 ns.
    final long cycle = grid.cyclic() ? grid.hyperperiodNs() : 1;
    long latestStart = 0;
    for (Row row : rows) {
      latestStart = Math.max(latestStart, row.spm.firstReleaseNs());
    }
    final Optional<Trace> trace =
        rows.isEmpty()
            ? Optional.empty()
            : Optional.of(
                trace(
                    node.strategy(),
                    rows,
                    srpCeilings,
                    tasks,
                    grid.cyclic() ? cycle : -1,
                    latestStart));
    if (grid.beyond64Bits()) {
      return new Playout(grid, false, List.of(), trace);
    }
    // Settle from the last first release, then observe one whole hyperperiod.
    final long horizon;
    try {
      horizon = Math.addExact(Math.addExact(latestStart, cycle), cycle);
    } catch (ArithmeticException e) {
      return new Playout(grid, false, List.of(), trace);
    }
    final List<Job> jobs = releasedBefore(rows, horizon);
    if (jobs == null) {
      return new Playout(grid, false, List.of(), trace);
    }
    final List<Stats> stats = new ArrayList<>();
    rows.forEach(row -> stats.add(new Stats()));
    JobPlayer.play(
        node.strategy(),
        rows,
        srpCeilings,
        jobs,
        new Observer() {
          @Override
          public void dropped(Job job, long now) {
            stats.get(job.spm).dropped(job, now);
          }

          @Override
          public void finished(Job job, long now) {
            stats.get(job.spm).finished(job, now, rows.get(job.spm).spm.deadlineNs());
          }
        });
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
    return new Playout(grid, true, timings, trace);
  }

  /**
   * Every activation released before `horizon`, sorted by the moment it becomes ready; null when
   * there are more than an analysis examines ({@link ReleaseGrid#MAX_RELEASES}).
   */
  private static List<Job> releasedBefore(List<Row> rows, long horizon) {
    return releasedBefore(rows, horizon, ReleaseGrid.MAX_RELEASES);
  }

  /** Every activation released before `horizon`, in ready order; null when more than `limit`. */
  private static List<Job> releasedBefore(List<Row> rows, long horizon, int limit) {
    final List<Job> jobs = new ArrayList<>();
    long order = 0;
    for (int i = 0; i < rows.size(); i++) {
      final Spm spm = rows.get(i).spm;
      final long last = spm.lastReleaseNs() == Tmos.FOREVER ? horizon : spm.lastReleaseNs();
      for (long t = spm.firstReleaseNs(); t <= last && t < horizon; ) {
        jobs.add(new Job(i, t, t + spm.windowOpenNs(), rows.get(i).wcet, order++));
        if (jobs.size() > limit) {
          return null;
        }
        if (!spm.periodic() || t > Long.MAX_VALUE - spm.periodNs()) {
          break;
        }
        t += spm.periodNs();
      }
    }
    jobs.sort(Comparator.comparingLong((Job j) -> j.ready).thenComparingLong(j -> j.order));
    return jobs;
  }

  /**
   * Plays the beginning of the table again, bounded, and records what the traced SpMs do. The view
   * is the first hyperperiod (after the last first release) when it holds at most {@link
   * #MAX_TRACED_ACTIVATIONS}, otherwise it ends at the release of the first activation beyond them.
   *
   * @param hyperperiod -1 when there is none (no periodic SpM) or it is beyond 64 bits
   */
  private static Trace trace(
      Strategy strategy,
      List<Row> rows,
      java.util.Map<String, Long> srpCeilings,
      List<TaskReport> tasks,
      long hyperperiod,
      long settle) {
    long hyperperiodEnd = -1;
    if (hyperperiod > 0 && settle <= Long.MAX_VALUE - hyperperiod) {
      hyperperiodEnd = settle + hyperperiod;
    }
    final long cut = releaseBeyond(rows, MAX_TRACED_ACTIVATIONS);
    final Extent extent;
    final List<Job> jobs;
    if (hyperperiodEnd > 0 && hyperperiodEnd <= cut) {
      extent = Extent.HYPERPERIOD;
      jobs = releasedBefore(rows, hyperperiodEnd, Integer.MAX_VALUE);
    } else if (cut == Long.MAX_VALUE) {
      extent = Extent.ALL_ACTIVATIONS;
      jobs = releasedBefore(rows, Long.MAX_VALUE, Integer.MAX_VALUE);
    } else {
      extent = Extent.BEGINNING;
      jobs = releasedBefore(rows, cut, Integer.MAX_VALUE);
    }

    // The traced SpMs: the first in the node's priority order (the task order).
    final int[] traced = new int[rows.size()];
    Arrays.fill(traced, -1);
    final List<Row> tracedRows = new ArrayList<>();
    for (TaskReport task : tasks) {
      if (task.kind() != TaskReport.Kind.SPM || tracedRows.size() == MAX_TRACED_SPMS) {
        continue;
      }
      for (int i = 0; i < rows.size(); i++) {
        if (rows.get(i).instance.equals(task.instance())
            && rows.get(i).spm.name().equals(task.method())) {
          traced[i] = tracedRows.size();
          tracedRows.add(rows.get(i));
        }
      }
    }
    for (Job job : jobs) {
      if (traced[job.spm] >= 0) {
        job.executions = new ArrayList<>();
      }
    }
    JobPlayer.play(
        strategy,
        rows,
        srpCeilings,
        jobs,
        new Observer() {
          @Override
          public void ran(Job job, long from, long to) {
            if (job.executions == null) {
              return;
            }
            final List<Execution> slices = job.executions;
            if (!slices.isEmpty() && slices.get(slices.size() - 1).endNs() == from) {
              // Only a preemption splits a stretch: an arrival that did not preempt does not.
              from = slices.remove(slices.size() - 1).startNs();
            }
            slices.add(new Execution(from, to));
          }

          @Override
          public void dropped(Job job, long now) {}

          @Override
          public void finished(Job job, long now) {}
        });

    long end = extent == Extent.HYPERPERIOD ? hyperperiodEnd : cut;
    // With every activation played to its end, every outcome is decided; the view ends with
    // the last thing that happens.
    final long decidedBefore = extent == Extent.ALL_ACTIVATIONS ? Long.MAX_VALUE : end;
    if (extent == Extent.ALL_ACTIVATIONS) {
      end = 1;
      for (Job job : jobs) {
        final Spm spm = rows.get(job.spm).spm;
        end = Math.max(end, Math.max(job.finish, job.release + spm.deadlineNs()));
        end = Math.max(end, job.release + spm.windowCloseNs());
      }
    }
    final List<List<Activation>> activations = new ArrayList<>();
    tracedRows.forEach(row -> activations.add(new ArrayList<>()));
    for (Job job : jobs) {
      if (traced[job.spm] >= 0) {
        activations
            .get(traced[job.spm])
            .add(activation(job, rows.get(job.spm).spm, decidedBefore, end));
      }
    }
    for (List<Activation> list : activations) {
      list.sort(Comparator.comparingLong(Activation::releaseNs));
    }
    final List<TracedSpm> spms = new ArrayList<>();
    for (int i = 0; i < tracedRows.size(); i++) {
      final Row row = tracedRows.get(i);
      spms.add(
          new TracedSpm(
              row.instance,
              row.spm.name(),
              row.spm.criticality(),
              row.spm.periodic(),
              List.copyOf(activations.get(i))));
    }
    return new Trace(end, extent, jobs.size(), spms, rows.size() - tracedRows.size());
  }

  /**
   * What the view shows of one activation: what happened before `end` (in a play of only the
   * activations released before it, exact up to there), its executions cut at `clip`.
   */
  private static Activation activation(Job job, Spm spm, long end, long clip) {
    final long windowClose = job.release + spm.windowCloseNs();
    final long deadline = job.release + spm.deadlineNs();
    final boolean startedInView = job.start >= 0 && job.start < end;
    final boolean finishedInView = job.finish >= 0 && job.finish <= end;
    final Outcome outcome;
    if (!startedInView) {
      // Not started before the end: missed for certain once the window closed before it.
      outcome = windowClose < end ? Outcome.WINDOW_MISSED : Outcome.OPEN;
    } else if (job.dropped) {
      outcome = Outcome.WINDOW_MISSED;
    } else if (finishedInView) {
      outcome = job.finish > deadline ? Outcome.DEADLINE_MISSED : Outcome.MET;
    } else {
      // Still running at the end: it finishes after it, so after a deadline at or before it.
      outcome = deadline <= end ? Outcome.DEADLINE_MISSED : Outcome.OPEN;
    }
    final List<Execution> executions = new ArrayList<>();
    for (Execution slice : job.executions) {
      if (slice.startNs() < clip) {
        executions.add(new Execution(slice.startNs(), Math.min(slice.endNs(), clip)));
      }
    }
    return new Activation(
        job.release,
        job.release + spm.windowOpenNs(),
        windowClose,
        deadline,
        startedInView && !job.dropped ? job.start : -1,
        finishedInView ? job.finish : -1,
        outcome,
        List.copyOf(executions));
  }

  /**
   * The release instant of the first activation beyond the first `count` (in release order), or
   * Long.MAX_VALUE when there are no more. It is always later than the first release, so a view
   * ending there is never empty.
   */
  private static long releaseBeyond(List<Row> rows, int count) {
    // One cursor per SpM: {next release, row}; merged in release order.
    final PriorityQueue<long[]> cursors =
        new PriorityQueue<>(
            Comparator.comparingLong((long[] c) -> c[0]).thenComparingLong(c -> c[1]));
    for (int i = 0; i < rows.size(); i++) {
      cursors.add(new long[] {rows.get(i).spm.firstReleaseNs(), i});
    }
    long first = -1;
    for (int taken = 0; !cursors.isEmpty(); taken++) {
      final long[] cursor = cursors.peek();
      if (first < 0) {
        first = cursor[0];
      }
      if (taken >= count && cursor[0] > first) {
        return cursor[0];
      }
      cursors.poll();
      final Spm spm = rows.get((int) cursor[1]).spm;
      final long last = spm.lastReleaseNs() == Tmos.FOREVER ? Long.MAX_VALUE : spm.lastReleaseNs();
      if (spm.periodic()
          && cursor[0] <= Long.MAX_VALUE - spm.periodNs()
          && cursor[0] + spm.periodNs() <= last) {
        cursors.add(new long[] {cursor[0] + spm.periodNs(), cursor[1]});
      }
    }
    return Long.MAX_VALUE;
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
}
