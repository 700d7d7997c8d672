package dev.kairos.timing;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Tmos.Criticality;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The system as deployed on one host: every core of every node runs on a host CPU, and where the
 * host has fewer CPUs than the model has cores, the cores that share a CPU are analysed together on
 * it ({@link SharedCpu}): their bands merged into one order of host priorities that keeps each
 * node's own order, found so that every deadline holds where any such order lets it. The runtime
 * then runs each band at its host priority (`--band-map`), so a segment held at its ceiling blocks
 * across nodes as the analysis counts it. A node core alone on its CPU keeps its node's bands and
 * bounds. A gate's round trip as deployed is its bound alone plus what its callee's response grew
 * by. Pure data, no text.
 */
public final class DeployedAnalysis {
  private DeployedAnalysis() {}

  /** A core of a node. */
  public record NodeCore(String node, int core) {}

  /** A host CPU and the node cores it runs, with their summed utilization. */
  public record HostCpu(int cpu, List<NodeCore> cores, double utilization) {}

  /**
   * A method as deployed: its node, its report alone on its node, the host CPU it runs on, its
   * bound there (-1: none, it diverges past its deadline), whether that meets its deadline, and
   * whether its verdict counts (a hard method, or any method under a strategy that guarantees all).
   * The bound and the report's deadline count from the method's readiness: for an SpM the opening
   * of its start window, {@code windowOpenNs} after its release; for an SvM a request's arrival.
   */
  public record DeployedTask(
      String node,
      TaskReport task,
      long windowOpenNs,
      int cpu,
      long boundNs,
      boolean meets,
      boolean counts) {}

  /**
   * A remote call as deployed: the bound alone and as deployed (-1: none), the verdict, and whether
   * a hard method of the caller makes it.
   */
  public record DeployedGate(
      String node,
      EndToEndAnalysis.GateReport gate,
      long aloneBoundNs,
      long boundNs,
      boolean meets,
      boolean hard) {}

  /** The host priority band a band of a node core runs at on a shared CPU. */
  public record HostBand(String node, int core, int band, int hostBand) {}

  /**
   * The verdict of the system as deployed: its CPUs, the host band of each band of a node core on a
   * shared CPU (none where every core has a CPU of its own), its methods and gates.
   */
  public record AsDeployed(
      List<HostCpu> cpus,
      List<HostBand> hostBands,
      List<DeployedTask> tasks,
      List<DeployedGate> gates,
      boolean schedulable) {
    /** Whether any host CPU runs more than one node core. */
    public boolean sharesCpus() {
      return cpus.stream().anyMatch(c -> c.cores().size() > 1);
    }
  }

  /**
   * Where each core of each node runs on a host of {@code hostCpus} CPUs (every core of its
   * hardware: a node pins each, used or not): node by node, core by core, on the least loaded CPU
   * that no other core of the same node has (two cores of one node never share a CPU: the runtime
   * refuses it), the lowest-numbered among equals. With at least as many CPUs as cores, every core
   * has one of its own. Empty when a node has more cores than the host has CPUs.
   */
  public static java.util.Optional<Map<NodeCore, Integer>> place(
      List<NodePlan> nodes, int hostCpus) {
    final double[] load = new double[hostCpus];
    final int[] count = new int[hostCpus];
    final Map<NodeCore, Integer> cpuOf = new LinkedHashMap<>();
    for (NodePlan plan : nodes) {
      final int cores = plan.node().hardware().cores();
      if (cores > hostCpus) {
        return java.util.Optional.empty();
      }
      final boolean[] taken = new boolean[hostCpus];
      for (int core = 0; core < cores; core++) {
        int best = -1;
        for (int cpu = 0; cpu < hostCpus; cpu++) {
          if (taken[cpu]) {
            continue;
          }
          if (best < 0
              || count[cpu] < count[best]
              || (count[cpu] == count[best] && load[cpu] < load[best])) {
            best = cpu;
          }
        }
        taken[best] = true;
        count[best]++;
        load[best] += coreUtilization(plan, core);
        cpuOf.put(new NodeCore(plan.node().name(), core), best);
      }
    }
    return java.util.Optional.of(cpuOf);
  }

  /** Placements tried at most before the first, least-loaded one is kept. */
  static final int MAX_PLACEMENTS_TRIED = 20_000;

