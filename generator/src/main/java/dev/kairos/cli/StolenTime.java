package dev.kairos.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much time each CPU of this host was taken from every task, so far: on a virtual machine the
 * time its hypervisor ran something else on the vCPU (steal time), and where the kernel accounts
 * interrupt time, the time in interrupts. The bounds of a run assume CPUs of their own; a CPU taken
 * away during a run is a stall no analysis of the model can see, and a run that measured a time
 * above its bound says whether one happened on that CPU.
 *
 * <p>The scheduler's debug file gives each CPU's clock and task clock to the nanosecond, and their
 * difference is exactly that time; it is readable where debugfs is mounted (root). Elsewhere the
 * steal column of /proc/stat gives it in the kernel's user ticks of 10 ms.
 */
record StolenTime(Map<Integer, Long> nanosByCpu, String source) {
  private static final List<Path> SCHEDULER_DEBUG =
      List.of(Path.of("/sys/kernel/debug/sched/debug"), Path.of("/proc/sched_debug"));
  private static final Path PROC_STAT = Path.of("/proc/stat");
  private static final Pattern CPU_HEADER = Pattern.compile("^cpu#(\\d+)\\b.*");
  private static final Pattern CLOCK =
      Pattern.compile("^\\s*\\.(clock|clock_task)\\s*:\\s*(\\d+)\\.(\\d{6})\\s*$");

  /** Linux reports /proc/stat in USER_HZ, 100 on every architecture it runs on. */
  private static final long USER_TICK_NS = 10_000_000L;

  /** This host's figures now; empty where neither file can be read (not Linux). */
  static Optional<StolenTime> now() {
    for (Path file : SCHEDULER_DEBUG) {
      try {
        final Map<Integer, Long> byCpu = fromSchedulerDebug(Files.readAllLines(file));
        if (!byCpu.isEmpty()) {
          return Optional.of(new StolenTime(byCpu, "the scheduler's clocks"));
        }
      } catch (IOException | SecurityException unreadable) {
        // debugfs not mounted, or not root: the coarser figure below
      }
    }
    try {
      return Optional.of(
          new StolenTime(
              fromProcStat(Files.readAllLines(PROC_STAT)),
              "the steal time of /proc/stat, in ticks of 10 ms"));
    } catch (IOException | SecurityException notLinux) {
      return Optional.empty();
    }
  }

  /** What each CPU lost between {@code earlier} and this reading (same source). */
  Map<Integer, Long> since(StolenTime earlier) {
    final Map<Integer, Long> lost = new HashMap<>();
    nanosByCpu.forEach(
        (cpu, nanos) ->
            lost.put(cpu, Math.max(0, nanos - earlier.nanosByCpu.getOrDefault(cpu, nanos))));
    return lost;
  }

  /**
   * Each CPU's clock minus its task clock, from the scheduler's debug file (milliseconds there).
   */
  static Map<Integer, Long> fromSchedulerDebug(List<String> lines) {
    final Map<Integer, Long> byCpu = new HashMap<>();
    int cpu = -1;
    long clock = -1;
    for (String line : lines) {
      final Matcher header = CPU_HEADER.matcher(line);
      if (header.matches()) {
        cpu = Integer.parseInt(header.group(1));
        clock = -1;
        continue;
      }
      final Matcher value = CLOCK.matcher(line);
      if (cpu < 0 || !value.matches()) {
        continue;
      }
      final long nanos =
          Long.parseLong(value.group(2)) * 1_000_000L + Long.parseLong(value.group(3));
      if (value.group(1).equals("clock")) {
        clock = nanos;
      } else if (clock >= 0) {
        byCpu.put(cpu, Math.max(0, clock - nanos));
        cpu = -1;
      }
    }
    return byCpu;
  }

  /** Each CPU's steal column (the eighth figure of its cpuN line), in nanoseconds. */
  static Map<Integer, Long> fromProcStat(List<String> lines) {
    final Map<Integer, Long> byCpu = new HashMap<>();
    for (String line : lines) {
      final String[] fields = line.strip().split("\\s+");
      if (fields.length > 8 && fields[0].matches("cpu\\d+")) {
        try {
          byCpu.put(
              Integer.parseInt(fields[0].substring(3)), Long.parseLong(fields[8]) * USER_TICK_NS);
        } catch (NumberFormatException notAFigure) {
          // a kernel with another layout: leave the CPU out
        }
      }
    }
    return byCpu;
  }
}
