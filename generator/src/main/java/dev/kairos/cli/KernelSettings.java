package dev.kairos.cli;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The kernel settings a run on this host relies on, read from /proc and /sys before anything
 * starts, each with what it means for the analysis and what to do: permission for real-time
 * priorities and memory locking, real-time throttling, deadline admission control where a node
 * schedules by deadline, the preemption model, the CPU frequency governor and isolated CPUs. A
 * setting that breaks an assumption of the analysis is an error; one that may weaken it a warning.
 */
final class KernelSettings {
  enum Level {
    OK("ok"),
    NOTE("note"),
    WARNING("warning"),
    ERROR("error");

    final String word;

    Level(String word) {
      this.word = word;
    }
  }

  /** One setting: how it stands and, unless it is fine, what to do. */
  record Finding(Level level, String text) {
    String line() {
      return "kernel: " + level.word + ": " + text;
    }

    /** The line for a setting of another host. */
    String lineOn(String host) {
      return "kernel: " + host + ": " + level.word + ": " + text;
    }
  }

  /** The share of each CPU real-time threads may use where the kernel's defaults stand (95%). */
  private static final double DEFAULT_REAL_TIME_SHARE = 0.95;

  /** The sysctl that turns real-time throttling, and with it deadline admission control, off. */
  static final String THROTTLING_OFF = "kernel.sched_rt_runtime_us=-1";

  /**
   * The settings (sysctl key=value) a deployment applies before it starts the nodes, so that what
   * {@link #check} would find breaking the analysis under the kernel's defaults does not: real-time
   * throttling off where a CPU needs more than the default share, or where deadline-scheduled lanes
   * must stay on their node's CPUs.
   */
  static List<String> fixes(Needs needs) {
    final boolean throttled = needs.highestCpuUtilization() > DEFAULT_REAL_TIME_SHARE;
    final boolean deadlinePinned =
        !needs.deadlineNodes().isEmpty() && needs.pinsFewerCpusThanAvailable();
    return throttled || deadlinePinned ? List.of(THROTTLING_OFF) : List.of();
  }

  /** What the run asks of the kernel. */
  record Needs(
      List<Integer> cpus,
      double highestCpuUtilization,
      List<String> deadlineNodes,
      boolean pinsFewerCpusThanAvailable) {
    /**
     * What {@code nodes} ask of a host's kernel where they run on {@code cpus} of a deployment
     * ({@code cpuNumber} gives the host's number of each): those CPUs, the highest utilization
     * among them, the nodes that schedule by deadline, and whether any of those is pinned to fewer
     * CPUs than the {@code availableCpus} of the host.
     */
    static Needs of(
        List<dev.kairos.timing.DeployedAnalysis.HostCpu> cpus,
        java.util.function.IntUnaryOperator cpuNumber,
        List<dev.kairos.timing.NodePlan> nodes,
        int availableCpus) {
      final List<dev.kairos.timing.NodePlan> byDeadline =
          nodes.stream().filter(n -> n.node().strategy().preemptsByDeadline()).toList();
      return new Needs(
          cpus.stream().map(c -> cpuNumber.applyAsInt(c.cpu())).toList(),
          cpus.stream()
              .mapToDouble(dev.kairos.timing.DeployedAnalysis.HostCpu::utilization)
              .max()
              .orElse(0),
          byDeadline.stream().map(n -> n.node().name()).toList(),
          byDeadline.stream().anyMatch(n -> n.node().hardware().cores() < availableCpus));
    }
  }

  /** CAP_IPC_LOCK and CAP_SYS_NICE, as bits of /proc/self/status's CapEff. */
  private static final int CAP_IPC_LOCK = 14;

  private static final int CAP_SYS_NICE = 23;

  /** The SCHED_FIFO priority of the highest band the nodes use (the runtime's 20 + 63). */
  private static final int HIGHEST_FIFO_PRIORITY = 83;

  /** More than any of the files read here holds. */
  private static final int MAX_FILE_BYTES = 64 * 1024;

  private final Path root;

