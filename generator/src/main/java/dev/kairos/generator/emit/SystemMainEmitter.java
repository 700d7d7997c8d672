package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.DistributedSystem;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.OperatingSystem;
import dev.kairos.ir.SystemModel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code <System>.system.cpp}: a system whose nodes all run on sim, as one executable. Every node's
 * program ({@link NodeProgramEmitter}) runs in the one process, on virtual processors of its own,
 * and the nodes call each other over the simulated network, set up from the model's {@code network}
 * blocks: the whole distributed system in one virtual time, the same on every run.
 */
final class SystemMainEmitter {
  private SystemMainEmitter() {}

  /** The systems that get a program of their own: those whose nodes all run on sim. */
  static List<DistributedSystem> inOneProcess(SystemModel system) {
    final List<DistributedSystem> systems = new ArrayList<>();
    for (DistributedSystem candidate : system.systems()) {
      final List<Node> nodes = nodesOf(system, candidate);
      if (!nodes.isEmpty()
          && nodes.size() == candidate.nodes().size()
          && nodes.stream().allMatch(n -> n.os() == OperatingSystem.SIM)) {
        systems.add(candidate);
      }
    }
    return systems;
  }

  /** The nodes of a system, in the order the system lists them. */
  static List<Node> nodesOf(SystemModel system, DistributedSystem distributed) {
    final List<Node> nodes = new ArrayList<>();
    for (String name : distributed.nodes()) {
      system.nodes().stream().filter(n -> n.name().equals(name)).findFirst().ifPresent(nodes::add);
    }
    return nodes;
  }

