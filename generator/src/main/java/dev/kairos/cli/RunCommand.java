package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;
import static dev.kairos.cli.KairosCli.USAGE;

import dev.kairos.ir.Platform;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.RunTable;
import dev.kairos.timing.DeployedAnalysis;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * `kairos run`: the nodes of a system started on this host as the analysis assumed them, each core
 * pinned to a host CPU, and afterwards one table of what they measured beside their bounds as
 * deployed. Building is {@link NodeBuild}'s, starting and stopping {@link NodeProcesses}'s.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Checks the system as deployed on this host's CPUs, builds its nodes, runs each pinned to"
            + " its CPUs, and prints every method's and gate's measured maximum beside its bound.")
final class RunCommand extends ModelCommand {
  private static final Pattern DURATION = Pattern.compile("forever|[0-9]{1,12}(ns|us|ms|s|min)");

  /** The longest run that is not `forever`: a year, far within what the nodes' clocks hold. */
  private static final long LONGEST_RUN_NANOS = 366L * 24 * 3600 * 1_000_000_000L;

  /**
   * Whether {@code value} is a time {@code option} takes (--duration: also forever); false after
   * saying what it expected.
   */
  static boolean timeHolds(String option, String value, java.io.PrintWriter err) {
    if (DURATION.matcher(value).matches()
        && !(value.equals("forever") && !option.equals("--duration"))
        && (value.equals("forever") || reasonable(option, NodeProcesses.nanos(value)))) {
      return true;
    }
    err.println(
        "kairos: error: "
            + option
            + " "
            + value
            + ": expected a time such as 2s, 1500ms or 10min, more than nothing and at most a year"
            + (option.equals("--duration") ? ", or forever" : ""));
    return false;
  }

  /** A run of more than nothing and at most a year; a peer wait of at most a year. */
  private static boolean reasonable(String option, long nanos) {
    return nanos <= LONGEST_RUN_NANOS && (nanos > 0 || option.equals("--peer-wait"));
  }

  @Option(
      names = "--system",
      paramLabel = "SYSTEM",
      description = "the system to run (default: the model's only system)")
  String systemName;