  /** Reads the settings below {@code root} ({@code /} on a host; a directory tree in tests). */
  KernelSettings(Path root) {
    this.root = root;
  }

  List<Finding> check(Needs needs) {
    final List<Finding> findings = new ArrayList<>();
    findings.add(realTimePermission());
    findings.add(memoryLocking());
    findings.add(throttling(needs));
    if (!needs.deadlineNodes().isEmpty()) {
      findings.add(deadlineAdmission(needs));
    }
    findings.add(preemption());
    findings.add(governor(needs.cpus()));
    findings.add(isolation(needs.cpus()));
    return findings;
  }

  private Finding realTimePermission() {
    if (capability(CAP_SYS_NICE)
        || limit("Max realtime priority").orElse(0L) >= HIGHEST_FIFO_PRIORITY) {
      return new Finding(Level.OK, "real-time priorities (SCHED_FIFO) permitted");
    }
    return new Finding(
        Level.ERROR,
        "the nodes may not use real-time priorities (SCHED_FIFO), on which every bound rests:"
            + " run as root, or raise the real-time priority limit to "
            + HIGHEST_FIFO_PRIORITY
            + " (ulimit -r "
            + HIGHEST_FIFO_PRIORITY
            + "; LimitRTPRIO= in a systemd unit)");
  }

  private Finding memoryLocking() {
    if (capability(CAP_IPC_LOCK) || limit("Max locked memory").orElse(0L) == Long.MAX_VALUE) {
      return new Finding(Level.OK, "memory locking permitted");
    }
    return new Finding(
        Level.WARNING,
        "the nodes may not lock all their memory: a page fault may delay a method; raise the limit"
            + " (ulimit -l unlimited; LimitMEMLOCK=infinity in a systemd unit)");
  }

  private Finding throttling(Needs needs) {
    final Optional<Long> runtime = number("proc/sys/kernel/sched_rt_runtime_us");
    final Optional<Long> period = number("proc/sys/kernel/sched_rt_period_us");
    if (runtime.isEmpty() || period.isEmpty() || runtime.get() < 0 || period.get() <= 0) {
      return new Finding(Level.OK, "real-time throttling off");
    }
    final double share = (double) runtime.get() / period.get();
    final String settings =
        String.format(
            Locale.ROOT,
            "real-time throttling lets real-time threads use %.1f%% of each CPU every %d ms",
            share * 100,
            period.get() / 1000);
    if (needs.highestCpuUtilization() > share) {
      return new Finding(
          Level.ERROR,
          settings
              + String.format(
                  Locale.ROOT,
                  ", and a CPU of this run needs %.1f%%: turn it off (sysctl -w"
                      + " kernel.sched_rt_runtime_us=-1)",
                  needs.highestCpuUtilization() * 100));
    }
    return new Finding(
        Level.NOTE,
        settings
            + String.format(
                Locale.ROOT,
                "; this run needs at most %.1f%% of a CPU, so it never holds a node back",
                needs.highestCpuUtilization() * 100));
  }

  private Finding deadlineAdmission(Needs needs) {
    final Optional<Long> runtime = number("proc/sys/kernel/sched_rt_runtime_us");
    final boolean admissionOn = runtime.isEmpty() || runtime.get() >= 0;
    if (!admissionOn || !needs.pinsFewerCpusThanAvailable()) {
      return new Finding(
          Level.OK,
          "deadline scheduling (SCHED_DEADLINE) admits the lanes of "
              + String.join(", ", needs.deadlineNodes())
              + " on their CPUs");
    }
    return new Finding(
        Level.ERROR,
        String.join(", ", needs.deadlineNodes())
            + " schedule by deadline (SCHED_DEADLINE), which the kernel admits on fewer CPUs than"
            + " all only with deadline admission control off; with it on, their lanes would run"
            + " on every CPU, ahead of every other node's: turn it off (sysctl -w"
            + " kernel.sched_rt_runtime_us=-1)");
  }

