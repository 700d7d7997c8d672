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
 * of the order; where several node cores' such lanes share a CPU, the processor-demand test of all
 * of them decides, and each is bounded by its deadline. A method that waits for gate replies counts
 * its wait as execution wherever it interferes, as its own node's analysis counts it (the
 * suspension-oblivious bound: a wait taken as mere release jitter would not be safe). A service
 * method under BCC waits for admission as its node's rule says, against the conflicting SpMs'
 * bounds on this CPU, not their bounds alone.
 */
final class SharedCpu {
  private SharedCpu() {}

  /** The highest host band a lane may take: the time trigger's, 63, is above it. */
  static final int HIGHEST_HOST_BAND = 62;

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

    /**
     * For a service method under BCC: the slot the node admits it with (the runtime's), and the
     * SpMs of its TMO it conflicts with, each with its first window opening and period; null
     * otherwise.
     */
    Bcc bcc;

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

  /** What BCC admission of a service method depends on (BccAdmission's rule). */
  record Bcc(long slotNs, List<Conflict> conflicts) {}

  /** A conflicting SpM: its job (for its bound here), first window opening and period. */
  record Conflict(String key, long firstOpenNs, long periodNs) {}

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
    for (NodePlan.ServiceAdmission admission : plan.admissions()) {
      if (!admission.conflicts()) {
        continue;
      }
      final Deployment owner =
          node.deployments().stream()
              .filter(d -> d.instance().equals(admission.instance()))
              .findFirst()
              .orElseThrow();
      final dev.kairos.ir.Tmos.Svm svm = BccAdmission.svmOf(owner, admission.svm());
      final List<Conflict> conflicts = new ArrayList<>();
      for (dev.kairos.ir.Tmos.Spm spm : owner.tmo().spms()) {
        if (BccAdmission.conflicts(svm.uses(), spm.uses())) {
          conflicts.add(
              new Conflict(
                  node.name() + "/" + owner.instance() + "." + spm.name(),
                  spm.firstReleaseNs() + spm.windowOpenNs(),
                  spm.periodNs()));
        }
      }
      final String key = node.name() + "/" + admission.instance() + "." + admission.svm();
      byCore.values().stream()
          .flatMap(List::stream)
          .filter(j -> j.key().equals(key))
          .forEach(j -> j.bcc = new Bcc(admission.admission().slotNs(), List.copyOf(conflicts)));
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
        // Under BCC the admission wait is worked out again on the shared CPU (bound below).
        job.ownDelayNs =
            job.bcc != null || rta < 0 || reported < 0
                ? 0
                : Math.max(0, reported - (rta + job.finishJitterNs));
      }
      jobs.addAll(core);
    }
    return jobs;
  }

  /** The CPU's groups in host levels, and every job's bound; see the class comment. */
  static Result analyse(List<Job> jobs, int nodeCoresOnCpu) {
    final Map<Job, Long> bounds = new LinkedHashMap<>();
    if (nodeCoresOnCpu <= 1) {
      // A node core alone on its CPU: as its node's analysis found, at its own bands.
      jobs.forEach(job -> bounds.put(job, job.report.responseTimeNs()));
      return new Result(Map.of(), bounds);
    }
    final List<Job> byDeadline = jobs.stream().filter(j -> j.byDeadline).toList();
    final boolean deadlinesHold = byDeadline.isEmpty() || demandHolds(byDeadline);
    // Sharing the CPU with another node core's deadline-scheduled lanes, a job completes by its
    // deadline where the demand test of all of them holds; alone, as its node found.
    final boolean sharedByDeadline =
        byDeadline.stream().map(j -> j.node + "/" + j.report.core()).distinct().count() > 1;
    for (Job job : byDeadline) {
      bounds.put(
          job,
          !deadlinesHold || job.report.responseTimeNs() < 0
              ? -1
              : sharedByDeadline ? job.report.deadlineNs() : job.report.responseTimeNs());
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
    if (groups > HIGHEST_HOST_BAND) {
      return Map.of(); // more lanes than host bands below the time trigger's
    }
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
      } else {
        // Its wait for gate replies counted as execution, as its own node's analysis counts it.
        copy = copy(other.draft, other.draft.wcetNs, band, other.draft.jitterNs);
      }
      seen.add(copy);
    }
    PriorityBands.assignBlocking(seen);
    final long busy = new Interference(seen).responseTime(self);
    if (busy < 0) {
      return -1;
    }
    final long admitted = busy + job.finishJitterNs;
    return job.bcc == null ? admitted : admittedAfterWait(job, jobs, levels, admitted);
  }

  /**
   * A BCC service method's bound: the longest wait for admission (BccAdmission's rule with its
   * node's slot, against the conflicting SpMs' bounds on this CPU) plus its response once admitted
   * here; -1 where either is unbounded, or the bound passes its minimum inter-arrival time (a
   * request could then queue behind the one before it).
   */
  private static long admittedAfterWait(
      Job job, List<Job> jobs, Map<NodeCoreBand, Integer> levels, long admitted) {
    final List<BccAdmission.Blocker> blockers = new ArrayList<>();
    for (Conflict conflict : job.bcc.conflicts()) {
      final Job spm =
          jobs.stream().filter(j -> j.key().equals(conflict.key())).findFirst().orElse(null);
      final long response = spm == null ? -1 : bound(spm, jobs, levels);
      blockers.add(
          new BccAdmission.Blocker(
              conflict.firstOpenNs(),
              conflict.periodNs(),
              response >= 0 && response <= spm.report.deadlineNs() ? response : -1));
    }
    final BccAdmission.Admission admission = BccAdmission.analyse(job.bcc.slotNs(), blockers);
    if (!admission.bounded()) {
      return -1;
    }
    final long response = admission.longestWaitNs() + admitted;
    final long minInterArrival = job.report.periodNs();
    return minInterArrival > 0 && response > minInterArrival ? -1 : response;
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
    final List<EdfDemandTest.Load> loads =
        SchedulingAnalysis.demandLoads(jobs.stream().map(j -> j.draft).toList());
    try {
      return EdfDemandTest.test(loads, EdfDemandTest.Dispatch.PREEMPTIVE).schedulable();
    } catch (ArithmeticException beyond64Bits) {
      return false;
    }
  }
}
