package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;
import static dev.kairos.cli.KairosCli.USAGE;

import dev.kairos.generator.emit.DdsSecurityDocuments;
import dev.kairos.ir.Platform;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.RunTable;
import dev.kairos.timing.DeployedAnalysis;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * `kairos deploy`: the system on the hosts its model names, as an Ansible inventory and playbooks
 * with a systemd unit per node ({@link DeployBundle}); with --apply, run: the hosts' kernel
 * settings checked, the nodes installed and started at one epoch, and what they measured collected
 * into one table, as `kairos run` prints for one host. The hosts that share a machine share its
 * CPUs and are analysed together on them ({@link DeployedAnalysis}).
 */
@Command(
    name = "deploy",
    mixinStandardHelpOptions = true,
    description =
        "Writes the system's deployment onto the hosts its nodes name (systemd units, an Ansible"
            + " inventory and playbooks), checked as deployed; with --apply, installs, starts and"
            + " collects it, and prints every method's and gate's measured maximum beside its"
            + " bound.")
final class DeployCommand extends ModelCommand {
  /** From starting the nodes to their epoch: an SSH round or two per host, then set-up. */
  static final long START_LEAD_SECONDS = 10;

  /** What every node waits for its peers at most, as kairos run's default. */
  private static final String PEER_WAIT = "10s";

  /** A path Ansible, systemd and a shell all take as one word. */
  private static final Pattern PLAIN_PATH = Pattern.compile("/[A-Za-z0-9._/-]*");

  @Option(
      names = {"-i", "--inventory"},
      required = true,
      paramLabel = "FILE",
      description =
          "the Ansible inventory that says how to reach each host the model's nodes name (host"
              + " vars kairos_cpus, kairos_machine, kairos_root: docs/deploy.md)")
  Path inventoryFile;

