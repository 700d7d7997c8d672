package dev.kairos.reports;

import dev.kairos.reports.calibrate.TimingRun;
import dev.kairos.timing.DeployedAnalysis;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table `kairos run` prints after a run: every method and gate of the system with its measured
 * maximum beside its bound as deployed and its deadline. A method's figures come from its node's
 * timings file (from its release, or a request's arrival, to its return), a gate's from the node's
 * gate line. A late call's round trip is at least the gate's deadline, so a gate with late calls
 * has its deadline as the maximum, not the longest answered call.
 */
public final class RunTable {
  private RunTable() {}

  /** What a row's measurements say against its bound. */
  public enum Verdict {
    /** Every measured time within the bound as deployed. */
    WITHIN("within"),
    /** A measured time above the bound as deployed (and perhaps above the deadline). */
    ABOVE_BOUND("ABOVE BOUND"),
    /** An activation missed its start window or deadline, or a call was late or failed. */
    MISSED("MISSED"),
    /** Measured, but the analysis bounds it by nothing (a soft method it does not guarantee). */
    NO_BOUND("no bound"),
    /** Nothing measured: never released or called in the run, or its node wrote nothing. */
    NOT_MEASURED("not measured");

    private final String text;

    Verdict(String text) {
      this.text = text;
    }

    public String text() {
      return text;
    }
  }

  /**
   * One row: a method or a gate, measured ({@code count} runs or calls, {@code maxNs} the longest,
   * {@code misses} those that missed), with its bound as deployed and its deadline, both from the
   * same instant as the measurement (-1: no bound). {@code criticality} is the model's ("hard" or
   * "soft"); {@code hard} says whether the row's verdict counts for the run's (every method under a
   * strategy that guarantees all, hard ones under MUF, MLF and RMS+MLF; a gate a hard method
   * calls).
   */
  public record Row(
      String node,
      String item,
      String kind,
      String criticality,
      boolean hard,
      int cpu,
      long count,
      long maxNs,
      long misses,
      long boundNs,
      long deadlineNs,
      Verdict verdict) {
    /**
     * Whether this row fails the run: a hard item that missed, went above its bound, or has none
     * (which a schedulable deployment never leaves a hard item).
     */
    public boolean fails() {
      return hard
          && (verdict == Verdict.ABOVE_BOUND
              || verdict == Verdict.MISSED
              || verdict == Verdict.NO_BOUND);
    }
  }

  /**
   * The rows of a run: for each node in the deployment's order its methods, its gates, then the
   * channels it reads.
   *
   * @param nodes the nodes of the run, as analysed
   * @param timings each node's timings file, where it wrote one
   * @param gateLines each node's gate lines, as its log has them
   * @param channelLines each node's channel lines, as its log has them
   */
  public static List<Row> rows(
      DeployedAnalysis.AsDeployed deployment,
      List<dev.kairos.timing.NodePlan> nodePlans,
      Map<String, TimingRun> timings,
      Map<String, List<Map<String, String>>> gateLines,
      Map<String, List<Map<String, String>>> channelLines) {
    final List<Row> rows = new ArrayList<>();
    final List<String> nodes =
        deployment.tasks().stream().map(DeployedAnalysis.DeployedTask::node).distinct().toList();
    for (String node : nodes) {
      final TimingRun run = timings.get(node);
      for (DeployedAnalysis.DeployedTask task : deployment.tasks()) {
        if (task.node().equals(node)) {
          rows.add(methodRow(task, run));
        }
      }
      for (DeployedAnalysis.DeployedGate gate : deployment.gates()) {
        if (gate.node().equals(node)) {
          rows.add(gateRow(gate, gateLines.getOrDefault(node, List.of())));
        }
      }
      nodePlans.stream()
          .filter(plan -> plan.node().name().equals(node))
          .findFirst()
          .ifPresent(plan -> rows.addAll(channelRows(deployment, plan, channelLines.get(node))));
    }
    return rows;
  }

  /**
   * A row per channel a method of the node reads, from the node's channel line: the samples
   * delivered to its readers, the oldest on delivery against the bound the node's analysis gave it
   * (the holistic {@code deliver} hop; channels are not analysed again as deployed), the validity
   * as deadline, and the samples dropped late as misses. It counts when a method whose row counts
   * reads it and the analysis bounds it.
   */
  private static List<Row> channelRows(
      DeployedAnalysis.AsDeployed deployment,
      dev.kairos.timing.NodePlan plan,
      List<Map<String, String>> lines) {
    // Each channel read on the node, named by the first instance that reads it (as a gate is).
    final Map<String, dev.kairos.ir.Tmos.Channel> read = new java.util.LinkedHashMap<>();
    final Map<String, String> readerOf = new java.util.HashMap<>();
    final java.util.Set<String> countedReads = new java.util.HashSet<>();
    for (dev.kairos.ir.Platform.Deployment placed : plan.node().deployments()) {
      for (dev.kairos.ir.Tmos.Method method : placed.tmo().methods()) {
        for (dev.kairos.ir.Tmos.ChannelUse use : method.channelUses()) {
          if (use.access() != dev.kairos.ir.Tmos.ChannelAccess.READ) {
            continue;
          }
          placed.tmo().channels().stream()
              .filter(c -> c.name().equals(use.channel()))
              .findFirst()
              .ifPresent(c -> read.putIfAbsent(c.name(), c));
          readerOf.putIfAbsent(use.channel(), placed.instance());
          final String name = placed.instance() + "." + method.name();
          if (deployment.tasks().stream()
              .anyMatch(
                  t ->
                      t.node().equals(plan.node().name())
                          && t.task().name().equals(name)
                          && t.counts())) {
            countedReads.add(use.channel());
          }
        }
      }
    }
    final List<Row> rows = new ArrayList<>();
    for (dev.kairos.ir.Tmos.Channel channel : read.values()) {
      final Map<String, String> line =
          (lines == null ? List.<Map<String, String>>of() : lines)
              .stream()
                  .filter(l -> channel.name().equals(l.get("channel")))
                  .findFirst()
                  .orElse(Map.of());
      final long delivered = count(line, "delivered");
      final long late = count(line, "dropped_late");
      final long max = micros(line.get("delivery_max_us"));
      final String boundText = line.get("analysed_bound_us");
      final long bound = boundText == null || boundText.equals("none") ? -1 : micros(boundText);
      final boolean hardReader = countedReads.contains(channel.name());
      rows.add(
          new Row(
              plan.node().name(),
              readerOf.get(channel.name()) + "." + channel.name(),
              "chan",
              hardReader ? "hard" : "soft",
              // A channel the analysis bounds by nothing here (published on this node) is shown,
              // not held to a bound.
              hardReader && bound >= 0,
              -1,
              delivered,
              max,
              late,
              bound,
              channel.validityNs() > 0 ? channel.validityNs() : -1,
              verdict(delivered, max, late, bound, !line.isEmpty())));
    }
    return rows;
  }

  private static Row methodRow(DeployedAnalysis.DeployedTask task, TimingRun run) {
    final TimingRun.Method measured =
        run == null
            ? null
            : run.methods().stream()
                .filter(
                    m ->
                        m.instance().equals(task.task().instance())
                            && m.method().equals(task.task().method()))
                .findFirst()
                .orElse(null);
    final long offset = task.windowOpenNs();
    final long bound = task.boundNs() < 0 ? -1 : offset + task.boundNs();
    final long deadline = offset + task.task().deadlineNs();
    final long count = measured == null ? 0 : measured.response().count();
    final long max = measured == null ? 0 : measured.response().maxNs();
    final long misses = measured == null ? 0 : measured.misses().total();
    return new Row(
        task.node(),
        task.task().name(),
        task.task().kind().name().toLowerCase(Locale.ROOT),
        task.task().criticality().name().toLowerCase(Locale.ROOT),
        task.counts(),
        task.cpu(),
        count,
        max,
        misses,
        bound,
        deadline,
        verdict(count, max, misses, bound, measured != null));
  }

  private static Row gateRow(DeployedAnalysis.DeployedGate gate, List<Map<String, String>> lines) {
    final String name = gate.gate().caller() + "." + gate.gate().gate();
    final Map<String, String> line =
        lines.stream().filter(l -> name.equals(l.get("gate"))).findFirst().orElse(null);
    final long deadline = gate.gate().deadlineNs();
    // No line: its node printed none (it did not run to its end).
    final Map<String, String> fields = line != null ? line : Map.of();
    final long calls = count(fields, "calls");
    final long late = count(fields, "late");
    final long failed = count(fields, "failed");
    final long answeredMax = micros(fields.get("max_round_trip_us"));
    // A late call had no reply by the deadline: its round trip is the deadline at least.
    final long max = late > 0 ? Math.max(answeredMax, deadline) : answeredMax;
    // A non-blocking gate's round trip is not measured (its reply waits for the method to poll).
    final boolean measured = line != null && !"unmeasured".equals(line.get("max_round_trip_us"));
    return new Row(
        gate.node(),
        name,
        "gate",
        gate.hard() ? "hard" : "soft",
        gate.hard(),
        -1,
        calls,
        max,
        late + failed,
        gate.boundNs(),
        deadline,
        verdict(calls, max, late + failed, gate.boundNs(), measured));
  }

  private static Verdict verdict(
      long count, long maxNs, long misses, long boundNs, boolean measured) {
    if (misses > 0) {
      return Verdict.MISSED;
    }
    if (!measured || count == 0) {
      return Verdict.NOT_MEASURED;
    }
    if (boundNs < 0) {
      return Verdict.NO_BOUND;
    }
    return maxNs > boundNs ? Verdict.ABOVE_BOUND : Verdict.WITHIN;
  }

  private static long count(Map<String, String> line, String key) {
    try {
      return Long.parseLong(line.getOrDefault(key, "0"));
    } catch (NumberFormatException notACount) {
      return 0;
    }
  }

  /** A gate line's microseconds ({@code 229.4}) in nanoseconds; 0 for a word (unmeasured). */
  private static long micros(String text) {
    if (text == null) {
      return 0;
    }
    try {
      return Math.round(Double.parseDouble(text) * 1000.0);
    } catch (NumberFormatException word) {
      return 0;
    }
  }

  /** The table as text: a header, a line per row, and a closing verdict line. */
  public static String text(List<Row> rows, DeployedAnalysis.AsDeployed deployment) {
    final StringBuilder out = new StringBuilder();
    final String format = "%-10s %-28s %-4s %-4s %4s %7s %12s %12s %12s  %s%n";
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "node",
            "method or gate",
            "kind",
            "crit",
            "cpu",
            "count",
            "max",
            "bound",
            "deadline",
            "verdict"));
    for (Row row : rows) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              row.node(),
              row.item(),
              row.kind(),
              row.criticality(),
              row.cpu() < 0 ? "-" : Integer.toString(row.cpu()),
              Long.toString(row.count()),
              row.count() == 0 ? "-" : Figures.duration(row.maxNs()),
              row.boundNs() < 0 ? "none" : Figures.duration(row.boundNs()),
              row.deadlineNs() < 0 ? "none" : Figures.duration(row.deadlineNs()),
              row.verdict().text() + (row.misses() > 0 ? " (" + row.misses() + ")" : "")));
    }
    final long failing = rows.stream().filter(Row::fails).count();
    final long unmeasured =
        rows.stream().filter(r -> r.hard() && r.verdict() == Verdict.NOT_MEASURED).count();
    final String notMeasured =
        unmeasured == 0
            ? ""
            : String.format(
                Locale.ROOT,
                " (%d hard item%s not measured: never released or called)",
                unmeasured,
                unmeasured == 1 ? "" : "s");
    out.append(
        failing == 0
            ? String.format(
                Locale.ROOT,
                "run: every hard method and gate measured within its bound%s%s%n",
                deployment.sharesCpus() ? " as deployed" : "",
                notMeasured)
            : String.format(
                Locale.ROOT,
                "run: %d hard item%s missed or measured above %s bound%s%n",
                failing,
                failing == 1 ? "" : "s",
                failing == 1 ? "its" : "their",
                notMeasured));
    return out.toString();
  }

  /**
   * What a run's CPUs lost to the machine while the nodes ran, and for each hard method that missed
   * or went above its bound, whether the CPU it ran on lost time: the bounds assume CPUs that are
   * never taken away (a hypervisor's steal time, interrupts where the kernel counts them), and a
   * measured time above a bound on a CPU that lost none is no stall of the machine. Nothing where
   * no CPU lost time and nothing failed.
   *
   * @param lostNs the time each of the deployment's CPUs lost while the nodes ran
   * @param cpuName names the deployment's CPU number (e.g. "CPU 1")
   * @param source where the figures come from
   */
  public static String stallText(
      List<Row> rows,
      Map<Integer, Long> lostNs,
      java.util.function.IntFunction<String> cpuName,
      String source) {
    final StringBuilder out = new StringBuilder();
    final List<Integer> cpus = lostNs.keySet().stream().sorted().toList();
    if (cpus.stream().anyMatch(cpu -> lostNs.get(cpu) > 0)) {
      out.append(
          String.format(
              Locale.ROOT,
              "run: the machine took %s while the nodes ran (by %s); the bounds assume CPUs that"
                  + " are never taken away%n",
              String.join(
                  ", ",
                  cpus.stream()
                      .map(cpu -> Figures.duration(lostNs.get(cpu)) + " from " + cpuName.apply(cpu))
                      .toList()),
              source));
    }
    // A gate's round trip or a channel's sample crosses the caller's CPU, the callee's and the
    // network between: what every CPU of the run lost may be in it.
    final long lostByAll = lostNs.values().stream().mapToLong(Long::longValue).sum();
    for (Row row : rows) {
      final boolean acrossCpus = row.cpu() < 0;
      if (!row.fails() || (!acrossCpus && !lostNs.containsKey(row.cpu()))) {
        continue;
      }
      final long lost = acrossCpus ? lostByAll : lostNs.get(row.cpu());
      final String what =
          row.verdict() == Verdict.ABOVE_BOUND
              ? Figures.duration(row.maxNs() - row.boundNs()) + " above its bound"
              : "missed";
      out.append(
          String.format(
              Locale.ROOT,
              "run: %s %s %s on %s, %s%n",
              row.node(),
              row.item(),
              what,
              acrossCpus ? "the run's CPUs" : cpuName.apply(row.cpu()),
              explanation(row, lost)));
    }
    return out.toString();
  }

  /**
   * Whether the time the CPU of a failing row lost to the machine can account for it: at least its
   * excess above its bound (or, for a miss, any time at all).
   */
  private static String explanation(Row row, long lostNs) {
    final long excess = row.verdict() == Verdict.ABOVE_BOUND ? row.maxNs() - row.boundNs() : 1;
    if (lostNs >= excess) {
      return "which lost "
          + Figures.duration(lostNs)
          + " to the machine while the nodes ran: a stall of the machine may explain it";
    }
    // What else delays a lane that no bound charges: interrupts (a kernel without interrupt time
    // accounting counts them as the interrupted thread's), and, without a platform file, the
    // nodes' own threads above the lane (time triggers, ORB readers, DDS) at zero cost.
    return "which lost "
        + (lostNs == 0 ? "no time" : "only " + Figures.duration(lostNs))
        + " to the machine while the nodes ran: the rest is what the bounds do not charge"
        + " (interrupts; without a platform file, the nodes' own triggers, ORB readers and DDS"
        + " threads above it)";
  }

  /**
   * Where the system runs before it starts: each host CPU and the node cores on it; where cores
   * share a CPU, the verdict as deployed and each method or gate whose bound sharing raised, or
   * that misses as deployed.
   *
   * @param hostCpus the host's CPU numbers, in the order the deployment numbers its CPUs
   */
  public static String deploymentText(
      DeployedAnalysis.AsDeployed deployment, List<Integer> hostCpus) {
    return deploymentText(deployment, cpu -> "CPU " + hostCpus.get(cpu));
  }

  /**
   * The same, for CPUs of several machines: {@code cpuName} names the deployment's CPU number (e.g.
   * "alpha CPU 1").
   */
  public static String deploymentText(
      DeployedAnalysis.AsDeployed deployment, java.util.function.IntFunction<String> cpuName) {
    final StringBuilder out = new StringBuilder();
    for (DeployedAnalysis.HostCpu cpu : deployment.cpus()) {
      out.append(
          String.format(
              Locale.ROOT,
              "deploy: %s runs %s (utilization %s)%n",
              cpuName.apply(cpu.cpu()),
              String.join(
                  ", ", cpu.cores().stream().map(c -> c.node() + " core " + c.core()).toList()),
              Figures.percent(cpu.utilization())));
    }
    if (!deployment.sharesCpus()) {
      out.append("deploy: every core on a CPU of its own, as kairos check analysed it\n");
      return out.toString();
    }
    for (DeployedAnalysis.DeployedTask task : deployment.tasks()) {
      if (!task.meets() && !task.counts()) {
        out.append(
            String.format(
                Locale.ROOT,
                "deploy: %s %s.%s (soft) may miss as deployed: no bound (not guaranteed), deadline"
                    + " %s%n",
                task.node(),
                task.task().instance(),
                task.task().method(),
                Figures.duration(task.task().deadlineNs())));
      } else if (!task.meets()) {
        out.append(
            String.format(
                Locale.ROOT,
                "deploy: %s %s.%s (%s) MISSES as deployed: bound %s, deadline %s%n",
                task.node(),
                task.task().instance(),
                task.task().method(),
                task.counts() ? "hard" : "soft",
                task.boundNs() < 0 ? "none" : Figures.duration(task.boundNs()),
                Figures.duration(task.task().deadlineNs())));
      } else if (task.boundNs() > task.task().responseTimeNs()) {
        out.append(
            String.format(
                Locale.ROOT,
                "deploy: %s %s.%s: bound %s as deployed (%s alone), deadline %s%n",
                task.node(),
                task.task().instance(),
                task.task().method(),
                Figures.duration(task.boundNs()),
                Figures.duration(task.task().responseTimeNs()),
                Figures.duration(task.task().deadlineNs())));
      }
    }
    for (DeployedAnalysis.DeployedGate gate : deployment.gates()) {
      if (!gate.meets() || gate.boundNs() > gate.aloneBoundNs()) {
        out.append(
            String.format(
                Locale.ROOT,
                "deploy: %s gate %s.%s: round trip %s as deployed (%s alone), deadline %s%s%n",
                gate.node(),
                gate.gate().caller(),
                gate.gate().gate(),
                gate.boundNs() < 0 ? "unbounded" : Figures.duration(gate.boundNs()),
                gate.aloneBoundNs() < 0 ? "unbounded" : Figures.duration(gate.aloneBoundNs()),
                Figures.duration(gate.gate().deadlineNs()),
                gate.meets() ? "" : ": MISSES"));
      }
    }
    out.append(
        deployment.schedulable()
            ? "deploy: cores share CPUs; every deadline holds as deployed\n"
            : "deploy: cores share CPUs; NOT schedulable as deployed\n");
    return out.toString();
  }
}
