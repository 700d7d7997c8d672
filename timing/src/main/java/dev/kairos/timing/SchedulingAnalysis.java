package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.Strategy;
import dev.kairos.ir.RuntimeCapacities;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Method;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Schedulability of each node as the runtime executes it: priority bands assigned by the node's
 * strategy (Kokyu), preemptive between bands, one lane per band with its queue discipline inside.
 * Per node: utilization, the Liu-Layland bound and exact response-time analysis (Joseph and Pandya)
 * with blocking under the priority-ceiling protocol; tasks of the same band count as interference
 * because their lane may serve them first.
 */
public final class SchedulingAnalysis {
  /** Lanes the runtime can run per node; bands beyond this are merged at the bottom. */
  public static final int MAX_BANDS = RuntimeCapacities.BANDS;

  /**
   * Bands each core of a node with this many cores may use: the runtime's bands per core, and no
   * more than its lanes per node allow with every core in use (a lane per core and band).
   */
  static int bandsPerCore(int cores) {
    return Math.max(1, Math.min(MAX_BANDS, RuntimeCapacities.LANES / Math.max(1, cores)));
  }

  private SchedulingAnalysis() {}

  /** The node with no release jitter on any of its service methods. */
  public static NodePlan analyse(Node node) {
    return analyse(node, java.util.Map.of());
  }

  /**
   * The node as it runs: with one core, one processor; with several, partitioned scheduling — every
   * TMO on one core ({@link CorePlacement}), each core analysed as a processor of its own with its
   * own bands (the runtime gives every core its own lanes, pinned to it). The node's report is then
   * built once from its processors' reports, in the node's table order.
   */
  public static NodePlan analyse(Node node, java.util.Map<String, Long> arrivalJitterNs) {
    if (node.hardware().cores() <= 1) {
      final ProcessorReport single = analyseProcessor(node, arrivalJitterNs);
      final List<NodePlan.Placement> placements = new ArrayList<>();
      for (Deployment deployment : node.deployments()) {
        placements.add(
            new NodePlan.Placement(
                deployment.instance(),
                0,
                deployment.pinned(),
                CorePlacement.utilization(deployment, node.hardware().speed())));
      }
      return new NodePlan(
          node,
          single,
          ReleaseTable.of(node, single.playout().grid()),
          List.of(corePlan(0, single)),
          placements);
    }
    final CorePlacement.Result placement =
        CorePlacement.place(node, core -> analyseProcessor(core).schedulable());
    final List<ProcessorReport> perCore = new ArrayList<>();
    for (int core = 0; core < node.hardware().cores(); core++) {
      perCore.add(analyseProcessor(placement.onCore(node, core), arrivalJitterNs));
    }
    return partitioned(node, perCore, placement.placements());
  }

  private static NodePlan.CorePlan corePlan(int core, ProcessorReport report) {
    return new NodePlan.CorePlan(
        core,
        report.node().deployments().stream().map(Deployment::instance).toList(),
        report.utilization(),
        report.liuLaylandBound(),
        report.schedulable(),
        report.playout());
  }