  @Option(
      names = "--system",
      paramLabel = "SYSTEM",
      description = "the system to deploy (default: the model's only system)")
  String systemName;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      defaultValue = "forever",
      description =
          "how long the nodes run, e.g. 10s or 480min (default: ${DEFAULT-VALUE}: until"
              + " stop.yml, or"
              + " with --apply until Ctrl+C or SIGTERM)")
  String duration;

  @Option(
      names = "--share-cpus",
      description =
          "where a machine has fewer CPUs than the cores of its nodes, let cores of different"
              + " nodes share a CPU, analysed together on it")
  boolean shareCpus;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "DIR",
      description =
          "the deployment's directory: the playbooks, the inventory, the units, the executables,"
              + " and after a run its ansible.log and each node's log and timings in DIR/run"
              + " (default: kairos-deploy/SYSTEM)")
  Path output;

  @Mixin NodeSourceOptions sources;

  @Option(
      names = "--open-channels",
      description =
          "deploy the channels between the nodes without DDS Security (by default the system's"
              + " keys are made in DIR/keys, as kairos keys does, and each node runs with its own)")
  boolean openChannels;

  @Option(
      names = "--apply",
      description =
          "run the deployment with ansible-playbook: check each host's kernel settings, install"
              + " and start the nodes, and (after --duration, or Ctrl+C) stop them, collect what"
              + " they measured and print the table")
  boolean apply;

  @Override
  public Integer call() throws IOException {
    if (!RunCommand.timeHolds("--duration", duration, err())) {
      return USAGE;
    }
    final Inventory inventory;
    try {
      inventory = Inventory.read(inventoryFile);
    } catch (Inventory.Unreadable e) {
      err().println("kairos: error: --inventory " + inventoryFile + ": " + e.getMessage());
      return USAGE;
    }
    final int[] exit = {OK};
    final Optional<SystemChoice.Chosen> chosen =
        chosenSystem(systemName, null, "nothing deployed", exit);
    if (chosen.isEmpty()) {
      return exit[0];
    }
    final SystemModel system = chosen.get().system();
    final TimingPlan plan = chosen.get().plan();
    final List<NodePlan> nodes = chosen.get().nodes();
    final Optional<Hosts> hosts = hosts(system, nodes, inventory);
    if (hosts.isEmpty()) {
      return MODEL_ERRORS;
    }
    final Optional<DeployedAnalysis.AsDeployed> deployment =
        deploymentOnMachines(system, plan, nodes, hosts.get());
    if (deployment.isEmpty()) {
      return MODEL_ERRORS;
    }
    RunCommand.warnIdealProcessors(nodes, out());
    final String name = SystemChoice.name(system, systemName);
    final Path directory =
        (output != null ? output : Path.of("kairos-deploy", name)).toAbsolutePath().normalize();
    final NodeBuild build = new NodeBuild(directory, out(), err());
    if (!build.generate(files, sources.impl, sources.clangFormat) || !build.build(nodes)) {
      return MODEL_ERRORS;
    }
    final List<DdsSecurityDocuments.Grant> grants =
        SystemKeys.grants(system, nodes.stream().map(n -> n.node().name()).toList());
    final boolean secure = !openChannels && SystemKeys.channelsCross(grants);
    final boolean authenticated = system.nodes().stream().anyMatch(system::authenticates);
    final DeployBundle.Deployment bundle =
        bundle(
            name,
            nodes,
            hosts.get(),
            deployment.get(),
            stopWaves(system, nodes),
            secure
                ? grants.stream().map(g -> g.node().name()).collect(Collectors.toSet())
                : java.util.Set.of(),
            authenticated
                ? grants.stream().map(g -> g.node().name()).collect(Collectors.toSet())
                : java.util.Set.of());
    write(directory, bundle, build.binaries());
    if ((secure || authenticated) && !writeKeys(directory, system, grants, bundle)) {
      return MODEL_ERRORS;
    }
    final String playbookCommand =
        "ansible-playbook -i "
            + inventoryFile
            + " -i "
            + RunCommand.shownPath(directory.resolve("inventory.yml"));
    out()
        .println(
            "deploy: wrote "
                + RunCommand.shownPath(directory)
                + ": inventory.yml, the playbooks, a systemd unit and the executable of each node");
    if (!apply) {
      out()
          .println(
              "deploy: check the hosts' kernel settings: "
                  + playbookCommand
                  + " "
                  + RunCommand.shownPath(directory.resolve("kernel.yml")));
      out()
          .println(
              "deploy: install and start: "
                  + playbookCommand
                  + " "
                  + RunCommand.shownPath(directory.resolve("site.yml")));
      out()
          .println(
              "deploy: stop and collect: "
                  + playbookCommand
                  + " "
                  + RunCommand.shownPath(directory.resolve("stop.yml")));
      out().flush();
      return OK;
    }
    out().flush();
    boolean clean;
    try (AnsibleRun ansible = new AnsibleRun(directory, inventoryFile, out(), err())) {
      if (!ansible.play("kernel.yml", "reading each host's kernel settings")
          || !kernelHolds(directory, bundle, hosts.get(), deployment.get(), nodes)) {
        return MODEL_ERRORS;
      }
      final boolean forever = bundle.durationNanos() == 0;
      clean =
          ansible.play(
              "site.yml",
              forever
                  ? "installing and starting the nodes"
                  : "installing the nodes, running them for " + duration + ", collecting");
      if (clean && forever && !ansible.stopAsked()) {
        out().println("deploy: the nodes run until Ctrl+C or SIGTERM");
        out().flush();
        ansible.awaitStop();
      }
      if (forever || !clean || ansible.stopAsked()) {
        // Stopped by the user, a run ends as cleanly as stop.yml ends it.
        clean =
            (clean || ansible.stopAsked())
                & ansible.play("stop.yml", "stopping the nodes and collecting");
      }
    }
    final NodeProcesses.Outcome outcome =
        NodeProcesses.collect(
            directory.resolve("run"),
            nodes.stream().map(n -> n.node().name()).toList(),
            clean,
            err());
    return RunReport.conclude(
        new RunReport.Run(
            directory.resolve("run"), files, system, plan, nodes, deployment.get(), outcome),
        "deployed nodes print no activation lines, so that a log never grows without end",
        rows -> "",
        out(),
        err());
  }

  /** The hosts of the deployment, by machine, with each machine's CPUs. */
  record Hosts(
      Map<String, Inventory.Host> hostOf,
      Map<String, List<String>> hostsOfMachine,
      Map<String, List<Integer>> cpusOfMachine) {
    String machineOf(String node) {
      return hostOf.get(node).machine();
    }
  }

  /**
   * Each node's host from the model, found in the inventory, and each machine's CPUs; empty after
   * saying what is missing or cannot work (a call to another host through a local endpoint).
   */
  private Optional<Hosts> hosts(SystemModel system, List<NodePlan> nodes, Inventory inventory) {
    final Map<String, Inventory.Host> hostOf = new LinkedHashMap<>();
    boolean fine = true;
    for (NodePlan plan : nodes) {
      final Platform.Node node = plan.node();
      if (node.os() != Platform.OperatingSystem.LINUX) {
        err()
            .println(
                "kairos: error: node "
                    + node.name()
                    + " is os sim: kairos deploy installs"
                    + " Linux nodes");
        fine = false;
        continue;
      }
      if (node.host().isEmpty()) {
        err()
            .println(
                location(node)
                    + ": error: node "
                    + node.name()
                    + " names no host: add"
                    + " host \"NAME\" (a host of "
                    + inventoryFile
                    + ") to it");
        fine = false;
        continue;
      }
      final Optional<Inventory.Host> host = inventory.host(node.host());
      if (host.isEmpty()) {
        err()
            .println(
                location(node)
                    + ": error: node "
                    + node.name()
                    + " runs on host "
                    + node.host()
                    + ", which "
                    + inventoryFile
                    + " does not list (its hosts: "
                    + (inventory.names().isEmpty() ? "none" : String.join(", ", inventory.names()))
                    + ")");
        fine = false;
        continue;
      }
      if (!PLAIN_PATH.matcher(host.get().root()).matches()) {
        err()
            .println(
                "kairos: error: host "
                    + node.host()
                    + ": kairos_root "
                    + host.get().root()
                    + " has characters other than letters, digits and . _ - /");
        fine = false;
        continue;
      }
      hostOf.put(node.name(), host.get());
    }
    if (!fine) {
      return Optional.empty();
    }
    fine = endpointsReachable(system, nodes, hostOf);
    final Map<String, List<String>> hostsOfMachine = new LinkedHashMap<>();
    final Map<String, Integer> coresOfMachine = new LinkedHashMap<>();
    for (NodePlan plan : nodes) {
      final Inventory.Host host = hostOf.get(plan.node().name());
      final List<String> machineHosts =
          hostsOfMachine.computeIfAbsent(host.machine(), m -> new ArrayList<>());
      if (!machineHosts.contains(host.name())) {
        machineHosts.add(host.name());
      }
      coresOfMachine.merge(host.machine(), plan.node().hardware().cores(), Integer::sum);
    }
    final Map<String, List<Integer>> cpusOfMachine = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> machine : hostsOfMachine.entrySet()) {
      Optional<String> given = Optional.empty();
      for (String hostName : machine.getValue()) {
        final Optional<String> cpus = inventory.host(hostName).orElseThrow().cpus();
        if (cpus.isPresent() && given.isPresent() && !cpus.equals(given)) {
          err()
              .println(
                  "kairos: error: hosts "
                      + String.join(", ", machine.getValue())
                      + " share machine "
                      + machine.getKey()
                      + " but give it different kairos_cpus ("
                      + given.get()
                      + ", "
                      + cpus.get()
                      + ")");
          fine = false;
        }
        given = given.or(() -> cpus);
      }
      try {
        cpusOfMachine.put(
            machine.getKey(),
            given.isPresent()
                ? HostCpus.parse(given.get())
                : java.util.stream.IntStream.range(0, coresOfMachine.get(machine.getKey()))
                    .boxed()
                    .toList());
      } catch (IllegalArgumentException e) {
        err()
            .println(
                "kairos: error: machine "
                    + machine.getKey()
                    + ": kairos_cpus "
                    + given.get()
                    + ": "
                    + e.getMessage());
        fine = false;
      }
    }
    return fine ? Optional.of(new Hosts(hostOf, hostsOfMachine, cpusOfMachine)) : Optional.empty();
  }

  /** A call through a gate of {@code caller} on node {@code from} to node {@code to}. */
  record Call(
      Platform.Node from,
      Platform.Deployment caller,
      dev.kairos.ir.Tmos.Gate gate,
      Platform.Node to) {}

  /** Every call from one of {@code nodes} to another of them, in the model's order. */
  static List<Call> calls(SystemModel system, List<NodePlan> nodes) {
    final java.util.Set<String> names = new java.util.HashSet<>();
    nodes.forEach(n -> names.add(n.node().name()));
    final List<Call> calls = new ArrayList<>();
    for (NodePlan plan : nodes) {
      for (Platform.Deployment caller : plan.node().deployments()) {
        for (dev.kairos.ir.Tmos.Gate gate : caller.tmo().gates()) {
          system
              .callee(gate)
              .map(SystemModel.Callee::node)
              .filter(to -> names.contains(to.name()) && !to.name().equals(plan.node().name()))
              .ifPresent(to -> calls.add(new Call(plan.node(), caller, gate, to)));
        }
      }
    }
    return calls;
  }

  /**
   * Whether every call can reach its callee from the caller's host: a Unix socket, shared memory, a
   * loopback address or the wildcard 0.0.0.0 is reached only from the same machine.
   */
  private boolean endpointsReachable(
      SystemModel system, List<NodePlan> nodes, Map<String, Inventory.Host> hostOf) {
    boolean fine = true;
    for (Call call : calls(system, nodes)) {
      final String endpoint = call.to().endpoint() == null ? "" : call.to().endpoint();
      final String from = hostOf.get(call.from().name()).machine();
      final String to = hostOf.get(call.to().name()).machine();
      final boolean local =
          endpoint.startsWith("uds:")
              || endpoint.startsWith("shm:")
              || endpoint.matches(
                  "(tcp|udp):(127\\.[0-9.]+|localhost|0\\.0\\.0\\.0|\\[?::1?\\]?):[0-9]+");
      if (local && !from.equals(to)) {
        err()
            .println(
                location(call.to())
                    + ": error: node "
                    + call.to().name()
                    + " listens on "
                    + endpoint
                    + ", which "
                    + call.caller().instance()
                    + "."
                    + call.gate().name()
                    + " on machine "
                    + from
                    + " cannot reach on machine "
                    + to
                    + ": give it a tcp: or udp: endpoint on its host's address (0.0.0.0 names"
                    + " no host a caller can reach)");
        fine = false;
      }
    }
    return fine;
  }

  /**
   * Every core on a CPU of its machine (each machine's cores placed as kairos run places them on
   * one host), analysed as deployed across the machines; empty after saying why it cannot run so.
   * The deployment numbers CPUs across machines: machine by machine, each machine's CPUs in order.
   */
  private Optional<DeployedAnalysis.AsDeployed> deploymentOnMachines(
      SystemModel system, TimingPlan plan, List<NodePlan> nodes, Hosts hosts) {
    final Map<DeployedAnalysis.NodeCore, Integer> cpuOf = new LinkedHashMap<>();
    cpuNames.clear();
    cpuNumbers.clear();
    for (Map.Entry<String, List<Integer>> machine : hosts.cpusOfMachine().entrySet()) {
      final List<NodePlan> here =
          nodes.stream()
              .filter(n -> hosts.machineOf(n.node().name()).equals(machine.getKey()))
              .toList();
      final List<Integer> cpus = machine.getValue();
      final String where = machineName(machine.getKey(), hosts);
      final Optional<Map<DeployedAnalysis.NodeCore, Integer>> placed =
          RunCommand.placeOnCpus(
              system, plan, here, cpus, shareCpus, where, "nothing deployed", err());
      if (placed.isEmpty()) {
        return Optional.empty();
      }
      final int offset = cpuNumbers.size();
      placed.get().forEach((core, cpu) -> cpuOf.put(core, offset + cpu));
      for (int cpu : cpus) {
        cpuNames.add(where + " CPU " + cpu);
        cpuNumbers.add(cpu);
      }
    }
    final DeployedAnalysis.AsDeployed deployment = DeployedAnalysis.analyse(system, plan, cpuOf);
    out().print(RunTable.deploymentText(deployment, cpuNames::get));
    out().flush();
    if (!deployment.schedulable()) {
      err()
          .println(
              "kairos: error: the system is not schedulable as deployed (above); nothing"
                  + " deployed");
      return Optional.empty();
    }
    return Optional.of(deployment);
  }

  /** The name of each CPU of the deployment ("alpha CPU 1"), and its number on its machine. */
  private final List<String> cpuNames = new ArrayList<>();

  private final List<Integer> cpuNumbers = new ArrayList<>();

  /** A machine as the output names it: its host, or its name and its hosts where it has several. */
  private static String machineName(String machine, Hosts hosts) {
    final List<String> on = hosts.hostsOfMachine().get(machine);
    return on.size() == 1 && on.get(0).equals(machine)
        ? on.get(0)
        : "machine " + machine + " (" + String.join(", ", on) + ")";
  }

  /**
   * Each node's stop wave: 0 for a node no other node of the system calls, and one more than its
   * latest caller's for the others, so that a node stops after every node that calls it and no call
   * finds its callee gone. Nodes that call each other in a cycle share the wave its first member
   * reaches (at most the number of nodes): they stop together.
   */
  static Map<String, Integer> stopWaves(SystemModel system, List<NodePlan> nodes) {
    final Map<String, java.util.Set<String>> callersOf = new LinkedHashMap<>();
    for (Call call : calls(system, nodes)) {
      callersOf
          .computeIfAbsent(call.to().name(), c -> new java.util.TreeSet<>())
          .add(call.from().name());
    }
    final Map<String, Integer> wave = new LinkedHashMap<>();
    nodes.forEach(n -> wave.put(n.node().name(), 0));
    // Longest chain of callers above each node, capped where a cycle would grow it forever.
    for (int round = 0; round < nodes.size(); round++) {
      boolean changed = false;
      for (Map.Entry<String, java.util.Set<String>> callee : callersOf.entrySet()) {
        for (String caller : callee.getValue()) {
          final int after = Math.min(wave.get(caller) + 1, nodes.size());
          if (after > wave.get(callee.getKey())) {
            wave.put(callee.getKey(), after);
            changed = true;
          }
        }
      }
      if (!changed) {
        break;
      }
    }
    return wave;
  }

  /**
   * The system's hyperperiod: the least common multiple of its time-triggered periods; 0 where it
   * has none, or one beyond 64 bits of nanoseconds (a restarted node then begins at once).
   */
  private static long hyperperiodNanos(List<NodePlan> nodes) {
    final dev.kairos.timing.ReleaseGrid grid =
        dev.kairos.timing.ReleaseGrid.of(
            nodes.stream()
                .flatMap(n -> n.tasks().stream())
                .filter(t -> t.kind() == TaskReport.Kind.SPM && t.periodNs() > 0)
                .mapToLong(TaskReport::periodNs));
    return grid.size() == dev.kairos.timing.ReleaseGrid.Size.NONE || grid.beyond64Bits()
        ? 0
        : grid.hyperperiodNs();
  }

  /** The deployment's files, as data: each node's unit, home, CPUs and command line. */
  private DeployBundle.Deployment bundle(
      String name,
      List<NodePlan> nodes,
      Hosts hosts,
      DeployedAnalysis.AsDeployed deployment,
      Map<String, Integer> stopWaves,
      java.util.Set<String> secured,
      java.util.Set<String> authenticated) {
    final Map<String, List<String>> cpuArguments =
        RunCommand.cpuArguments(deployment, cpuNumbers::get);
    final Map<String, java.util.TreeSet<Integer>> cpusOfNode = new LinkedHashMap<>();
    for (DeployedAnalysis.HostCpu cpu : deployment.cpus()) {
      for (DeployedAnalysis.NodeCore core : cpu.cores()) {
        cpusOfNode
            .computeIfAbsent(core.node(), n -> new java.util.TreeSet<>())
            .add(cpuNumbers.get(cpu.cpu()));
      }
    }
    final long hyperperiod = hyperperiodNanos(nodes);
    final long durationNanos = duration.equals("forever") ? 0 : NodeProcesses.nanos(duration);
    final List<DeployBundle.NodeUnit> units = new ArrayList<>();
    final Map<String, List<String>> sysctlOf = new LinkedHashMap<>();
    final Map<String, List<Integer>> cpusOfHost = new LinkedHashMap<>();
    for (NodePlan plan : nodes) {
      final Platform.Node node = plan.node();
      final Inventory.Host host = hosts.hostOf().get(node.name());
      final String home = host.root() + "/" + name + "/" + node.name();
      final List<String> command = new ArrayList<>(List.of(home + "/bin/" + node.name()));
      command.addAll(cpuArguments.getOrDefault(node.name(), List.of()));
      command.addAll(
          List.of(
              "--duration",
              duration,
              "--peer-wait",
              PEER_WAIT,
              "--start-at",
              "${KAIROS_START_AT}"));
      if (hyperperiod > 0) {
        command.addAll(List.of("--rejoin-every", hyperperiod + "ns"));
      }
      command.addAll(
          List.of("--quiet", "--timings", DeployBundle.NodeUnit.timingsOf(home, node.name())));
      if (authenticated.contains(node.name())) {
        command.addAll(List.of("--keys", home + "/keys"));
      }
      host.account()
          .socketGroup()
          .ifPresent(group -> command.addAll(List.of("--socket-group", group)));
      final String cpus =
          String.join(",", cpusOfNode.get(node.name()).stream().map(String::valueOf).toList());
      units.add(
          new DeployBundle.NodeUnit(
              node.name(),
              host.name(),
              DeployBundle.unitName(name, node.name()),
              home,
              cpus,
              command,
              Path.of(node.source().file()).getFileName() + ":" + node.source().line(),
              stopWaves.getOrDefault(node.name(), 0),
              secured.contains(node.name()),
              authenticated.contains(node.name()),
              host.account()));
      cpusOfHost.computeIfAbsent(host.name(), h -> new ArrayList<>());
      for (int cpu : cpusOfNode.get(node.name())) {
        if (!cpusOfHost.get(host.name()).contains(cpu)) {
          cpusOfHost.get(host.name()).add(cpu);
        }
      }
    }
    // Not knowing how many CPUs a host has until kernel.yml reads it, a deployment turns deadline
    // admission control off wherever a node schedules by deadline on fewer CPUs than some host
    // might have: with it on, the kernel would run that node's lanes on every CPU.
    for (Map.Entry<String, List<String>> machine : hosts.hostsOfMachine().entrySet()) {
      final List<String> fixes =
          KernelSettings.fixes(
              needsOf(machine.getKey(), hosts, nodes, deployment, Integer.MAX_VALUE));
      machine.getValue().forEach(h -> sysctlOf.put(h, fixes));
    }
    return new DeployBundle.Deployment(
        name,
        Path.of(files.get(0).toString()).getFileName().toString(),
        units,
        sysctlOf,
        cpusOfHost,
        durationNanos,
        START_LEAD_SECONDS);
  }

  /**
   * What a machine's nodes ask of its kernel ({@link KernelSettings.Needs#of}), the machine having
   * {@code onlineCpus} CPUs.
   */
  private KernelSettings.Needs needsOf(
      String machine,
      Hosts hosts,
      List<NodePlan> nodes,
      DeployedAnalysis.AsDeployed deployment,
      int onlineCpus) {
    return KernelSettings.Needs.of(
        deployment.cpus().stream()
            .filter(
                c ->
                    c.cores().stream()
                        .anyMatch(core -> hosts.machineOf(core.node()).equals(machine)))
            .toList(),
        cpuNumbers::get,
        nodes.stream().filter(n -> hosts.machineOf(n.node().name()).equals(machine)).toList(),
        onlineCpus);
  }

  /**
   * The system's keys, made in DIR/keys as kairos keys makes them, each node's Cyclone DDS
   * configuration naming its files where the playbook installs them (its home's keys/), and each
   * node's own set in DIR/keys/NODE. False after saying why they could not be made.
   */
  private boolean writeKeys(
      Path directory,
      SystemModel systemModel,
      List<DdsSecurityDocuments.Grant> grants,
      DeployBundle.Deployment bundle)
      throws IOException {
    // The plugins where they are on this machine: hosts of the same distribution have them there.
    final Optional<String> libraries = SystemKeys.pluginDirectory(null);
    if (libraries.isEmpty()) {
      SystemKeys.warnNoPlugins(err());
    }
    final Path keys = directory.resolve("keys");
    final Map<String, String> homes = new LinkedHashMap<>();
    bundle.nodes().forEach(unit -> homes.put(unit.node(), unit.home()));
    if (madeKeys(
            systemModel,
            systemName,
            grants,
            keys,
            365,
            libraries.orElse(""),
            node -> homes.get(node) + "/keys",
            ": the nodes need their keys (DDS Security for channels unless --open-channels, TLS"
                + " for the tcp: connections the model authenticates)")
        .isEmpty()) {
      return false;
    }
    for (DeployBundle.NodeUnit unit : bundle.nodes()) {
      if (!unit.hasKeys()) {
        continue;
      }
      final Path own = keys.resolve(unit.node());
      Files.createDirectories(own);
      for (String file : SystemKeys.filesOf(unit.node())) {
        Files.copy(keys.resolve(file), own.resolve(file), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    out()
        .println(
            "deploy: "
                + (bundle.nodes().stream().anyMatch(DeployBundle.NodeUnit::secureChannels)
                    ? "channels under DDS Security, "
                    : "")
                + (bundle.nodes().stream().anyMatch(DeployBundle.NodeUnit::authenticated)
                    ? "tcp: connections under TLS 1.3, "
                    : "")
                + "the system's keys in "
                + RunCommand.shownPath(keys)
                + ", each node's installed in its home's keys/");
    return true;
  }

  /** Writes the bundle's files and each node's executable into {@code directory}. */
  private static void write(
      Path directory, DeployBundle.Deployment bundle, Map<String, Path> binaries)
      throws IOException {
    for (Map.Entry<String, String> file : DeployBundle.files(bundle).entrySet()) {
      final Path path = directory.resolve(file.getKey());
      Files.createDirectories(path.getParent());
      Files.writeString(path, file.getValue(), StandardCharsets.UTF_8);
    }
    final Path bin = directory.resolve("bin");
    Files.createDirectories(bin);
    for (Map.Entry<String, Path> binary : binaries.entrySet()) {
      Files.copy(
          binary.getValue(),
          bin.resolve(binary.getKey()),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.COPY_ATTRIBUTES);
    }
    // What an earlier run collected, and the kernel settings it read, are not this run's.
    for (String earlier : List.of("run", "kernel")) {
      final Path tree = directory.resolve(earlier);
      if (Files.isDirectory(tree)) {
        try (var files = Files.walk(tree)) {
          for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.delete(file);
          }
        }
      }
    }
  }

  /**
   * Each host's kernel settings, as kernel.yml read them into DIR/kernel/HOST and as site.yml
   * leaves them (its sysctl settings applied), checked as kairos run checks its own host's; false
   * after saying that one breaks what the analysis assumes.
   */
  private boolean kernelHolds(
      Path directory,
      DeployBundle.Deployment bundle,
      Hosts hosts,
      DeployedAnalysis.AsDeployed deployment,
      List<NodePlan> nodes)
      throws IOException {
    boolean fine = true;
    for (Map.Entry<String, List<String>> machine : hosts.hostsOfMachine().entrySet()) {
      for (String host : machine.getValue()) {
        final Path tree = directory.resolve("kernel").resolve(host);
        if (!Files.isDirectory(tree)) {
          err().println("kairos: error: host " + host + ": kernel.yml read none of its settings");
          fine = false;
          continue;
        }
        for (String fix : bundle.sysctlOf().getOrDefault(host, List.of())) {
          final String[] setting = fix.split("=", 2);
          final Path file = tree.resolve("proc/sys/" + setting[0].replace('.', '/'));
          Files.createDirectories(file.getParent());
          Files.writeString(file, setting[1] + "\n");
          out().println("kernel: " + host + ": set: " + fix + " (site.yml sets it)");
        }
        final int online =
            readText(tree.resolve("sys/devices/system/cpu/online"))
                .map(
                    text -> {
                      try {
                        return HostCpus.parse(text.strip()).size();
                      } catch (IllegalArgumentException e) {
                        return Integer.MAX_VALUE;
                      }
                    })
                .orElse(Integer.MAX_VALUE);
        final List<KernelSettings.Finding> findings =
            new KernelSettings(tree)
                .check(needsOf(machine.getKey(), hosts, nodes, deployment, online));
        findings.forEach(f -> out().println(f.lineOn(host)));
        fine &= findings.stream().noneMatch(f -> f.level() == KernelSettings.Level.ERROR);
      }
    }
    out().flush();
    if (!fine) {
      err()
          .println(
              "kairos: error: a kernel setting above breaks what the analysis assumes;"
                  + " nothing installed");
    }
    return fine;
  }

  private static Optional<String> readText(Path file) {
    try {
      return Optional.of(Files.readString(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String location(Platform.Node node) {
    return node.source().file() + ":" + node.source().line();
  }
}