  private Finding preemption() {
    if (text("sys/kernel/realtime").map(String::strip).filter("1"::equals).isPresent()) {
      return new Finding(Level.OK, "preemption model: PREEMPT_RT (fully preemptible kernel)");
    }
    final String version = text("proc/sys/kernel/version").map(String::strip).orElse("");
    final String model =
        version.contains("PREEMPT_DYNAMIC")
            ? "PREEMPT_DYNAMIC"
            : version.contains("PREEMPT") ? "PREEMPT" : "voluntary or none";
    return new Finding(
        Level.NOTE,
        "preemption model: "
            + model
            + ", not PREEMPT_RT: some kernel sections are not preemptible; the release lateness"
            + " kairos probe measured on this machine includes what it saw of them");
  }

  private Finding governor(List<Integer> cpus) {
    final List<String> slow = new ArrayList<>();
    boolean any = false;
    for (int cpu : cpus) {
      final Optional<String> governor =
          text("sys/devices/system/cpu/cpu" + cpu + "/cpufreq/scaling_governor").map(String::strip);
      any |= governor.isPresent();
      governor
          .filter(g -> !g.equals("performance"))
          .ifPresent(g -> slow.add("CPU " + cpu + " (" + g + ")"));
    }
    if (!any) {
      return new Finding(Level.OK, "no CPU frequency scaling on the run's CPUs");
    }
    if (slow.isEmpty()) {
      return new Finding(Level.OK, "the run's CPUs run the performance governor");
    }
    return new Finding(
        Level.WARNING,
        String.join(", ", slow)
            + ": the clock speed follows the load, and a WCET measured at one speed may not hold"
            + " at another; set the performance governor (cpupower frequency-set -g performance)");
  }

  private Finding isolation(List<Integer> cpus) {
    final List<Integer> isolated =
        text("sys/devices/system/cpu/isolated")
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .map(HostCpus::parse)
            .orElse(List.of());
    if (isolated.containsAll(cpus)) {
      return new Finding(Level.OK, "the run's CPUs are isolated");
    }
    return new Finding(
        Level.NOTE,
        "CPUs "
            + HostCpus.describe(cpus)
            + " are not isolated (isolcpus): other processes run there below the nodes' real-time"
            + " priorities, and interrupts and kernel threads as the kernel chooses");
  }

  /** Whether this process holds the capability (bit {@code bit} of CapEff). */
  private boolean capability(int bit) {
    return lines("proc/self/status").stream()
        .filter(l -> l.startsWith("CapEff:"))
        .findFirst()
        .map(l -> new BigInteger(l.substring("CapEff:".length()).strip(), 16).testBit(bit))
        .orElse(false);
  }

  /** The soft limit of /proc/self/limits's row {@code name}; Long.MAX_VALUE for unlimited. */
  private Optional<Long> limit(String name) {
    for (String line : lines("proc/self/limits")) {
      if (line.startsWith(name)) {
        final String[] words = line.substring(name.length()).strip().split("\\s+");
        if (words.length > 0) {
          return words[0].equals("unlimited") ? Optional.of(Long.MAX_VALUE) : parse(words[0]);
        }
      }
    }
    return Optional.empty();
  }

  private Optional<Long> number(String path) {
    return text(path).map(String::strip).flatMap(KernelSettings::parse);
  }

  private static Optional<Long> parse(String text) {
    try {
      return Optional.of(Long.parseLong(text));
    } catch (NumberFormatException notANumber) {
      return Optional.empty();
    }
  }

  /**
   * A file's text, read in one go: a sysctl file of /proc answers a read only at its start, and
   * reports no size, so reading it a byte first (as Files.readString does) leaves the rest out.
   */
  private Optional<String> text(String path) {
    try (java.io.InputStream in = Files.newInputStream(root.resolve(path))) {
      return Optional.of(
          new String(in.readNBytes(MAX_FILE_BYTES), java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException | SecurityException unreadable) {
      return Optional.empty();
    }
  }

  private List<String> lines(String path) {
    return text(path).map(t -> List.of(t.split("\n"))).orElse(List.of());
  }
}