  /** The report of a partitioned node from its cores', in the node's table order. */
  private static NodePlan partitioned(
      Node node, List<ProcessorReport> perCore, List<NodePlan.Placement> placements) {
    final List<TaskReport> tasks = new ArrayList<>();
    final List<Finding> notes = new ArrayList<>();
    final List<ReleaseTableAnalysis.SpmTiming> timings = new ArrayList<>();
    final List<NodePlan.CorePlan> cores = new ArrayList<>();
    double utilization = 0;
    double bound = 1.0;
    boolean schedulable = true;
    boolean unrolled = true;
    for (int core = 0; core < perCore.size(); core++) {
      final ProcessorReport report = perCore.get(core);
      cores.add(corePlan(core, report));
      for (TaskReport task : report.tasks()) {
        tasks.add(task.onCore(core));
      }
      for (Finding note : report.notes()) {
        notes.add(new Finding.OnCore(core, note));
      }
      timings.addAll(report.playout().timings());
      utilization += report.utilization();
      if (!report.tasks().isEmpty()) {
        bound = Math.min(bound, report.liuLaylandBound());
      }
      schedulable &= report.schedulable();
      unrolled &= report.playout().unrolled();
    }
    final ReleaseGrid grid =
        ReleaseGrid.combined(perCore.stream().map(r -> r.playout().grid()).toList());
    final List<NodePlan.SegmentCeiling> segments = new ArrayList<>();
    final List<NodePlan.ServiceAdmission> admissions = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (ProcessorReport report : perCore) {
        report.segments().stream()
            .filter(segment -> segment.instance().equals(deployment.instance()))
            .forEach(segments::add);
        report.admissions().stream()
            .filter(admission -> admission.instance().equals(deployment.instance()))
            .map(
                admission ->
                    new NodePlan.ServiceAdmission(
                        admission.instance(),
                        admission.svm(),
                        admission.gctNs(),
                        admission.conflicts(),
                        admission.admission(),
                        admission.responseNs(),
                        BccAdmission.conflictRows(
                            node, deployment, BccAdmission.svmOf(deployment, admission.svm()))))
            .forEach(admissions::add);
      }
    }
    final ReleaseTableAnalysis.Playout playout =
        new ReleaseTableAnalysis.Playout(grid, unrolled, timings, perCore.get(0).playout().trace());
    return new NodePlan(
        node,
        new ProcessorReport(
            node, tasks, utilization, bound, schedulable, notes, segments, playout, admissions),
        ReleaseTable.of(node, grid),
        cores,
        placements);
  }

  /**
   * The time a method may wait on the gates it calls. A call blocks the caller's lane, holding its
   * segments, until the reply or the gate's deadline; counting that wait as execution (the
   * suspension-oblivious analysis of self-suspending tasks) keeps every bound safe: the caller's
   * own, the blocking its segments cause, and the interference on lower bands. Network waits do not
   * scale with the processor's speed. Reported as a finding.
   */
  private static long gateWait(
      Deployment deployment, String method, List<String> calls, List<Finding> notes) {
    final long wait = deployment.tmo().callWaitNs(calls);
    if (wait > 0) {
      final List<String> waiting =
          deployment.tmo().waitingGates(calls).stream().map(Gate::name).toList();
      notes.add(new Finding.GateWait(deployment.instance() + "." + method, waiting, wait));
    }
    return wait;
  }

  /**
   * A method as the response-time analysis takes it, before its band, blocking and jitter: its WCET
   * scaled to the node's hardware with its gates' waits, and what the platform charges a job.
   */
  static TaskDraft draft(
      Node node,
      PlatformOverheads overheads,
      Deployment deployment,
      Method method,
      List<Finding> notes) {
    final long wait = gateWait(deployment, method.name(), method.calls(), notes);
    final Set<String> segments = Resources.segmentsOf(deployment.instance(), method.uses());
    final long wcet = Resources.scale(method.wcetNs(), node.hardware().speed());
    final TaskDraft draft =
        new TaskDraft(
            deployment.instance(),
            method.name(),
            method.service() ? TaskReport.Kind.SVM : TaskReport.Kind.SPM,
            method.criticality(),
            method.periodNs(),
            wcet + wait,
            overheads.chargedNs(
                    wcet,
                    segments.size(),
                    PlatformOverheads.messages(method.service(), method.calls().size()))
                + wait,
            method.relativeDeadlineNs(),
            method.source(),
            segments);
    draft.replyWaitNs = wait;
    return draft;
  }

  /**
   * What the processor-demand test takes of periodic methods: release jitter J takes J off the time
   * a job has before its deadline (its demand is that of a job with deadline D - J).
   */
  static List<EdfDemandTest.Load> demandLoads(List<TaskDraft> drafts) {
    final List<EdfDemandTest.Load> loads = new ArrayList<>();
    for (TaskDraft d : drafts) {
      if (d.periodNs > 0) {
        loads.add(
            new EdfDemandTest.Load(
                d.wcetNs, d.periodNs, Math.max(1, d.deadlineNs - d.jitterNs), d.segments));
      }
    }
    return loads;
  }

  /** One processor: every deployment of the node shares it; no release jitter. */
  static ProcessorReport analyseProcessor(Node node) {
    return analyseProcessor(node, java.util.Map.of());
  }

  /**
   * One processor, with the release jitter of service methods ({@code instance.method} to
   * nanoseconds): requests that arrive through a chain of remote hops may come up to their jitter
   * closer together than their minimum inter-arrival time, which raises the interference they cause
   * (Tindell and Clark). Methods without an entry have none.
   */
  static ProcessorReport analyseProcessor(Node node, java.util.Map<String, Long> arrivalJitterNs) {
    final PlatformOverheads overheads = PlatformOverheads.of(node);
    final List<TaskDraft> drafts = new ArrayList<>();
    final List<Finding> notes = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (Method method : deployment.tmo().methods()) {
        final String name = deployment.instance() + "." + method.name();
        if (method.service() && method.periodNs() == 0) {
          notes.add(new Finding.UnboundedServiceLoad(name));
        }
        final TaskDraft draft = draft(node, overheads, deployment, method, notes);
        draft.jitterNs =
            method.service()
                ? overheads.requestJitterNs(arrivalJitterNs.getOrDefault(name, 0L))
                : overheads.releaseJitterNs();
        drafts.add(draft);
      }
    }
    PriorityBands.assignBands(node.strategy(), drafts, bandsPerCore(node.hardware().cores()));
    PriorityBands.assignBlocking(drafts);
    drafts.sort(
        Comparator.comparingInt((TaskDraft d) -> -d.band)
            .thenComparingLong(d -> d.periodNs)
            .thenComparing(d -> d.instance + "." + d.method));

    double utilization = 0;
    int periodic = 0;
    for (TaskDraft d : drafts) {
      if (d.periodNs > 0) {
        utilization += (double) d.wcetNs / d.periodNs;
        periodic++;
      }
    }
    final List<TaskReport> tasks = new ArrayList<>();
    double guaranteedUtilization = 0;
    for (TaskDraft d : drafts) {
      if (d.periodNs > 0
          && (d.criticality == Criticality.HARD || !criticalityAware(node.strategy()))) {
        guaranteedUtilization += (double) d.wcetNs / d.periodNs;
      }
    }
    boolean schedulable = guaranteedUtilization <= 1.0;
    final Interference interference = new Interference(drafts);
    // Each SvM's response once admitted: the room BCC admission reserves for it (its slot).
    final java.util.Map<String, Long> admittedResponses = new java.util.HashMap<>();
    for (TaskDraft task : drafts) {
      final long busy = interference.responseTime(task);
      // An SpM released up to J late (the platform's release lateness) finishes J + w after t. A
      // service request's response counts from its arrival: the jitter its chain passed on is in
      // when it arrives, not in how long it takes, but the hand-over to a sleeping lane is.
      final long response =
          busy < 0
              ? busy
              : Math.addExact(
                  busy,
                  task.kind == TaskReport.Kind.SPM ? task.jitterNs : overheads.serviceJitterNs());
      if (task.kind == TaskReport.Kind.SVM) {
        admittedResponses.put(task.instance + "." + task.method, response);
      }
      final boolean meets =
          (task.periodNs > 0 || task.kind == TaskReport.Kind.SPM)
              ? response >= 0 && response <= task.deadlineNs
              : true;
      // Criticality-aware strategies guarantee the hard set; soft methods may miss under
      // overload and are reported with their slack, not counted against the node.
      final boolean counts =
          task.criticality == Criticality.HARD || !criticalityAware(node.strategy());
      schedulable &= meets || !counts;
      tasks.add(
          new TaskReport(
              task.instance,
              task.method,
              task.kind,
              task.criticality,
              task.periodNs,
              task.declaredWcetNs,
              task.deadlineNs,
              task.band,
              response,
              meets,
              task.source,
              0,
              task.replyWaitNs,
              task.jitterNs));
    }
    if (node.strategy().earliestDeadlineFirst()) {
      // One band ordered by deadline: the processor-demand test decides, and every method
      // that passes completes by its deadline, which is the response bound reported.
      final List<EdfDemandTest.Load> loads = demandLoads(drafts);
      final boolean preemptive = node.strategy().preemptsByDeadline();
      EdfDemandTest.Verdict verdict;
      try {
        verdict =
            EdfDemandTest.test(
                loads,
                preemptive
                    ? EdfDemandTest.Dispatch.PREEMPTIVE
                    : EdfDemandTest.Dispatch.NON_PREEMPTIVE);
      } catch (ArithmeticException beyond64Bits) {
        verdict = new EdfDemandTest.Verdict(false, false, -1);
      }
      if (!verdict.exact()) {
        notes.add(new Finding.EdfDensityBound());
      } else if (!verdict.schedulable() && verdict.failingAtNs() > 0) {
        notes.add(new Finding.EdfDemandExceeded(verdict.failingAtNs(), preemptive));
      }
      // Strictly periodic SpMs with known offsets: the release table below is exact and may
      // pass what the demand test (which assumes the worst arrival pattern) refuses. It plays
      // releases on time, so once release lateness is charged the demand test decides. It plays
      // every job at its WCET, so it speaks for the jobs that compute less (or whose replies
      // come sooner) only where finish times cannot grow when a job ends sooner: preemptive
      // dispatching of independent jobs (Ha and Liu, ICDCS 1994). Without preemption, or with a
      // segment two methods share, a job that ends sooner can let a job due later start, which
      // then holds the processor or the segment from a more urgent one: the demand test, whose
      // blocking term bounds that, decides.
      final boolean exactByTable =
          preemptive
              && !sharesSegment(drafts)
              && drafts.stream().allMatch(d -> d.kind == TaskReport.Kind.SPM && d.jitterNs == 0);
      schedulable = verdict.schedulable() || exactByTable;
      for (int i = 0; i < tasks.size(); i++) {
        final TaskReport t = tasks.get(i);
        if (t.periodNs() > 0) {
          tasks.set(i, t.withVerdict(schedulable ? t.deadlineNs() : -1, schedulable));
        }
      }
    }

    // The release table with the real offsets: start windows, which RTA does not see.
    final ReleaseTableAnalysis.Playout playout = ReleaseTableAnalysis.analyse(node, tasks);
    if (!playout.unrolled()) {
      notes.add(new Finding.TableNotUnrolled(playout.grid()));
    }
    final ServiceLoad serviceLoad = new ServiceLoad(node, drafts);
    for (ReleaseTableAnalysis.SpmTiming played : playout.timings()) {
      // The table plays SpMs only: service requests can still delay each activation.
      final ReleaseTableAnalysis.SpmTiming timing = serviceLoad.delay(played);
      if (timing.meets()) {
        continue;
      }
      for (int i = 0; i < tasks.size(); i++) {
        final TaskReport t = tasks.get(i);
        if (t.kind() == TaskReport.Kind.SPM
            && t.instance().equals(timing.instance())
            && t.method().equals(timing.method())) {
          tasks.set(i, t.withVerdict(t.responseTimeNs(), false));
          notes.add(
              played.meets()
                  ? new Finding.ServiceDelay(
                      t.name(), timing.worstStartLatencyNs() - played.worstStartLatencyNs())
                  : new Finding.TableMisses(
                      t.name(), played.windowMisses(), played.deadlineMisses()));
          if (t.criticality() == Criticality.HARD || !criticalityAware(node.strategy())) {
            schedulable = false;
          }
        }
      }
    }
    // BCC: a service method that conflicts with SpMs first waits to be admitted.
    final List<NodePlan.ServiceAdmission> admissions =
        BccAdmission.admissions(node, tasks, admittedResponses);
    for (NodePlan.ServiceAdmission admission : admissions) {
      if (!admission.conflicts()) {
        continue;
      }
      for (int i = 0; i < tasks.size(); i++) {
        final TaskReport t = tasks.get(i);
        if (t.kind() == TaskReport.Kind.SVM
            && t.instance().equals(admission.instance())
            && t.method().equals(admission.svm())) {
          final boolean meets =
              admission.responseNs() >= 0 && admission.responseNs() <= t.deadlineNs();
          tasks.set(i, t.withVerdict(admission.responseNs(), meets));
          if (!meets
              && (t.criticality() == Criticality.HARD || !criticalityAware(node.strategy()))) {
            schedulable = false;
          }
        }
      }
    }
    // The utilization bound that applies: 1 under EDF (Liu and Layland's bound for deadline-driven
    // scheduling), n (2^(1/n) - 1) for fixed priorities.
    final double bound =
        periodic == 0 || node.strategy().earliestDeadlineFirst()
            ? 1.0
            : periodic * (Math.pow(2.0, 1.0 / periodic) - 1.0);
    return new ProcessorReport(
        node,
        tasks,
        utilization,
        bound,
        schedulable,
        notes,
        ceilings(node, tasks),
        playout,
        admissions);
  }

  /**
   * The priority ceiling of each segment: the highest band among the methods of its instance that
   * use it (immediate priority-ceiling protocol).
   */
  static List<NodePlan.SegmentCeiling> ceilings(Node node, List<TaskReport> taskList) {
    final java.util.Map<String, TaskReport> tasks = TaskReport.byName(taskList);
    final List<NodePlan.SegmentCeiling> ceilings = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (dev.kairos.ir.Tmos.Segment segment : deployment.tmo().segments()) {
        int ceiling = 0;
        for (Spm spm : deployment.tmo().spms()) {
          if (uses(spm.uses(), segment.name())) {
            ceiling = Math.max(ceiling, band(tasks, deployment.instance(), spm.name()));
          }
        }
        for (Svm svm : deployment.tmo().svms()) {
          if (uses(svm.uses(), segment.name())) {
            ceiling = Math.max(ceiling, band(tasks, deployment.instance(), svm.name()));
          }
        }
        ceilings.add(new NodePlan.SegmentCeiling(deployment.instance(), segment.name(), ceiling));
      }
    }
    return ceilings;
  }

  private static boolean uses(List<dev.kairos.ir.Tmos.SegmentAccess> uses, String name) {
    return uses.stream().anyMatch(u -> u.segment().equals(name));
  }

  private static int band(java.util.Map<String, TaskReport> tasks, String instance, String method) {
    final TaskReport task = tasks.get(instance + "." + method);
    return task == null ? 0 : task.band();
  }

  /** MLF, MUF and RMS+MLF: the hard set must be feasible on its own (Kokyu). */
  static boolean criticalityAware(Strategy strategy) {
    return strategy == Strategy.MLF || strategy == Strategy.MUF || strategy == Strategy.RMS_MLF;
  }

  /** Whether two of the methods use one ODS segment. */
  private static boolean sharesSegment(List<TaskDraft> drafts) {
    final Set<String> seen = new HashSet<>();
    for (TaskDraft d : drafts) {
      for (String segment : d.segments) {
        if (!seen.add(segment)) {
          return true;
        }
      }
    }
    return false;
  }
}
