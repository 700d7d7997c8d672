package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One host CPU that runs cores of several nodes: the bands of those cores merged into one order of
 * host priorities, and every method's bound under it.
 *
 * <p>A band of one node core is a group: its methods share a lane and a priority. The host gives
 * every group a priority level of its own (groups of different nodes never tie: a tie would let
 * each delay the other), and keeps each node's own order of its bands, on which its segments'
 * ceilings and its own analysis rest. The levels are found as Audsley's optimal priority assignment
 * finds them, from the lowest up: at each level, the lowest unplaced band of some node core whose
 * methods all keep their deadlines there, with every unplaced group above them, and blocked by a
 * placed (lower) method only through a segment whose ceiling reaches them. Where no band fits a
 * level, no order of the groups keeps every deadline (the test at a level does not depend on the
 * order above it), and the CPU is reported with its bands merged as they are.
 *
 * <p>Deadline-scheduled lanes (SCHED_DEADLINE) run above every fixed-priority one and are left out
 * of the order; another node's method that waits for gate replies interferes only with the
 * processor time it computes, its wait taken as release jitter (a self-suspending task).
 */
final class SharedCpu {
  private SharedCpu() {}

  /** The band unplaced groups have while a level is tested: above every level. */
  private static final int ABOVE_EVERY_LEVEL = 500;

  /** The band deadline-scheduled jobs have as fixed-priority jobs see them. */
  private static final int ABOVE_EVERY_BAND = 1_000;

  /** A method of a node as the analysis of a shared CPU takes it. */
  static final class Job {
    final String node;
    final TaskReport report;
    final TaskDraft draft;
    final boolean byDeadline;
    final long windowOpenNs;
    final boolean counts;

    /** What the node's own analysis adds on top of response-time analysis on its core. */
    long ownDelayNs;

    /** What comes after the busy period in its response: release lateness or a handoff. */
    long finishJitterNs;

    Job(
        String node,
        TaskReport report,
        TaskDraft draft,
        boolean byDeadline,
        long windowOpenNs,
        boolean counts) {
      this.node = node;
      this.report = report;
      this.draft = draft;
      this.byDeadline = byDeadline;
      this.windowOpenNs = windowOpenNs;
      this.counts = counts;
    }

    String key() {
      return node + "/" + report.name();
    }

    NodeCoreBand group() {
      return new NodeCoreBand(node, report.core(), report.band());
    }
  }

  /** A band of a node core: the methods of one lane. */
  record NodeCoreBand(String node, int core, int band) {}

  /** A CPU's verdict: the host band of each group (empty where none fits) and each job's bound. */
  record Result(Map<NodeCoreBand, Integer> levels, Map<Job, Long> bounds) {}

  /**
   * The node's methods as it analysed them: each drafted again (its charged WCET and segments, with
   * its node qualified), with the band and jitter of its report, and the delay its node's own
   * analysis added beyond response-time analysis on its core.
   */
  static List<Job> jobs(NodePlan plan) {
    final Node node = plan.node();
    final PlatformOverheads overheads = PlatformOverheads.of(node);
    final boolean byDeadline = node.strategy().preemptsByDeadline();
    final boolean guaranteesAll = !SchedulingAnalysis.criticalityAware(node.strategy());
    final Map<String, TaskReport> reports = TaskReport.byName(plan.tasks());
    final Map<Integer, List<Job>> byCore = new TreeMap<>();
    for (Deployment deployment : node.deployments()) {
      for (Method method : deployment.tmo().methods()) {
        final TaskReport report = reports.get(deployment.instance() + "." + method.name());
        if (report == null) {
          continue;
        }
        final TaskDraft own =
            SchedulingAnalysis.draft(node, overheads, deployment, method, new ArrayList<>());
        final TaskDraft qualified =
            new TaskDraft(
                node.name() + "/" + own.instance,
                own.method,
                own.kind,
                own.criticality,
                own.periodNs,
                own.declaredWcetNs,
                own.wcetNs,
                own.deadlineNs,
                own.source,
                own.segments.stream().map(s -> node.name() + "/" + s).collect(Collectors.toSet()));
        qualified.replyWaitNs = own.replyWaitNs;
        qualified.band = report.band();
        qualified.jitterNs = report.jitterNs();
        final long windowOpen =
            method instanceof dev.kairos.ir.Tmos.Spm spm ? spm.windowOpenNs() : 0;
        final boolean counts = guaranteesAll || report.criticality() == Criticality.HARD;
        final Job job = new Job(node.name(), report, qualified, byDeadline, windowOpen, counts);
        job.finishJitterNs =
            report.kind() == TaskReport.Kind.SPM ? report.jitterNs() : overheads.serviceJitterNs();
        byCore.computeIfAbsent(report.core(), c -> new ArrayList<>()).add(job);
      }
    }
    final List<Job> jobs = new ArrayList<>();
    for (List<Job> core : byCore.values()) {
      // The core alone, as its node's analysis saw it: what that analysis found beyond this
      // response time (an admission wait, a start window the release table plays late) is a delay
      // of the method's own, which sharing the CPU does not take away.
      final List<TaskDraft> drafts = core.stream().map(j -> j.draft).toList();
      PriorityBands.assignBlocking(drafts);
      final Interference alone = new Interference(drafts);
      for (Job job : core) {
        final long rta = alone.responseTime(job.draft);
        final long reported = job.report.responseTimeNs();
        job.ownDelayNs =
            rta < 0 || reported < 0 ? 0 : Math.max(0, reported - (rta + job.finishJitterNs));
      }
      jobs.addAll(core);
    }
    return jobs;
  }