  /**
   * A placement of the nodes' cores on the host's CPUs under which the system holds as deployed,
   * where one exists: first {@link #place}'s, then every other (the first node's cores on CPUs 0,
   * 1, ... in order, since CPUs are alike; at most {@link #MAX_PLACEMENTS_TRIED}), in order. Where
   * none holds, {@link #place}'s, whose analysis then says what misses. Empty as for {@link
   * #place}.
   */
  public static java.util.Optional<Map<NodeCore, Integer>> placeSchedulable(
      dev.kairos.ir.SystemModel system, TimingPlan plan, List<NodePlan> nodes, int hostCpus) {
    final java.util.Optional<Map<NodeCore, Integer>> first = place(nodes, hostCpus);
    if (first.isEmpty() || analyse(system, plan, first.get()).schedulable()) {
      return first;
    }
    final Search search = new Search(system, plan, nodes, hostCpus);
    return search.placements(0, new LinkedHashMap<>(), new int[0], 0)
        ? java.util.Optional.of(search.found)
        : first;
  }

  /** The search of placements: depth-first, stops at the first that holds. */
  private static final class Search {
    final dev.kairos.ir.SystemModel system;
    final TimingPlan plan;
    final List<NodePlan> nodes;
    final int hostCpus;
    int tried;
    Map<NodeCore, Integer> found;

    Search(dev.kairos.ir.SystemModel system, TimingPlan plan, List<NodePlan> nodes, int hostCpus) {
      this.system = system;
      this.plan = plan;
      this.nodes = nodes;
      this.hostCpus = hostCpus;
    }

    /** Node {@code index} on, each node's cores on distinct CPUs; true once one holds. */
    boolean placements(int index, Map<NodeCore, Integer> partial, int[] chosen, int core) {
      if (tried >= MAX_PLACEMENTS_TRIED) {
        return false;
      }
      if (index == nodes.size()) {
        tried++;
        if (analyse(system, plan, partial).schedulable()) {
          found = new LinkedHashMap<>(partial);
          return true;
        }
        return false;
      }
      final String name = nodes.get(index).node().name();
      final int cores = nodes.get(index).node().hardware().cores();
      final int[] mine = core == 0 ? new int[cores] : chosen;
      if (core == cores) {
        for (int c = 0; c < cores; c++) {
          partial.put(new NodeCore(name, c), mine[c]);
        }
        final boolean holds = placements(index + 1, partial, new int[0], 0);
        for (int c = 0; c < cores; c++) {
          partial.remove(new NodeCore(name, c));
        }
        return holds;
      }
      for (int cpu = 0; cpu < hostCpus; cpu++) {
        if (index == 0 && cpu != core) {
          continue; // CPUs are alike: the first node's cores on the first CPUs, in order
        }
        boolean taken = false;
        for (int c = 0; c < core; c++) {
          taken |= mine[c] == cpu;
        }
        if (!taken) {
          mine[core] = cpu;
          if (placements(index, partial, mine, core + 1)) {
            return true;
          }
        }
      }
      return false;
    }
  }

  private static double coreUtilization(NodePlan plan, int core) {
    return plan.cores().stream()
        .filter(c -> c.core() == core)
        .mapToDouble(NodePlan.CorePlan::utilization)
        .findFirst()
        .orElse(0);
  }

