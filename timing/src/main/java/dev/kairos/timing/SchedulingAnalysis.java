package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.Strategy;
import dev.kairos.ir.RuntimeCapacities;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

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

  /**
   * Every node, the remote calls between them and the chains that cross them. Without chains the
   * nodes are analysed once; with them, the holistic analysis iterates the nodes' analyses with the
   * release jitter the chains pass on to their service methods ({@link HolisticAnalysis}).
   */
  public static AnalysisReport analyse(SystemModel system) {
    return HolisticAnalysis.analyse(system);
  }

  /** The node with no release jitter on any of its service methods. */
  public static NodeReport analyse(Node node) {
    return analyse(node, java.util.Map.of());
  }

  /**
   * The node as it runs: with one core, one processor; with several, partitioned scheduling — every
   * TMO on one core ({@link CorePlacement}), each core analysed as a processor of its own with its
   * own bands (the runtime gives every core its own lanes, pinned to it), the results merged in the
   * node's table order.
   */
  public static NodeReport analyse(Node node, java.util.Map<String, Long> arrivalJitterNs) {
    if (node.hardware().cores() <= 1) {
      final NodeReport single = analyseProcessor(node, arrivalJitterNs);
      final List<NodeReport.Placement> placements = new ArrayList<>();
      for (Deployment deployment : node.deployments()) {
        placements.add(
            new NodeReport.Placement(
                deployment.instance(),
                0,
                deployment.pinned(),
                CorePlacement.utilization(deployment, node.hardware().speed())));
      }
      return withCores(
          single,
          List.of(
              new NodeReport.CoreReport(
                  0,
                  node.deployments().stream().map(Deployment::instance).toList(),
                  single.utilization(),
                  single.liuLaylandBound(),
                  single.schedulable(),
                  single.releaseTable())),
          placements);
    }
    final CorePlacement.Result placement = CorePlacement.place(node);
    final List<NodeReport> perCore = new ArrayList<>();
    final List<NodeReport.CoreReport> cores = new ArrayList<>();
    for (int core = 0; core < node.hardware().cores(); core++) {
      final NodeReport report = analyseProcessor(placement.onCore(node, core), arrivalJitterNs);
      perCore.add(report);
      cores.add(
          new NodeReport.CoreReport(
              core,
              placement.onCore(node, core).deployments().stream()
                  .map(Deployment::instance)
                  .toList(),
              report.utilization(),
              report.liuLaylandBound(),
              report.schedulable(),
              report.releaseTable()));
    }
    return merge(node, perCore, cores, placement.placements());
  }

  private static NodeReport withCores(
      NodeReport r, List<NodeReport.CoreReport> cores, List<NodeReport.Placement> placements) {
    return new NodeReport(
        r.node(),
        r.tasks(),
        r.utilization(),
        r.liuLaylandBound(),
        r.schedulable(),
        r.notes(),
        r.segments(),
        r.releaseTable(),
        r.admissions(),
        r.staticReleases(),
        cores,
        placements);
  }

  /** One report for the node from its cores' reports, in the node's table order. */
  private static NodeReport merge(
      Node node,
      List<NodeReport> perCore,
      List<NodeReport.CoreReport> cores,
      List<NodeReport.Placement> placements) {
    final List<TaskReport> tasks = new ArrayList<>();
    final List<Finding> notes = new ArrayList<>();
    final List<ReleaseTableAnalysis.SpmTiming> timings = new ArrayList<>();
    double utilization = 0;
    double bound = 1.0;
    boolean schedulable = true;
    boolean unrolled = true;
    for (int core = 0; core < perCore.size(); core++) {
      final NodeReport report = perCore.get(core);
      for (TaskReport task : report.tasks()) {
        tasks.add(task.onCore(core));
      }
      for (Finding note : report.notes()) {
        notes.add(new Finding.OnCore(core, note));
      }
      timings.addAll(report.releaseTable().timings());
      utilization += report.utilization();
      if (!report.tasks().isEmpty()) {
        bound = Math.min(bound, report.liuLaylandBound());
      }
      schedulable &= report.schedulable();
      unrolled &= report.releaseTable().unrolled();
    }
    final long hyperperiod =
        BusyIntervals.hyperperiod(
            perCore.stream().mapToLong(r -> r.releaseTable().hyperperiodNs()));
    final List<NodeReport.SegmentCeiling> segments = new ArrayList<>();
    final List<NodeReport.ServiceAdmission> admissions = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (NodeReport report : perCore) {
        report.segments().stream()
            .filter(segment -> segment.instance().equals(deployment.instance()))
            .forEach(segments::add);
        report.admissions().stream()
            .filter(admission -> admission.instance().equals(deployment.instance()))
            .map(
                admission ->
                    new NodeReport.ServiceAdmission(
                        admission.instance(),
                        admission.svm(),
                        admission.gctNs(),
                        admission.conflicts(),
                        admission.admission(),
                        admission.responseNs(),
                        conflictRows(node, deployment, svmOf(deployment, admission.svm()))))
            .forEach(admissions::add);
      }
    }
    final ReleaseTableAnalysis.Table table =
        new ReleaseTableAnalysis.Table(
            Math.max(hyperperiod, 0), unrolled, timings, perCore.get(0).releaseTable().trace());

    return new NodeReport(
        node,
        tasks,
        utilization,
        bound,
        schedulable,
        notes,
        segments,
        table,
        admissions,
        StaticReleaseTable.of(node),
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

  /** One processor: every deployment of the node shares it; no release jitter. */
  static NodeReport analyseProcessor(Node node) {
    return analyseProcessor(node, java.util.Map.of());
  }

  /**
   * One processor, with the release jitter of service methods ({@code instance.method} to
   * nanoseconds): requests that arrive through a chain of remote hops may come up to their jitter
   * closer together than their minimum inter-arrival time, which raises the interference they cause
   * (Tindell and Clark). Methods without an entry have none.
   */
  static NodeReport analyseProcessor(Node node, java.util.Map<String, Long> arrivalJitterNs) {
    final BigDecimal speed = node.hardware().speed();
    final PlatformOverheads overheads = PlatformOverheads.of(node);
    final List<Draft> drafts = new ArrayList<>();
    final List<Finding> notes = new ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        final long wait = gateWait(deployment, spm.name(), spm.calls(), notes);
        final Set<String> segments = segmentsOf(deployment.instance(), spm.uses());
        final Draft draft =
            new Draft(
                deployment.instance(),
                spm.name(),
                TaskReport.Kind.SPM,
                spm.criticality(),
                spm.periodNs(),
                scale(spm.wcetNs(), speed) + wait,
                overheads.chargedNs(
                        scale(spm.wcetNs(), speed),
                        segments.size(),
                        PlatformOverheads.messages(false, spm.calls().size()))
                    + wait,
                spm.deadlineNs() - spm.windowOpenNs(),
                spm.source(),
                segments);
        draft.replyWaitNs = wait;
        draft.jitterNs = overheads.releaseJitterNs();
        drafts.add(draft);
      }
      for (Svm svm : deployment.tmo().svms()) {
        if (svm.minInterArrivalNs() == 0) {
          notes.add(new Finding.UnboundedServiceLoad(deployment.instance() + "." + svm.name()));
        }
        final long wait = gateWait(deployment, svm.name(), svm.calls(), notes);
        final Set<String> segments = segmentsOf(deployment.instance(), svm.uses());
        final Draft service =
            new Draft(
                deployment.instance(),
                svm.name(),
                TaskReport.Kind.SVM,
                svm.criticality(),
                svm.minInterArrivalNs(),
                scale(svm.wcetNs(), speed) + wait,
                overheads.chargedNs(
                        scale(svm.wcetNs(), speed),
                        segments.size(),
                        PlatformOverheads.messages(true, svm.calls().size()))
                    + wait,
                svm.gctNs(),
                svm.source(),
                segments);
        service.replyWaitNs = wait;
        service.jitterNs =
            overheads.requestJitterNs(
                arrivalJitterNs.getOrDefault(deployment.instance() + "." + svm.name(), 0L));
        drafts.add(service);
      }
    }
    assignBands(node.strategy(), drafts, bandsPerCore(node.hardware().cores()));
    assignBlocking(drafts);
    drafts.sort(
        Comparator.comparingInt((Draft d) -> -d.band)
            .thenComparingLong(d -> d.periodNs)
            .thenComparing(d -> d.instance + "." + d.method));

    double utilization = 0;
    int periodic = 0;
    for (Draft d : drafts) {
      if (d.periodNs > 0) {
        utilization += (double) d.wcetNs / d.periodNs;
        periodic++;
      }
    }
    final List<TaskReport> tasks = new ArrayList<>();
    double guaranteedUtilization = 0;
    for (Draft d : drafts) {
      if (d.periodNs > 0
          && (d.criticality == Criticality.HARD || !criticalityAware(node.strategy()))) {
        guaranteedUtilization += (double) d.wcetNs / d.periodNs;
      }
    }
    boolean schedulable = guaranteedUtilization <= 1.0;
    final Interference interference = new Interference(drafts);
    // Each SvM's response once admitted: the room BCC admission reserves for it (its slot).
    final java.util.Map<String, Long> admittedResponses = new java.util.HashMap<>();
    for (Draft task : drafts) {
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
      final List<EdfDemandTest.Load> loads = new ArrayList<>();
      for (Draft d : drafts) {
        if (d.periodNs > 0) {
          // Release jitter J takes J off the time a job has before its deadline (its demand is that
          // of a job with deadline D - J).
          loads.add(
              new EdfDemandTest.Load(
                  d.wcetNs, d.periodNs, Math.max(1, d.deadlineNs - d.jitterNs), d.segments));
        }
      }
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
    final ReleaseTableAnalysis.Table table = ReleaseTableAnalysis.analyse(node, tasks);
    if (!table.unrolled()) {
      notes.add(new Finding.TableNotUnrolled(Math.max(0, table.hyperperiodNs())));
    }
    final ServiceLoad serviceLoad = new ServiceLoad(node, drafts);
    for (ReleaseTableAnalysis.SpmTiming played : table.timings()) {
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
    final List<NodeReport.ServiceAdmission> admissions = admissions(node, tasks, admittedResponses);
    for (NodeReport.ServiceAdmission admission : admissions) {
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
    return new NodeReport(
        node,
        tasks,
        utilization,
        bound,
        schedulable,
        notes,
        ceilings(node, tasks),
        table,
        admissions,
        StaticReleaseTable.of(node),
        List.of(),
        List.of());
  }

  /**
   * The priority ceiling of each segment: the highest band among the methods of its instance that
   * use it (immediate priority-ceiling protocol).
   */
  static List<NodeReport.SegmentCeiling> ceilings(Node node, List<TaskReport> taskList) {
    final java.util.Map<String, TaskReport> tasks = TaskReport.byName(taskList);
    final List<NodeReport.SegmentCeiling> ceilings = new ArrayList<>();
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
        ceilings.add(new NodeReport.SegmentCeiling(deployment.instance(), segment.name(), ceiling));
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

  /**
   * Service requests as they can delay SpMs on one processor. The release table plays SpMs only;
   * within a window of length L an SvM of max-rate period T of the same or a higher band can run
   * ceil(L / T) + 1 times (the +1 for a request already running or queued ahead in the band, whose
   * lane does not preempt), and one lower-band SvM holding a segment with a ceiling at or above the
   * SpM's band can block it once. L is the SpM's whole span from opening to deadline, which bounds
   * both its start and its finish. SvMs without max-rate are not part of the analysis. Prepared
   * once per processor: each SpM then costs one pass over the SvMs.
   */
  static final class ServiceLoad {
    private final List<Draft> services = new ArrayList<>();
    private final List<Integer> raisesTo = new ArrayList<>();
    private final java.util.Map<String, Draft> spms = new java.util.HashMap<>();
    private final java.util.Map<String, Spm> models = new java.util.HashMap<>();

    ServiceLoad(Node node, List<Draft> drafts) {
      final java.util.Map<String, Integer> ceilings = segmentCeilings(drafts);
      for (Draft d : drafts) {
        if (d.kind == TaskReport.Kind.SPM) {
          spms.putIfAbsent(d.instance + "." + d.method, d);
        } else if (d.periodNs > 0) {
          services.add(d);
          raisesTo.add(d.segments.stream().mapToInt(ceilings::get).max().orElse(d.band));
        }
      }
      for (Deployment deployment : node.deployments()) {
        for (Spm spm : deployment.tmo().spms()) {
          models.putIfAbsent(deployment.instance() + "." + spm.name(), spm);
        }
      }
    }

    /** The SpM's timing in the table with the service requests' delay added. */
    ReleaseTableAnalysis.SpmTiming delay(ReleaseTableAnalysis.SpmTiming timing) {
      final String name = timing.instance() + "." + timing.method();
      final Draft spm = spms.get(name);
      if (spm == null || timing.activations() == 0 || services.isEmpty()) {
        return timing;
      }
      long delay = 0;
      long blocking = 0;
      try {
        for (int i = 0; i < services.size(); i++) {
          final Draft svm = services.get(i);
          if (svm.band >= spm.band) {
            final long runs =
                ceilDiv(Math.addExact(spm.deadlineNs, svm.jitterNs), svm.periodNs) + 1;
            delay = Math.addExact(delay, Math.multiplyExact(runs, svm.wcetNs));
          } else if (raisesTo.get(i) >= spm.band) {
            blocking = Math.max(blocking, svm.wcetNs);
          }
        }
        delay = Math.addExact(delay, blocking);
      } catch (ArithmeticException beyond64Bits) {
        delay = Long.MAX_VALUE / 4;
      }
      if (delay == 0) {
        return timing;
      }
      final Spm model = models.get(name);
      final long window = model.windowCloseNs() - model.windowOpenNs();
      final boolean lateStart = timing.worstStartLatencyNs() + delay > window;
      final boolean lateFinish = timing.worstResponseNs() + delay > model.deadlineNs();
      return new ReleaseTableAnalysis.SpmTiming(
          timing.instance(),
          timing.method(),
          timing.activations(),
          timing.worstStartLatencyNs() + delay,
          timing.worstResponseNs() + delay,
          Math.max(timing.windowMisses(), lateStart ? 1 : 0),
          Math.max(timing.deadlineMisses(), lateFinish ? 1 : 0));
    }
  }

  private static Svm svmOf(Deployment deployment, String method) {
    return deployment.tmo().svm(method).orElseThrow();
  }

  /**
   * BCC admission of every service method (see {@link BccAdmission} for the rule): its slot is its
   * response once admitted (its GCT where that is unbounded), and the SpMs it conflicts with block
   * admission from a slot before each start-window opening until their analysed response.
   */
  static List<NodeReport.ServiceAdmission> admissions(
      Node node, List<TaskReport> taskList, java.util.Map<String, Long> admittedResponses) {
    final java.util.Map<String, TaskReport> tasks = TaskReport.byName(taskList);
    final List<NodeReport.ServiceAdmission> admissions = new ArrayList<>();
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
            new NodeReport.ServiceAdmission(
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

  private static long saturatingAdd(long a, long b) {
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

  /** MLF, MUF and RMS+MLF: the hard set must be feasible on its own (Kokyu). */
  static boolean criticalityAware(Strategy strategy) {
    return strategy == Strategy.MLF || strategy == Strategy.MUF || strategy == Strategy.RMS_MLF;
  }

  static Set<String> segmentsOf(String instance, List<dev.kairos.ir.Tmos.SegmentAccess> uses) {
    final Set<String> segments = new HashSet<>();
    uses.forEach(u -> segments.add(instance + "." + u.segment()));
    return segments;
  }

  /** Each segment's priority ceiling: the highest band of the methods that use it. */
  private static java.util.Map<String, Integer> segmentCeilings(List<Draft> drafts) {
    final java.util.Map<String, Integer> ceilings = new java.util.HashMap<>();
    for (Draft d : drafts) {
      for (String segment : d.segments) {
        ceilings.merge(segment, d.band, Math::max);
      }
    }
    return ceilings;
  }

  /**
   * Blocking under the immediate priority-ceiling protocol: a method can be delayed, once per
   * activation, by at most one method of a lower band that holds a segment whose ceiling is at
   * least its own band. A method holds its segments for its whole execution, so the blocking term
   * is the longest such method's WCET.
   */
  static void assignBlocking(List<Draft> drafts) {
    final java.util.Map<String, Integer> ceilings = segmentCeilings(drafts);
    final int highestBand = drafts.stream().mapToInt(d -> d.band).max().orElse(0);
    // A method of band b can block every band in (b, highest ceiling of its segments]; per band,
    // the longest such method is the blocking term. Bands are few: linear in the methods.
    final long[] blockingOfBand = new long[highestBand + 2];
    for (Draft other : drafts) {
      int ceiling = 0;
      for (String segment : other.segments) {
        ceiling = Math.max(ceiling, ceilings.get(segment));
      }
      for (int band = other.band + 1; band <= ceiling; band++) {
        blockingOfBand[band] = Math.max(blockingOfBand[band], other.wcetNs);
      }
    }
    for (Draft task : drafts) {
      task.blockingNs = blockingOfBand[task.band];
    }
  }

  /** WCET on this hardware: the reference WCET divided by the relative speed, rounded up. */
  public static long scale(long wcetNs, BigDecimal speed) {
    if (speed.compareTo(BigDecimal.ONE) == 0) {
      return wcetNs;
    }
    try {
      return BigDecimal.valueOf(wcetNs).divide(speed, 0, RoundingMode.CEILING).longValueExact();
    } catch (ArithmeticException beyond64Bits) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * The priority assignment of the node's strategy, as in Kokyu: RMS ranks every method by rate
   * (one band per distinct period, the shortest highest); EDF and MLF put all methods in one band,
   * ordered there by deadline or laxity; MUF gives hard methods the upper band and soft ones the
   * lower; RMS+MLF ranks hard methods by rate above one band of soft methods.
   */
  static void assignBands(Strategy strategy, List<Draft> drafts, int maxBands) {
    switch (strategy) {
      case EDF, NP_EDF, MLF -> drafts.forEach(d -> d.band = 1);
      case MUF -> drafts.forEach(d -> d.band = d.criticality == Criticality.HARD ? 2 : 1);
      case RMS -> byRate(drafts, 1, maxBands);
      case RMS_MLF -> {
        final List<Draft> hard =
            drafts.stream().filter(d -> d.criticality == Criticality.HARD).toList();
        drafts.stream().filter(d -> d.criticality != Criticality.HARD).forEach(d -> d.band = 1);
        byRate(hard, 2, maxBands);
      }
    }
  }

  /** One band per distinct period from `lowest` up, the shortest period highest. */
  private static void byRate(List<Draft> drafts, int lowest, int maxBands) {
    final TreeSet<Long> periods = new TreeSet<>(Comparator.reverseOrder());
    for (Draft d : drafts) {
      periods.add(d.periodNs == 0 ? Long.MAX_VALUE : d.periodNs);
    }
    final List<Long> descending = new ArrayList<>(periods);
    final int overflow = Math.max(0, descending.size() - (maxBands - lowest + 1));
    for (Draft d : drafts) {
      final long key = d.periodNs == 0 ? Long.MAX_VALUE : d.periodNs;
      final int rank = descending.indexOf(key); // 0 = longest period
      d.band = lowest + Math.max(0, rank - overflow);
    }
  }

  /**
   * Worst-case response times from readiness to completion (-1 once past the deadline), with the
   * interference on each band prepared once per node: the periodic load of all bands at or above it
   * summed per distinct period (ceil(R/T) is the same for every task of a period), and the one-shot
   * load. Tasks with equal timing share one response time. With few distinct periods and bands, as
   * real systems have, the analysis of n tasks is close to linear. Interference comes from every
   * other task of the same or a higher band: periodic ones once per period, one-shot SpMs once.
   */
  static final class Interference {
    private final java.util.Map<Integer, long[][]> periodicByBand = new java.util.HashMap<>();
    private final java.util.Map<Integer, Long> oneShotByBand = new java.util.HashMap<>();
    private final java.util.Map<List<Long>, Long> memo = new java.util.HashMap<>();
    private final List<Draft> all;

    Interference(List<Draft> all) {
      this.all = all;
    }

    long responseTime(Draft task) {
      final List<Long> key =
          List.of(
              (long) task.band,
              task.wcetNs,
              task.blockingNs,
              task.periodNs,
              task.deadlineNs,
              (long) task.kind.ordinal(),
              task.jitterNs);
      final Long known = memo.get(key);
      if (known != null) {
        return known;
      }
      long response;
      try {
        response = iterate(task);
      } catch (ArithmeticException beyond64Bits) {
        response = -1;
      }
      memo.put(key, response);
      return response;
    }

    /**
     * {period, release jitter, total WCET} of the periodic tasks at or above `band`, the task
     * itself included.
     */
    private long[][] periodic(int band) {
      return periodicByBand.computeIfAbsent(
          band,
          b -> {
            final java.util.TreeMap<List<Long>, Long> load =
                new java.util.TreeMap<>(
                    Comparator.comparing((List<Long> k) -> k.get(0)).thenComparing(k -> k.get(1)));
            for (Draft other : all) {
              if (other.band >= b && other.periodNs > 0) {
                load.merge(List.of(other.periodNs, other.jitterNs), other.wcetNs, Math::addExact);
              }
            }
            final long[][] rows = new long[load.size()][];
            int i = 0;
            for (var entry : load.entrySet()) {
              rows[i++] =
                  new long[] {entry.getKey().get(0), entry.getKey().get(1), entry.getValue()};
            }
            return rows;
          });
    }

    private long oneShot(int band) {
      return oneShotByBand.computeIfAbsent(
          band,
          b -> {
            long sum = 0;
            for (Draft other : all) {
              if (other.band >= b && other.periodNs == 0 && other.kind == TaskReport.Kind.SPM) {
                sum = Math.addExact(sum, other.wcetNs);
              }
            }
            return sum;
          });
    }

    private long iterate(Draft task) {
      final long own = Math.addExact(task.wcetNs, task.blockingNs);
      // The task's own load is in the band's sums: take it out once.
      final long oneShots =
          oneShot(task.band)
              - (task.periodNs == 0 && task.kind == TaskReport.Kind.SPM ? task.wcetNs : 0);
      final long[][] rows = periodic(task.band);
      long response = own;
      for (int iteration = 0; iteration < 10_000; iteration++) {
        long next = Math.addExact(own, oneShots);
        for (long[] row : rows) {
          long wcet = row[2];
          if (row[0] == task.periodNs && row[1] == task.jitterNs) {
            wcet -= task.wcetNs;
          }
          // A task released up to J late may fall ceil((w + J) / T) times into a window w.
          next =
              Math.addExact(
                  next, Math.multiplyExact(ceilDiv(Math.addExact(response, row[1]), row[0]), wcet));
        }
        if (next == response) {
          return response;
        }
        if (task.deadlineNs >= 0 && next > task.deadlineNs && task.periodNs > 0) {
          return -1;
        }
        response = next;
      }
      return -1;
    }
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** Whether two of the methods use one ODS segment. */
  private static boolean sharesSegment(List<Draft> drafts) {
    final Set<String> seen = new HashSet<>();
    for (Draft d : drafts) {
      for (String segment : d.segments) {
        if (!seen.add(segment)) {
          return true;
        }
      }
    }
    return false;
  }

  static final class Draft {
    final String instance;
    final String method;
    final TaskReport.Kind kind;
    final dev.kairos.ir.Tmos.Criticality criticality;
    final long periodNs;

    /** The WCET the model gives (scaled to the hardware, with its gates' waits): reported. */
    final long declaredWcetNs;

    /** What the analysis charges a job: the declared WCET plus the platform's overheads. */
    final long wcetNs;

    final long deadlineNs;
    final dev.kairos.ir.SourceRef source;
    final Set<String> segments;

    /** The part of the declared WCET that is waiting for replies of blocking gates. */
    long replyWaitNs;

    int band;
    long blockingNs;

    /**
     * Release jitter: how much later than its nominal arrival a request may come (a chain's, for
     * service methods), or an SpM be released (the platform's release lateness).
     */
    long jitterNs;

    Draft(
        String instance,
        String method,
        TaskReport.Kind kind,
        dev.kairos.ir.Tmos.Criticality criticality,
        long periodNs,
        long declaredWcetNs,
        long chargedWcetNs,
        long deadlineNs,
        dev.kairos.ir.SourceRef source,
        Set<String> segments) {
      this.instance = instance;
      this.method = method;
      this.kind = kind;
      this.criticality = criticality;
      this.periodNs = periodNs;
      this.declaredWcetNs = declaredWcetNs;
      this.wcetNs = chargedWcetNs;
      this.deadlineNs = deadlineNs;
      this.source = source;
      this.segments = segments;
    }
  }
}