  @Option(
      names = "--nodes",
      split = ",",
      paramLabel = "NODE",
      description = "run only these nodes of the system, e.g. --nodes mission1,mission2")
  List<String> onlyNodes;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      defaultValue = "forever",
      description =
          "how long the nodes run, e.g. 2s, 1500ms, 10min (default: ${DEFAULT-VALUE}, until"
              + " Ctrl+C or SIGTERM, which stop every node at a clean point)")
  String duration;

  @Option(
      names = "--share-cpus",
      description =
          "where this host has fewer CPUs than the system has cores, let cores of different nodes"
              + " share a CPU, analysed together on it (the system as deployed)")
  boolean shareCpus;

  @Option(
      names = "--host-cpus",
      paramLabel = "LIST",
      description =
          "the host CPUs the nodes may use, e.g. 0-3 or 2,3 (default: every CPU this process may"
              + " use)")
  String hostCpuList;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "DIR",
      description =
          "the run's directory: generated code in DIR/src, the build in DIR/build, each node's"
              + " log and timings beside them (default: kairos-run/SYSTEM)")
  Path output;

  @Mixin NodeSourceOptions sources;

  @Option(
      names = "--dry-run",
      description =
          "check the system as deployed on this host and the kernel settings, print them, and stop:"
              + " nothing is generated, built or started")
  boolean dryRun;

  @Option(
      names = "--open-channels",
      description =
          "run the channels between the nodes without DDS Security (by default kairos run makes"
              + " the system's keys in DIR/keys, as kairos keys does, and each node runs with its"
              + " own: only the model's publishers publish, only its readers read)")
  boolean openChannels;

  @Option(
      names = "--peer-wait",
      paramLabel = "TIME",
      defaultValue = "5s",
      description = "how long each node waits for the nodes it calls (default: ${DEFAULT-VALUE})")
  String peerWait;

  /**
   * Makes the system's keys in DIR/keys where the nodes run need them: unless --open-channels, for
   * channels that cross DDS between them (each node then runs with its DDS Security configuration),
   * and for tcp: endpoints the model authenticates (each node then runs with {@code --keys}, and
   * proves by TLS which node it is). False, after saying why, when they cannot be made.
   */
  private boolean secure(
      SystemModel system, List<NodePlan> nodes, Path runDirectory, NodeProcesses processes)
      throws IOException {
    final List<dev.kairos.generator.emit.DdsSecurityDocuments.Grant> grants =
        SystemKeys.grants(system, nodes.stream().map(n -> n.node().name()).toList());
    final boolean channels = !openChannels && SystemKeys.channelsCross(grants);
    final boolean connections = system.nodes().stream().anyMatch(system::authenticates);
    if (!channels && !connections) {
      return true;
    }
    final Optional<String> libraries = SystemKeys.pluginDirectory(null);
    if (channels && libraries.isEmpty()) {
      err()
          .println(
              "kairos: error: the nodes' channels run under DDS Security, and Cyclone DDS's security"
                  + " plugins (libdds_security_auth.so) are not in "
                  + String.join(", ", SystemKeys.PLUGIN_DIRECTORIES)
                  + ": install them, or give --open-channels to run the channels unprotected;"
                  + " nothing run");
      return false;
    }
    final Path keys = runDirectory.resolve("keys");
    final Optional<SystemKeys.Made> made =
        madeKeys(
            system,
            systemName,
            grants,
            keys,
            30,
            libraries.orElse(""),
            node -> keys.toString(),
            channels
                ? ": the nodes' channels run under DDS Security (give --open-channels to run them"
                    + " unprotected); nothing run"
                : ": the nodes' tcp: connections are authenticated; nothing run");
    if (made.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, Path> node : made.get().configurations().entrySet()) {
      if (channels) {
        processes.environment(
            node.getKey(),
            "CYCLONEDDS_URI",
            SystemKeys.cycloneUri(System.getenv("CYCLONEDDS_URI"), node.getValue()));
      }
      if (connections) {
        processes.options(node.getKey(), List.of("--keys", keys.toString()));
      }
    }
    if (channels) {
      out()
          .println(
              "channels: DDS Security, the keys in "
                  + keys
                  + " (each node publishes and reads only what the model says)");
    }
    if (connections) {
      out()
          .println(
              "connections: TLS 1.3 on tcp:, each node proving its name with its key in " + keys);
    }
    return true;
  }

  @Override
  public Integer call() throws IOException {
    for (String[] option : new String[][] {{"--duration", duration}, {"--peer-wait", peerWait}}) {
      if (!timeHolds(option[0], option[1], err())) {
        return USAGE;
      }
    }
    final List<Integer> hostCpus;
    try {
      hostCpus = hostCpuList != null ? HostCpus.parse(hostCpuList) : HostCpus.available();
    } catch (IllegalArgumentException e) {
      err().println("kairos: error: --host-cpus " + hostCpuList + ": " + e.getMessage());
      return USAGE;
    }
    final int[] exit = {OK};
    final Optional<SystemChoice.Chosen> chosen =
        chosenSystem(systemName, onlyNodes, "nothing run", exit);
    if (chosen.isEmpty()) {
      return exit[0];
    }
    final SystemModel system = chosen.get().system();
    final TimingPlan plan = chosen.get().plan();
    final List<NodePlan> nodes = chosen.get().nodes();
    for (NodePlan node : nodes) {
      if (node.node().os() != Platform.OperatingSystem.LINUX) {
        err()
            .println(
                "kairos: error: node "
                    + node.node().name()
                    + " is os sim: kairos run starts Linux nodes; the nodes of an os sim system run"
                    + " in one simulated process, the executable kairos generate builds for it");
        return USAGE;
      }
    }
    final Optional<DeployedAnalysis.AsDeployed> deployment = deploy(system, plan, nodes, hostCpus);
    if (deployment.isEmpty()) {
      return MODEL_ERRORS;
    }
    if (!kernelHolds(nodes, deployment.get(), hostCpus)) {
      return MODEL_ERRORS;
    }
    if (dryRun) {
      out().println("dry run: nothing built or started");
      return OK;
    }
    final Path runDirectory =
        (output != null ? output : Path.of("kairos-run", SystemChoice.name(system, systemName)))
            .toAbsolutePath()
            .normalize();
    final NodeBuild build = new NodeBuild(runDirectory, out(), err());
    if (!build.generate(files, sources.impl, sources.clangFormat) || !build.build(nodes)) {
      return MODEL_ERRORS;
    }
    final NodeProcesses processes =
        new NodeProcesses(runDirectory, build.binaries(), duration, peerWait, out(), err());
    if (!secure(system, nodes, runDirectory, processes)) {
      return MODEL_ERRORS;
    }
    final Optional<StolenTime> before = StolenTime.now();
    final NodeProcesses.Outcome outcome =
        processes.run(cpuArguments(deployment.get(), hostCpus::get));
    final Optional<StolenTime> after = StolenTime.now();
    return RunReport.conclude(
        new RunReport.Run(runDirectory, files, system, plan, nodes, deployment.get(), outcome),
        "nodes that run longer than a minute print no activation lines to draw",
        rows -> {
          if (before.isEmpty()
              || after.isEmpty()
              || !before.get().source().equals(after.get().source())) {
            return "";
          }
          final Map<Integer, Long> lost = after.get().since(before.get());
          final Map<Integer, Long> lostByDeployedCpu = new java.util.HashMap<>();
          for (DeployedAnalysis.HostCpu cpu : deployment.get().cpus()) {
            lostByDeployedCpu.put(cpu.cpu(), lost.getOrDefault(hostCpus.get(cpu.cpu()), 0L));
          }
          return RunTable.stallText(
              rows, lostByDeployedCpu, cpu -> "CPU " + hostCpus.get(cpu), after.get().source());
        },
        out(),
        err());
  }

  /**
   * Every core on a host CPU, analysed as deployed; empty after saying why the system cannot run so
   * on this host (too few CPUs, or not schedulable with the cores that share one).
   */
  private Optional<DeployedAnalysis.AsDeployed> deploy(
      SystemModel system, TimingPlan plan, List<NodePlan> nodes, List<Integer> hostCpus) {
    final Optional<Map<DeployedAnalysis.NodeCore, Integer>> placed =
        placeOnCpus(system, plan, nodes, hostCpus, shareCpus, "this host", "nothing run", err());
    if (placed.isEmpty()) {
      return Optional.empty();
    }
    final DeployedAnalysis.AsDeployed deployment =
        DeployedAnalysis.analyse(system, plan, placed.get());
    out().print(RunTable.deploymentText(deployment, hostCpus));
    out().flush();
    if (!deployment.schedulable()) {
      err()
          .println(
              "kairos: error: the system is not schedulable as deployed on "
                  + hostCpus.size()
                  + " CPU"
                  + (hostCpus.size() == 1 ? "" : "s")
                  + " (above); nothing run");
      return Optional.empty();
    }
    return Optional.of(deployment);
  }

  /**
   * Where each core of {@code nodes} runs among the {@code cpus} of one host or machine ({@code
   * where}), as {@link DeployedAnalysis#placeSchedulable} places them; empty after saying why not:
   * more cores than CPUs without {@code shareCpus}, or a node with more cores than CPUs. CPU
   * numbers in the placement are indexes into {@code cpus}.
   */
  static Optional<Map<DeployedAnalysis.NodeCore, Integer>> placeOnCpus(
      SystemModel system,
      TimingPlan plan,
      List<NodePlan> nodes,
      List<Integer> cpus,
      boolean shareCpus,
      String where,
      String nothing,
      java.io.PrintWriter err) {
    final String cpuCount = cpus.size() + " CPU" + (cpus.size() == 1 ? "" : "s");
    final int cores = nodes.stream().mapToInt(n -> n.node().hardware().cores()).sum();
    if (cores > cpus.size() && !shareCpus) {
      err.println(
          "kairos: error: the nodes on "
              + where
              + " have "
              + cores
              + " cores and it gives them "
              + cpuCount
              + " ("
              + HostCpus.describe(cpus)
              + "): each core needs a CPU of its own, as kairos check assumed; give --share-cpus"
              + " to let cores of different nodes share a CPU, analysed together on it; "
              + nothing);
      return Optional.empty();
    }
    final Optional<Map<DeployedAnalysis.NodeCore, Integer>> placed =
        DeployedAnalysis.placeSchedulable(system, plan, nodes, cpus.size());
    if (placed.isEmpty()) {
      final NodePlan widest =
          nodes.stream()
              .max(java.util.Comparator.comparingInt(n -> n.node().hardware().cores()))
              .orElseThrow();
      err.println(
          "kairos: error: node "
              + widest.node().name()
              + " has "
              + widest.node().hardware().cores()
              + " cores and "
              + where
              + " gives it "
              + cpuCount
              + ": two cores of one node never share a CPU; "
              + nothing);
    }
    return placed;
  }

  /**
   * The kernel settings the run relies on, printed one a line; false after saying that one breaks
   * what the analysis assumes.
   */
  private boolean kernelHolds(
      List<NodePlan> nodes, DeployedAnalysis.AsDeployed deployment, List<Integer> hostCpus) {
    final List<KernelSettings.Finding> findings =
        new KernelSettings(Path.of("/"))
            .check(
                KernelSettings.Needs.of(
                    deployment.cpus(), hostCpus::get, nodes, HostCpus.available().size()));
    findings.forEach(f -> out().println(f.line()));
    warnIdealProcessors(nodes, out());
    out().flush();
    if (findings.stream().anyMatch(f -> f.level() == KernelSettings.Level.ERROR)) {
      err()
          .println(
              "kairos: error: a kernel setting above breaks what the analysis assumes; nothing"
                  + " run");
      return false;
    }
    return true;
  }

  /**
   * Says, for each hardware of {@code nodes} that names no platform file, that its bounds assume an
   * ideal processor.
   */
  static void warnIdealProcessors(List<NodePlan> nodes, java.io.PrintWriter out) {
    // What the analysis knows of this machine: without a platform file, nothing.
    nodes.stream()
        .filter(n -> dev.kairos.timing.PlatformOverheads.measured(n.node()).isEmpty())
        .map(n -> n.node().hardware().name())
        .distinct()
        .forEach(
            hardware ->
                out.println(
                    "platform: warning: hardware "
                        + hardware
                        + " names no platform file: the bounds assume an ideal processor (no"
                        + " release lateness, no overheads), and a start window shorter than"
                        + " this machine's release lateness can be missed; measure it with"
                        + " kairos probe and name the file in the hardware (docs/cli.md#probe)"));
  }

  /**
   * Each node's options for where it runs: --cpu for one core, --cpus with a CPU per core
   * otherwise, and --band-map with the host band of each of its bands on a shared CPU.
   */
  static Map<String, List<String>> cpuArguments(
      DeployedAnalysis.AsDeployed deployment, java.util.function.IntUnaryOperator hostCpu) {
    final Map<String, java.util.TreeMap<Integer, Integer>> byNode = new LinkedHashMap<>();
    for (DeployedAnalysis.HostCpu cpu : deployment.cpus()) {
      for (DeployedAnalysis.NodeCore core : cpu.cores()) {
        byNode
            .computeIfAbsent(core.node(), n -> new java.util.TreeMap<>())
            .put(core.core(), hostCpu.applyAsInt(cpu.cpu()));
      }
    }
    final Map<String, List<String>> arguments = new LinkedHashMap<>();
    byNode.forEach(
        (node, cores) -> {
          final List<String> options = new ArrayList<>();
          if (cores.size() == 1) {
            options.addAll(List.of("--cpu", Integer.toString(cores.firstEntry().getValue())));
          } else {
            options.addAll(
                List.of(
                    "--cpus",
                    String.join(",", cores.values().stream().map(String::valueOf).toList())));
          }
          final List<String> bands =
              deployment.hostBands().stream()
                  .filter(b -> b.node().equals(node))
                  .map(b -> b.core() + ":" + b.band() + "=" + b.hostBand())
                  .toList();
          if (!bands.isEmpty()) {
            options.addAll(List.of("--band-map", String.join(",", bands)));
          }
          arguments.put(node, options);
        });
    return arguments;
  }

  /** A path as output shows it: relative to the working directory where it lies below it. */
  static String shownPath(Path path) {
    final Path workingDirectory = Path.of("").toAbsolutePath();
    return path.startsWith(workingDirectory)
        ? workingDirectory.relativize(path).toString()
        : path.toString();
  }
}