  /** The CPU's groups in host levels, and every job's bound; see the class comment. */
  static Result analyse(List<Job> jobs) {
    final Map<Job, Long> bounds = new LinkedHashMap<>();
    if (jobs.stream().map(j -> j.node + "/" + j.report.core()).distinct().count() <= 1) {
      // A node core alone on its CPU: as its node's analysis found, at its own bands.
      jobs.forEach(job -> bounds.put(job, job.report.responseTimeNs()));
      return new Result(Map.of(), bounds);
    }
    final List<Job> byDeadline = jobs.stream().filter(j -> j.byDeadline).toList();
    final boolean deadlinesHold = byDeadline.isEmpty() || demandHolds(byDeadline);
    for (Job job : byDeadline) {
      bounds.put(job, deadlinesHold ? job.report.responseTimeNs() : -1);
    }
    final Map<NodeCoreBand, Integer> levels = levels(jobs);
    for (Job job : jobs) {
      if (!job.byDeadline) {
        bounds.put(job, bound(job, jobs, levels.isEmpty() ? null : levels));
      }
    }
    return new Result(levels, bounds);
  }

  /**
   * The host level of every fixed-priority group, from 1 up, by Audsley's assignment with each node
   * core's bands kept in their order; empty where some level fits no group.
   */
  private static Map<NodeCoreBand, Integer> levels(List<Job> jobs) {
    // Each node core's bands, lowest first: only the lowest unplaced one may take the next level.
    final Map<String, List<NodeCoreBand>> chains = new LinkedHashMap<>();
    jobs.stream()
        .filter(j -> !j.byDeadline)
        .map(Job::group)
        .distinct()
        .sorted(Comparator.comparingInt(NodeCoreBand::band))
        .forEach(
            g -> chains.computeIfAbsent(g.node() + "/" + g.core(), k -> new ArrayList<>()).add(g));
    final Map<NodeCoreBand, Integer> levels = new LinkedHashMap<>();
    final int groups = chains.values().stream().mapToInt(List::size).sum();
    for (int level = 1; level <= groups; level++) {
      NodeCoreBand placed = null;
      for (List<NodeCoreBand> chain : chains.values()) {
        final NodeCoreBand lowest =
            chain.stream().filter(g -> !levels.containsKey(g)).findFirst().orElse(null);
        if (lowest == null) {
          continue;
        }
        levels.put(lowest, level);
        if (fitsAt(lowest, jobs, levels)) {
          placed = lowest;
          break;
        }
        levels.remove(lowest);
      }
      if (placed == null) {
        return Map.of();
      }
    }
    return levels;
  }

  /** Whether every counting method of {@code group} keeps its deadline at its level. */
  private static boolean fitsAt(
      NodeCoreBand group, List<Job> jobs, Map<NodeCoreBand, Integer> levels) {
    for (Job job : jobs) {
      if (!job.byDeadline && job.group().equals(group) && job.counts) {
        final long bound = bound(job, jobs, levels);
        if (bound < 0 || bound > job.report.deadlineNs()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * A job's bound on the CPU: response-time analysis over every job there, each at its host level
   * ({@code levels}; groups not in it above every level), or at its node's band where {@code
   * levels} is null (the bands merged as they are, for a CPU no order fits). -1: none.
   */
  private static long bound(Job job, List<Job> jobs, Map<NodeCoreBand, Integer> levels) {
    if (job.report.responseTimeNs() < 0) {
      return -1;
    }
    final List<TaskDraft> seen = new ArrayList<>();
    TaskDraft self = null;
    for (Job other : jobs) {
      final int band =
          other.byDeadline
              ? ABOVE_EVERY_BAND
              : levels == null
                  ? other.draft.band
                  : levels.getOrDefault(other.group(), ABOVE_EVERY_LEVEL);
      final TaskDraft copy;
      if (other == job) {
        copy = copy(job.draft, job.draft.wcetNs + job.ownDelayNs, band, job.draft.jitterNs);
        self = copy;
      } else if (other.node.equals(job.node)) {
        copy = copy(other.draft, other.draft.wcetNs, band, other.draft.jitterNs);
      } else {
        // Another node's method: what it computes, its wait for gate replies as release jitter.
        copy =
            copy(
                other.draft,
                other.draft.wcetNs - other.draft.replyWaitNs,
                band,
                other.draft.jitterNs + other.draft.replyWaitNs);
      }
      seen.add(copy);
    }
    PriorityBands.assignBlocking(seen);
    final long busy = new Interference(seen).responseTime(self);
    return busy < 0 ? -1 : busy + job.finishJitterNs;
  }

  private static TaskDraft copy(TaskDraft draft, long chargedNs, int band, long jitterNs) {
    final TaskDraft copy =
        new TaskDraft(
            draft.instance,
            draft.method,
            draft.kind,
            draft.criticality,
            draft.periodNs,
            draft.declaredWcetNs,
            chargedNs,
            draft.deadlineNs,
            draft.source,
            draft.segments);
    copy.band = band;
    copy.jitterNs = jitterNs;
    copy.replyWaitNs = draft.replyWaitNs;
    return copy;
  }

  /** The processor-demand test over the deadline-scheduled jobs of one CPU (preemptive EDF). */
  private static boolean demandHolds(List<Job> jobs) {
    final List<EdfDemandTest.Load> loads = new ArrayList<>();
    for (Job job : jobs) {
      final TaskDraft d = job.draft;
      if (d.periodNs > 0) {
        loads.add(
            new EdfDemandTest.Load(
                d.wcetNs, d.periodNs, Math.max(1, d.deadlineNs - d.jitterNs), d.segments));
      }
    }
    try {
      return EdfDemandTest.test(loads, EdfDemandTest.Dispatch.PREEMPTIVE).schedulable();
    } catch (ArithmeticException beyond64Bits) {
      return false;
    }
  }
}
