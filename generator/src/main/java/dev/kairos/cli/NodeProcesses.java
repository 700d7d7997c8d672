package dev.kairos.cli;

import dev.kairos.reports.calibrate.JsonText;
import dev.kairos.reports.calibrate.TimingRun;
import dev.kairos.reports.runlog.RunLog;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The nodes of a run as processes of this host: each started with its CPUs, its duration, a timings
 * file and one epoch for all ({@code --start-at}, two seconds after they start, so that no node
 * releases anything before every node has set up and met its peers), its standard output and errors
 * in DIR/NODE.log. SIGINT and SIGTERM to kairos stop every node at a clean point (each prints its
 * summary and writes its timings, as on its own); kairos waits for them and still reads what they
 * wrote. A node that does not end within a minute of its duration (or of being asked to stop) is
 * killed, and the run says so.
 */
final class NodeProcesses {
  /**
   * What a finished run left: each node's timings and gate lines, what each node's log holds for
   * the report (its activation lines, where it printed them, and its summary), and whether all
   * ended well.
   */
  record Outcome(
      Map<String, TimingRun> timings,
      Map<String, List<Map<String, String>>> gateLines,
      Map<String, RunLog.Parsed> logs,
      boolean clean) {
    /** Each node's channel lines. */
    Map<String, List<Map<String, String>>> channelLines() {
      final Map<String, List<Map<String, String>>> lines = new LinkedHashMap<>();
      logs.forEach(
          (node, parsed) -> lines.put(node, parsed.channels().getOrDefault(node, List.of())));
      return lines;
    }
  }

  /**
   * The longest run whose nodes print an activation line per release into their logs (for the
   * report's measured timelines, which draw at most 20,000 a node); a longer run, or one until
   * stopped, prints only the summary and gate lines, so that a log never grows without end.
   */
  static final long ACTIVATION_LINES_UP_TO_NANOS = TimeUnit.MINUTES.toNanos(1);

  private static final long GRACE_SECONDS = 60;

  /**
   * setsid(1), which starts each node in a session of its own: a signal to kairos's process group
   * (a terminal's Ctrl+C, timeout(1), a service manager stopping a control group) then reaches
   * kairos alone, which asks each node to stop exactly once. A node that got it twice, from the
   * group and from kairos, would take the second as "end at once" and leave no summary.
   */
  private static final java.util.Optional<String> SETSID =
      java.util.stream.Stream.of("/usr/bin/setsid", "/bin/setsid")
          .filter(p -> Files.isExecutable(Path.of(p)))
          .findFirst();