  static GeneratedFile emit(SystemModel system, DistributedSystem distributed) {
    final String fileName = FileLayout.systemMain(distributed);
    final List<Node> nodes = nodesOf(system, distributed);
    final Set<String> modelFiles = new LinkedHashSet<>();
    modelFiles.add(distributed.source().file());
    nodes.forEach(n -> modelFiles.add(n.source().file()));
    final Map<Node, Network> links = linksOf(system, nodes);
    final Map<Network, String> constants = linkConstants(links.values());
    final Set<Network> networks = constants.keySet();
    networks.forEach(n -> modelFiles.add(n.source().file()));

    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName, modelFiles));
    w.line("#include <array>").blank();
    w.line("#include <kairos/kal/error.hpp>");
    w.line("#include <kairos/kal/sim_network.hpp>");
    w.line("#include <kairos/system.hpp>").blank();
    for (Node node : nodes) {
      w.line("#include \"$header$\"", "header", FileLayout.nodeProgramHeader(node));
    }
    w.blank();
    w.line("namespace {").blank();
    w.line("constexpr const char* kSystem = $name$;", "name", CppNames.literal(distributed.name()))
        .blank();
    w.line(Banner.origin(distributed.source()));
    w.comment(
        "The nodes of system $system$, in its order: each runs on virtual processors of its own,"
            + " after those of the nodes before it.",
        "system",
        distributed.name());
    final List<String> programs = new ArrayList<>();
    for (Node node : nodes) {
      programs.add("&" + ScheduleEmitter.namespace(node) + "::kProgram");
    }
    w.parenthesized(
        "constexpr ::std::array<const ::kairos::NodeProgram*, " + nodes.size() + "> kNodes{",
        programs,
        "};");
    if (!links.isEmpty()) {
      w.blank();
      for (Network network : networks) {
        w.line(Banner.origin(network.source()));
        w.comment(
            "network $name$: $link$", "name", network.name(), "link", Describe.network(network));
        w.line(
            "constexpr ::kairos::kal::sim::LinkModel $constant${.latency ="
                + " ::kairos::kal::Duration{$latency$}, .jitter = ::kairos::kal::Duration{$jitter$},"
                + " .bits_per_second = $bandwidth$};",
            "constant",
            constants.get(network),
            "latency",
            network.latencyNs(),
            "jitter",
            network.jitterNs(),
            "bandwidth",
            network.bitsPerSecond());
      }
      w.blank();
      w.docComment(
          "Where a node listens, and the link of the connections made to it there: the first"
              + " network of the model that connects the node.");
      w.open("struct NodeLink {");
      w.line("const char* endpoint;");
      w.line("::kairos::kal::sim::LinkModel link;");
      w.close("};");
      final long channelRows =
          links.keySet().stream().filter(n -> ChannelPlan.receivesRemote(system, n)).count();
      w.openList(
          "constexpr ::std::array<NodeLink, $count$> kLinks{{",
          "count",
          links.size() + channelRows);
      for (Map.Entry<Node, Network> entry : links.entrySet()) {
        w.line(
            "{$endpoint$, $constant$},  // node $node$ on network $network$",
            "endpoint",
            CppNames.literal(entry.getKey().endpoint()),
            "constant",
            constants.get(entry.getValue()),
            "node",
            entry.getKey().name(),
            "network",
            entry.getValue().name());
        if (ChannelPlan.receivesRemote(system, entry.getKey())) {
          w.line(
              "{$endpoint$, $constant$},  // node $node$'s channel samples",
              "endpoint",
              CppNames.literal(ChannelPlan.endpoint(system, entry.getKey())),
              "constant",
              constants.get(entry.getValue()),
              "node",
              entry.getKey().name());
        }
      }
      w.closeList("}};");
    }
    w.blank();
    w.line("}  // namespace").blank();

    w.open("int main(int argc, char** argv) {");
    w.line("::kairos::SystemOptions options;");
    w.open("switch (::kairos::parse_system_options(argc, argv, kSystem, options)) {");
    w.line("case ::kairos::NodeCommand::kHelp:");
    w.line("  return 0;");
    w.line("case ::kairos::NodeCommand::kUsageError:");
    w.line("  return 2;");
    w.line("case ::kairos::NodeCommand::kRun:");
    w.line("  break;");
    w.close("}");
    w.comment(
        "The model's networks, simulated before any node connects: a message crosses its link in"
            + " virtual time (serialisation at the bandwidth, latency, a jitter drawn from"
            + " --seed); nodes no network connects talk without delay.");
    w.open(
        "if (::kairos::kal::sim::set_network({}, options.seed) != ::kairos::kal::Status::kOk) {");
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kSystem, \"the network model was"
            + " refused\");");
    w.line("return 1;");
    w.close("}");
    if (!links.isEmpty()) {
      w.open("for (const NodeLink& node : kLinks) {");
      w.open(
          "if (::kairos::kal::sim::set_endpoint_link(node.endpoint, node.link) !="
              + " ::kairos::kal::Status::kOk) {");
      w.line(
          "::kairos::kal::report(::kairos::kal::Severity::kError, kSystem, \"a node's link was"
              + " refused\");");
      w.line("return 1;");
      w.close("}");
      w.close("}");
    }
    w.line("return ::kairos::run_system(kSystem, kNodes, options);");
    w.close("}");
    return new GeneratedFile(fileName, w.text(), GeneratedFile.Kind.CPP);
  }

  /** Each node with an endpoint that some network connects, with the first such network. */
  private static Map<Node, Network> linksOf(SystemModel system, List<Node> nodes) {
    final Map<Node, Network> links = new LinkedHashMap<>();
    for (Node node : nodes) {
      if (node.endpoint() == null) {
        continue;
      }
      final Optional<Network> network =
          system.networks().stream().filter(n -> n.nodes().contains(node.name())).findFirst();
      network.ifPresent(n -> links.put(node, n));
    }
    return links;
  }

  /**
   * The constant of each network's link, {@code kLinkLan} for network {@code lan}; networks of
   * other packages may share a name, so a later one takes its place in the list as a suffix.
   */
  private static Map<Network, String> linkConstants(Collection<Network> networks) {
    final Map<Network, String> constants = new LinkedHashMap<>();
    final Set<String> taken = new HashSet<>();
    for (Network network : networks) {
      if (constants.containsKey(network)) {
        continue;
      }
      final String name =
          "kLink" + Character.toUpperCase(network.name().charAt(0)) + network.name().substring(1);
      constants.put(network, taken.add(name) ? name : name + constants.size());
      taken.add(constants.get(network));
    }
    return constants;
  }
}