  /**
   * The system's nodes as deployed with {@code cpuOf} (host CPU of each core; host CPU numbers are
   * the order of the host's usable CPUs).
   */
  public static AsDeployed analyse(
      dev.kairos.ir.SystemModel system, TimingPlan plan, Map<NodeCore, Integer> cpuOf) {
    final Map<Integer, List<NodeCore>> coresOf = new java.util.TreeMap<>();
    cpuOf.forEach((core, cpu) -> coresOf.computeIfAbsent(cpu, c -> new ArrayList<>()).add(core));
    final Map<String, NodePlan> plans = new HashMap<>();
    plan.nodes().forEach(n -> plans.put(n.node().name(), n));

    final Map<String, List<SharedCpu.Job>> jobsOf = new HashMap<>();
    for (NodePlan node : plan.nodes()) {
      if (cpuOf.keySet().stream().anyMatch(c -> c.node().equals(node.node().name()))) {
        jobsOf.put(node.node().name(), SharedCpu.jobs(node));
      }
    }
    final List<HostCpu> cpus = new ArrayList<>();
    final List<HostBand> hostBands = new ArrayList<>();
    final Map<String, Long> boundOf = new HashMap<>();
    final Map<String, Integer> cpuOfTask = new HashMap<>();
    for (Map.Entry<Integer, List<NodeCore>> entry : coresOf.entrySet()) {
      final List<SharedCpu.Job> here = new ArrayList<>();
      double utilization = 0;
      for (NodeCore core : entry.getValue()) {
        for (SharedCpu.Job job : jobsOf.getOrDefault(core.node(), List.of())) {
          if (job.report.core() == core.core()) {
            here.add(job);
          }
        }
        utilization += coreUtilization(plans.get(core.node()), core.core());
      }
      cpus.add(new HostCpu(entry.getKey(), List.copyOf(entry.getValue()), utilization));
      final SharedCpu.Result shared = SharedCpu.analyse(here, entry.getValue().size());
      for (Map.Entry<SharedCpu.Job, Long> bound : shared.bounds().entrySet()) {
        boundOf.put(bound.getKey().key(), bound.getValue());
        cpuOfTask.put(bound.getKey().key(), entry.getKey());
      }
      shared
          .levels()
          .forEach(
              (group, level) ->
                  hostBands.add(new HostBand(group.node(), group.core(), group.band(), level)));
    }

    final List<DeployedTask> tasks = new ArrayList<>();
    boolean schedulable = true;
    for (NodePlan node : plan.nodes()) {
      for (SharedCpu.Job job : jobsOf.getOrDefault(node.node().name(), List.of())) {
        final TaskReport task = job.report;
        final long bound = boundOf.getOrDefault(job.key(), -1L);
        final boolean meets =
            task.periodNs() == 0 && task.kind() == TaskReport.Kind.SVM
                || bound >= 0 && bound <= task.deadlineNs();
        final boolean counts = job.counts;
        schedulable &= meets || !counts;
        tasks.add(
            new DeployedTask(
                node.node().name(),
                task,
                job.windowOpenNs,
                cpuOfTask.getOrDefault(job.key(), -1),
                bound,
                meets,
                counts));
      }
    }
    final List<DeployedGate> gates = gates(system, plan, tasks);
    schedulable &= gates.stream().allMatch(DeployedGate::meets);
    return new AsDeployed(cpus, List.copyOf(hostBands), tasks, gates, schedulable);
  }

  /**
   * Every gate with its round trip as deployed: its bound alone grown by what the callee's response
   * grew by on its CPU. The gates of the plan are in the order EndToEndAnalysis made them: node by
   * node, deployment by deployment, gate by gate.
   */
  private static List<DeployedGate> gates(
      dev.kairos.ir.SystemModel system, TimingPlan plan, List<DeployedTask> tasks) {
    final Map<String, DeployedTask> byName = new HashMap<>();
    tasks.forEach(t -> byName.put(t.node() + "/" + t.task().name(), t));
    final java.util.Set<String> deployed = new java.util.HashSet<>();
    tasks.forEach(t -> deployed.add(t.node()));
    final List<DeployedGate> gates = new ArrayList<>();
    int index = 0;
    for (NodePlan node : plan.nodes()) {
      for (Deployment deployment : node.node().deployments()) {
        for (dev.kairos.ir.Tmos.Gate gate : deployment.tmo().gates()) {
          final EndToEndAnalysis.GateReport report = plan.gates().get(index++);
          if (!deployed.contains(node.node().name())) {
            continue;
          }
          final long alone = plan.roundTripBound(report);
          final DeployedTask callee =
              system
                  .callee(gate)
                  .map(c -> byName.get(c.node().name() + "/" + report.callee()))
                  .orElse(null);
          long bound = alone;
          if (alone >= 0 && callee != null) {
            bound =
                callee.boundNs() < 0
                    ? -1
                    : alone + Math.max(0, callee.boundNs() - callee.task().responseTimeNs());
          }
          final boolean hard =
              deployment.tmo().methods().stream()
                  .anyMatch(
                      m -> m.criticality() == Criticality.HARD && m.calls().contains(gate.name()));
          gates.add(
              new DeployedGate(
                  node.node().name(),
                  report,
                  alone,
                  bound,
                  report.meets() && bound >= 0 && bound <= report.deadlineNs(),
                  hard));
        }
      }
    }
    return gates;
  }
}