  private static List<String> concat(List<String> first, List<String> second) {
    final List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  /**
   * From starting the nodes to their common epoch: time for every process to start, lock its
   * memory, connect its routes and meet its peers (tens of milliseconds on an idle machine).
   */
  static final long START_LEAD_NANOS = 2_000_000_000L;

  private static final long KILL_AFTER_SECONDS = 10;

  private final Path runDirectory;
  private final Map<String, Path> binaries;
  private final String duration;
  private final String peerWait;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Map<String, Process> running = new LinkedHashMap<>();
  private volatile boolean stopping;
  private final java.util.concurrent.atomic.AtomicBoolean stopSaid =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicBoolean stopSent =
      new java.util.concurrent.atomic.AtomicBoolean();

  NodeProcesses(
      Path runDirectory,
      Map<String, Path> binaries,
      String duration,
      String peerWait,
      PrintWriter out,
      PrintWriter err) {
    this.runDirectory = runDirectory;
    this.binaries = binaries;
    this.duration = duration;
    this.peerWait = peerWait;
    this.out = out;
    this.err = err;
  }

  /** Variables a node's process gets besides this process's environment, by node. */
  private final Map<String, Map<String, String>> environments = new java.util.HashMap<>();

  /** Starts {@code node} with {@code name=value} in its environment. */
  void environment(String node, String name, String value) {
    environments.computeIfAbsent(node, n -> new java.util.LinkedHashMap<>()).put(name, value);
  }

  /** Options a node's command line gets besides those of the run, by node. */
  private final Map<String, List<String>> options = new java.util.HashMap<>();

  /** Starts {@code node} with {@code more} on its command line. */
  void options(String node, List<String> more) {
    options.computeIfAbsent(node, n -> new java.util.ArrayList<>()).addAll(more);
  }

  private Path log(String node) {
    return runDirectory.resolve(node + ".log");
  }

  private Path timingsFile(String node) {
    return runDirectory.resolve(node + ".timings.json");
  }

  /** Runs every node with its CPU options until all have ended. */
  Outcome run(Map<String, List<String>> cpuOptions) throws IOException {
    boolean clean = true;
    final StopSignals previousHandlers = forwardStopSignals();
    final java.time.Instant now = java.time.Instant.now();
    final long startAt = now.getEpochSecond() * 1_000_000_000L + now.getNano() + START_LEAD_NANOS;
    try {
      for (Map.Entry<String, Path> node : binaries.entrySet()) {
        if (stopping) {
          clean = false; // asked to stop while starting: the nodes not started yet never are
          break;
        }
        Files.deleteIfExists(timingsFile(node.getKey()));
        final List<String> command = new ArrayList<>(List.of(node.getValue().toString()));
        final List<String> launch = new ArrayList<>(SETSID.map(List::of).orElse(List.of()));
        command.addAll(cpuOptions.getOrDefault(node.getKey(), List.of()));
        command.addAll(options.getOrDefault(node.getKey(), List.of()));
        command.addAll(
            List.of(
                "--duration",
                duration,
                "--peer-wait",
                peerWait,
                "--start-at",
                Long.toString(startAt),
                "--timings",
                timingsFile(node.getKey()).toString()));
        if (!printsActivations(duration)) {
          command.add("--quiet");
        }
        final Process process;
        try {
          final ProcessBuilder starting =
              new ProcessBuilder(concat(launch, command))
                  .redirectErrorStream(true)
                  .redirectOutput(log(node.getKey()).toFile());
          starting.environment().putAll(environments.getOrDefault(node.getKey(), Map.of()));
          process = starting.start();
        } catch (IOException e) {
          err.println("kairos: error: cannot start node " + node.getKey() + ": " + e.getMessage());
          clean = false;
          break;
        }
        synchronized (running) {
          running.put(node.getKey(), process);
        }
        out.println(
            "start: "
                + node.getKey()
                + " (pid "
                + process.pid()
                + ") "
                + String.join(" ", command.subList(1, command.size())));
        out.flush();
      }
      if (!clean) {
        stopAll();
      }
      out.println(
          duration.equals("forever")
              ? "run: until Ctrl+C or SIGTERM"
              : "run: for " + duration + " (Ctrl+C or SIGTERM stops it sooner)");
      out.flush();
      clean &= awaitAll();
    } finally {
      previousHandlers.close();
    }
    return collect(clean);
  }

  /**
   * Waits for every node; true when each ended by itself with exit code 0. A node that ends with an
   * error stops the others; nodes still running a minute after their duration, or after being asked
   * to stop, are asked again, and killed ten seconds later.
   */
  private boolean awaitAll() {
    final long limitNanos = runLimitNanos();
    final long started = System.nanoTime();
    final Map<String, Process> nodes = snapshot();
    final Map<String, Integer> exits = new LinkedHashMap<>();
    long stopAskedAt = 0;
    long askedAgainAt = 0;
    boolean clean = true;
    while (exits.size() < nodes.size()) {
      for (Map.Entry<String, Process> node : nodes.entrySet()) {
        if (exits.containsKey(node.getKey()) || node.getValue().isAlive()) {
          continue;
        }
        final int exit = node.getValue().exitValue();
        exits.put(node.getKey(), exit);
        if (exit != 0) {
          err.println(
              "kairos: error: node "
                  + node.getKey()
                  + " ended with exit code "
                  + exit
                  + " (its log: "
                  + log(node.getKey())
                  + ")"
                  + (stopping || exits.size() == nodes.size() ? "" : ": stopping the others"));
          clean = false;
          stopAll();
        }
      }
      if (exits.size() == nodes.size()) {
        break;
      }
      final long now = System.nanoTime();
      if (stopping && stopAskedAt == 0) {
        stopAskedAt = now;
      }
      if (!stopping && limitNanos > 0 && now - started > limitNanos) {
        err.println("kairos: warning: the nodes run past their duration; asking them to stop");
        stopAll();
        stopAskedAt = now;
      } else if (stopAskedAt != 0
          && askedAgainAt == 0
          && now - stopAskedAt > TimeUnit.SECONDS.toNanos(GRACE_SECONDS)) {
        err.println(
            "kairos: warning: nodes still run a minute after being asked to stop; asking again");
        askAgain();
        askedAgainAt = now;
      } else if (askedAgainAt != 0
          && now - askedAgainAt > TimeUnit.SECONDS.toNanos(KILL_AFTER_SECONDS)) {
        for (Map.Entry<String, Process> node : nodes.entrySet()) {
          if (node.getValue().isAlive()) {
            err.println("kairos: error: node " + node.getKey() + " did not stop: killed");
            node.getValue().destroyForcibly();
          }
        }
        askedAgainAt = now; // killed ones end at once; the loop collects their exits
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopAll();
        return false;
      }
    }
    return clean;
  }

  /** Whether nodes run for {@code duration} print their activation lines. */
  static boolean printsActivations(String duration) {
    return !duration.equals("forever") && nanos(duration) <= ACTIVATION_LINES_UP_TO_NANOS;
  }

  /** The duration plus the start, the peers' wait and a minute, in nanoseconds; 0 for forever. */
  private long runLimitNanos() {
    if (duration.equals("forever")) {
      return 0;
    }
    return nanos(duration)
        + START_LEAD_NANOS
        + nanos(peerWait)
        + TimeUnit.SECONDS.toNanos(GRACE_SECONDS);
  }

  /** A time as the nodes take it (RunCommand checked its form), Long.MAX_VALUE past 64 bits. */
  static long nanos(String time) {
    final String digits = time.replaceAll("[a-z]+$", "");
    final String unit = time.substring(digits.length());
    final long scale =
        switch (unit) {
          case "ns" -> 1L;
          case "us" -> 1_000L;
          case "ms" -> 1_000_000L;
          case "s" -> 1_000_000_000L;
          default -> 60_000_000_000L;
        };
    try {
      return Math.multiplyExact(Long.parseLong(digits), scale);
    } catch (ArithmeticException beyond64Bits) {
      return Long.MAX_VALUE;
    }
  }

  private Map<String, Process> snapshot() {
    synchronized (running) {
      return new LinkedHashMap<>(running);
    }
  }

  /** SIGTERM to every node still running: each stops at a clean point. */
  private void stopAll() {
    // Once: a node takes a second SIGTERM as "end at once", without its summary and timings.
    if (stopSent.compareAndSet(false, true)) {
      stopping = true;
      snapshot().values().forEach(Process::destroy);
    }
  }

  /** SIGTERM again to the nodes still running long after the first: they end at once. */
  private void askAgain() {
    snapshot().values().stream().filter(Process::isAlive).forEach(Process::destroy);
  }

  /**
   * SIGINT and SIGTERM to kairos stop the nodes instead of kairos: the handlers ask each node to
   * stop, and kairos goes on to read what they wrote. The previous handlers come back after the
   * run. (A terminal's Ctrl+C reaches the nodes too, in the same process group; asking twice does
   * no harm.)
   */
  private StopSignals forwardStopSignals() {
    return new StopSignals(
        name -> {
          // Each signal's handler runs in a thread of its own: say it once.
          if (stopSaid.compareAndSet(false, true)) {
            err.println("kairos: SIG" + name + ": stopping the nodes");
            err.flush();
          }
          stopAll();
        });
  }

  private Outcome collect(boolean clean) {
    return collect(runDirectory, binaries.keySet(), clean, err);
  }

  /**
   * Reads each node's timings file (DIR/NODE.timings.json) and its log's gate lines (DIR/NODE.log),
   * saying what could not be read; {@code clean} stays only if every file could.
   */
  static Outcome collect(
      Path runDirectory, java.util.Collection<String> nodes, boolean clean, PrintWriter err) {
    final Map<String, TimingRun> timings = new LinkedHashMap<>();
    final Map<String, List<Map<String, String>>> gateLines = new LinkedHashMap<>();
    final Map<String, RunLog.Parsed> logs = new LinkedHashMap<>();
    boolean readable = clean;
    for (String node : nodes) {
      final Path file = runDirectory.resolve(node + ".timings.json");
      try {
        timings.put(node, TimingRun.parse(file.toString(), Files.readString(file)));
      } catch (IOException | JsonText.Malformed e) {
        err.println("kairos: warning: node " + node + " wrote no readable timings (" + file + ")");
        readable = false;
      }
      final Path log = runDirectory.resolve(node + ".log");
      final List<String> lines;
      try {
        lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        continue;
      }
      lines.stream()
          .filter(l -> l.startsWith("kairos: warning") || l.contains(": error:"))
          .forEach(l -> err.println(node + ": " + l));
      try {
        final RunLog.Parsed parsed = RunLog.parse(lines, node, Set.of(node));
        gateLines.put(node, parsed.gates().getOrDefault(node, List.of()));
        logs.put(node, parsed);
      } catch (RunLog.MalformedLine e) {
        err.println("kairos: warning: " + log + ": " + e.getMessage());
        readable = false;
      }
    }
    err.flush();
    return new Outcome(timings, gateLines, logs, readable);
  }
}
