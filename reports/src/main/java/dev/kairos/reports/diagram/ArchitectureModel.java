package dev.kairos.reports.diagram;

import dev.kairos.ir.Durations;
import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Channel;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.TypeUse;
import dev.kairos.reports.Figures;
import dev.kairos.reports.diagram.ArchitectureDiagram.Box;
import dev.kairos.reports.diagram.ArchitectureDiagram.BoxKind;
import dev.kairos.reports.diagram.ArchitectureDiagram.Link;
import dev.kairos.reports.diagram.ArchitectureDiagram.LinkKind;
import dev.kairos.reports.diagram.ArchitectureDiagram.Verdict;
import dev.kairos.timing.EndToEndAnalysis.GateReport;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the {@link ArchitectureDiagram} of a system from the IR, with the figures of its analysis
 * when there is one: each node with its hardware, OS and scheduling, holding its deployed TMOs;
 * each TMO holding the service methods that gates call; a gate as a link from its TMO to that
 * service method, labelled with its result-return deadline and, when analysed, the worst round trip
 * (network both ways plus the callee's response); channels linked to every TMO that names them;
 * networks linked to the nodes they join.
 */
public final class ArchitectureModel {
  private ArchitectureModel() {}

  /**
   * @param report the analysis of the same system, or null: then no verdicts and no round trips
   */
  public static ArchitectureDiagram of(SystemModel system, TimingPlan report) {
    final Map<String, NodePlan> nodeReports = new HashMap<>();
    final Map<String, GateReport> gateReports = new HashMap<>();
    if (report != null) {
      report.nodes().forEach(n -> nodeReports.put(n.node().name(), n));
      report.gates().forEach(g -> gateReports.put(g.caller() + "." + g.gate(), g));
    }

    final List<Link> gates = new ArrayList<>();
    final Map<String, List<String>> calledServices = new HashMap<>();
    for (Node node : system.nodes()) {
      for (Deployment caller : node.deployments()) {
        for (Gate gate : caller.tmo().gates()) {
          final SystemModel.Callee callee = system.callee(gate).orElse(null);
          if (callee == null) {
            continue; // validation reports a gate to nothing deployed; there is nothing to draw
          }
          calledServices
              .computeIfAbsent(tmoId(callee.node(), callee.deployment()), k -> new ArrayList<>())
              .add(gate.calleeMethod());
          gates.add(
              gate(
                  node,
                  caller,
                  gate,
                  callee,
                  gateReports.get(caller.instance() + "." + gate.name())));
        }
      }
    }

    final List<Box> boxes = new ArrayList<>();
    final List<Link> channelLinks = new ArrayList<>();
    final Map<String, Channel> channels = new LinkedHashMap<>();
    for (Node node : system.nodes()) {
      final NodePlan nodeReport = nodeReports.get(node.name());
      final List<Box> tmos = new ArrayList<>();
      for (Deployment deployment : node.deployments()) {
        tmos.add(
            tmo(
                node,
                deployment,
                nodeReport,
                calledServices.getOrDefault(tmoId(node, deployment), List.of())));
        for (Channel channel : deployment.tmo().channels()) {
          channels.putIfAbsent(channel.name(), channel);
          channelLinks.add(
              new Link(
                  "member-" + channel.name() + "-" + node.name() + "." + deployment.instance(),
                  LinkKind.CHANNEL,
                  tmoId(node, deployment),
                  channelId(channel.name()),
                  List.of(),
                  deployment.instance() + " publishes or subscribes to channel " + channel.name(),
                  Verdict.UNKNOWN));
        }
      }
      boxes.add(node(node, nodeReport, tmos));
    }
    for (Channel channel : channels.values()) {
      boxes.add(
          new Box(
              channelId(channel.name()),
              BoxKind.CHANNEL,
              "channel " + channel.name(),
              List.of("rmmc<" + typeName(channel.type()) + ">"),
              "RMMC channel "
                  + channel.name()
                  + " of "
                  + typeName(channel.type())
                  + " ("
                  + channel.source()
                  + ")",
              Verdict.UNKNOWN,
              List.of()));
    }

    final List<Link> networkLinks = new ArrayList<>();
    for (Network network : system.networks()) {
      final String facts =
          "latency "
              + Durations.format(network.latencyNs())
              + ", jitter "
              + Durations.format(network.jitterNs())
              + (network.bitsPerSecond() == Network.UNLIMITED
                  ? ""
                  : ", " + bandwidth(network.bitsPerSecond()));
      boxes.add(
          new Box(
              networkId(network.name()),
              BoxKind.NETWORK,
              "network " + network.name(),
              List.of(facts),
              "network " + network.name() + ": " + facts + " (" + network.source() + ")",
              Verdict.UNKNOWN,
              List.of()));
      for (String member : network.nodes()) {
        if (system.nodes().stream().anyMatch(n -> n.name().equals(member))) {
          networkLinks.add(
              new Link(
                  "joins-" + network.name() + "-" + member,
                  LinkKind.NETWORK,
                  networkId(network.name()),
                  nodeId(member),
                  List.of(),
                  "network " + network.name() + " joins node " + member,
                  Verdict.UNKNOWN));
        }
      }
    }

    final List<Link> links = new ArrayList<>(gates);
    links.addAll(channelLinks);
    links.addAll(networkLinks);
    return new ArchitectureDiagram(List.copyOf(boxes), List.copyOf(links));
  }

  static String nodeId(String node) {
    return "node-" + node;
  }

  static String tmoId(Node node, Deployment deployment) {
    return "tmo-" + node.name() + "." + deployment.instance();
  }

  static String serviceId(Node node, Deployment deployment, String svm) {
    return "svm-" + node.name() + "." + deployment.instance() + "." + svm;
  }

  static String channelId(String channel) {
    return "channel-" + channel;
  }

  static String networkId(String network) {
    return "network-" + network;
  }

  private static Box node(Node node, NodePlan report, List<Box> tmos) {
    final String hardware =
        node.hardware().name()
            + " x"
            + node.hardware().speed().toPlainString()
            + ", "
            + node.hardware().cores()
            + (node.hardware().cores() == 1 ? " core" : " cores");
    final String scheduling =
        node.os().name().toLowerCase(Locale.ROOT) + ", " + node.strategy().keyword();
    final List<String> details = new ArrayList<>(List.of(hardware, scheduling));
    if (report != null) {
      details.add(report.schedulable() ? "schedulable" : "NOT schedulable");
    }
    final StringBuilder tooltip =
        new StringBuilder("node ")
            .append(node.name())
            .append(" (")
            .append(node.source())
            .append("): hardware ")
            .append(hardware)
            .append("; os ")
            .append(scheduling.replace(", ", "; scheduling "));
    if (node.endpoint() != null) {
      tooltip.append("; endpoint ").append(node.endpoint());
    }
    if (report != null) {
      tooltip.append("; ").append(report.schedulable() ? "schedulable" : "NOT schedulable");
    }
    return new Box(
        nodeId(node.name()),
        BoxKind.NODE,
        "node " + node.name(),
        List.copyOf(details),
        tooltip.toString(),
        verdict(report == null ? null : report.schedulable()),
        List.copyOf(tmos));
  }

  private static Box tmo(
      Node node, Deployment deployment, NodePlan report, List<String> calledServices) {
    final var tmo = deployment.tmo();
    final List<TaskReport> tasks =
        report == null
            ? List.of()
            : report.tasks().stream()
                .filter(t -> t.instance().equals(deployment.instance()))
                .toList();
    final List<String> details = new ArrayList<>();
    final Optional<Integer> core =
        report == null
            ? Optional.ofNullable(deployment.pinned() ? deployment.core() : null)
            : report.placements().stream()
                .filter(p -> p.instance().equals(deployment.instance()))
                .map(NodePlan.Placement::core)
                .findFirst();
    if (node.hardware().cores() > 1 && core.isPresent()) {
      details.add("core " + core.get());
    }
    details.add(
        tmo.spms().size()
            + (tmo.spms().size() == 1 ? " SpM, " : " SpMs, ")
            + tmo.svms().size()
            + (tmo.svms().size() == 1 ? " SvM" : " SvMs"));

    final StringBuilder tooltip =
        new StringBuilder(deployment.instance())
            .append(": ")
            .append(tmo.qualifiedName())
            .append(" on node ")
            .append(node.name())
            .append(" (")
            .append(deployment.source())
            .append(")");
    for (Spm spm : tmo.spms()) {
      tooltip
          .append("\nspm ")
          .append(spm.name())
          .append(spm.periodic() ? " every " + Durations.format(spm.periodNs()) : " once")
          .append(", wcet ")
          .append(Durations.format(spm.wcetNs()))
          .append(response(tasks, spm.name()));
    }
    for (Svm svm : tmo.svms()) {
      tooltip
          .append("\nsvm ")
          .append(svm.name())
          .append(" gct ")
          .append(Durations.format(svm.gctNs()))
          .append(", wcet ")
          .append(Durations.format(svm.wcetNs()))
          .append(response(tasks, svm.name()));
    }

    final List<Box> services = new ArrayList<>();
    for (Svm svm : tmo.svms()) {
      if (!calledServices.contains(svm.name())) {
        continue;
      }
      final Optional<TaskReport> task =
          tasks.stream().filter(t -> t.method().equals(svm.name())).findFirst();
      services.add(
          new Box(
              serviceId(node, deployment, svm.name()),
              BoxKind.SERVICE,
              "svm " + svm.name(),
              List.of("gct " + Durations.format(svm.gctNs())),
              deployment.instance()
                  + "."
                  + svm.name()
                  + ": gct "
                  + Durations.format(svm.gctNs())
                  + ", wcet "
                  + Durations.format(svm.wcetNs())
                  + response(tasks, svm.name())
                  + " ("
                  + svm.source()
                  + ")",
              verdict(
                  task.map(
                          t ->
                              t.schedulable()
                                  || (t.criticality() == Criticality.SOFT && report.schedulable()))
                      .orElse(null)),
              List.of()));
    }
    // The rule of `kairos check`: a soft method may miss under overload on a node that holds.
    final boolean holds =
        tasks.stream()
            .allMatch(
                t ->
                    t.schedulable()
                        || (t.criticality() == Criticality.SOFT && report.schedulable()));
    return new Box(
        tmoId(node, deployment),
        BoxKind.TMO,
        deployment.instance() + " : " + tmo.name(),
        List.copyOf(details),
        tooltip.toString(),
        verdict(report == null ? null : holds),
        List.copyOf(services));
  }

  private static Link gate(
      Node node, Deployment caller, Gate gate, SystemModel.Callee callee, GateReport report) {
    final List<String> label = new ArrayList<>();
    label.add(gate.name() + ": deadline " + Durations.format(gate.deadlineNs()));
    final StringBuilder tooltip =
        new StringBuilder("gate ")
            .append(caller.instance())
            .append('.')
            .append(gate.name())
            .append(" -> ")
            .append(callee.deployment().instance())
            .append('.')
            .append(gate.calleeMethod())
            .append(gate.nonBlocking() ? " (non-blocking)" : "")
            .append(": result-return deadline ")
            .append(Durations.format(gate.deadlineNs()));
    if (report != null && report.networkNs() >= 0 && report.calleeResponseNs() >= 0) {
      final long roundTrip = report.networkNs() + report.calleeResponseNs();
      label.add("worst round trip " + Figures.duration(roundTrip));
      tooltip
          .append("; worst round trip ")
          .append(Figures.duration(roundTrip))
          .append(" (network ")
          .append(Figures.duration(report.networkNs()))
          .append(" + callee response ")
          .append(Figures.duration(report.calleeResponseNs()))
          .append(")");
    }
    if (report != null) {
      tooltip.append(report.meets() ? "; holds" : "; does NOT hold");
    }
    tooltip.append(" (").append(gate.source()).append(')');
    return new Link(
        "gate-" + node.name() + "." + caller.instance() + "." + gate.name(),
        LinkKind.GATE,
        tmoId(node, caller),
        serviceId(callee.node(), callee.deployment(), gate.calleeMethod()),
        List.copyOf(label),
        tooltip.toString(),
        verdict(report == null ? null : report.meets()));
  }

  private static String response(List<TaskReport> tasks, String method) {
    return tasks.stream()
        .filter(t -> t.method().equals(method))
        .findFirst()
        .map(
            t ->
                t.responseTimeNs() < 0
                    ? ", response beyond its deadline"
                    : ", response " + Figures.duration(t.responseTimeNs()))
        .orElse("");
  }

  private static Verdict verdict(Boolean holds) {
    if (holds == null) {
      return Verdict.UNKNOWN;
    }
    return holds ? Verdict.HOLDS : Verdict.FAILS;
  }

  /** The IDL spelling of a channel's payload type. */
  static String typeName(TypeUse type) {
    if (type instanceof TypeUse.Primitive primitive) {
      return primitive.kind().name().toLowerCase(Locale.ROOT);
    }
    if (type instanceof TypeUse.BoundedString string) {
      return "string<" + string.bound() + ">";
    }
    if (type instanceof TypeUse.Sequence sequence) {
      return "sequence<" + typeName(sequence.element()) + ", " + sequence.bound() + ">";
    }
    return ((TypeUse.Named) type).name();
  }

  private static String bandwidth(long bitsPerSecond) {
    final long[] scales = {1_000_000_000L, 1_000_000L, 1_000L};
    final String[] units = {"Gbps", "Mbps", "kbps"};
    for (int i = 0; i < scales.length; i++) {
      if (bitsPerSecond >= scales[i]) {
        return decimal(bitsPerSecond, scales[i]) + " " + units[i];
      }
    }
    return bitsPerSecond + " bps";
  }

  private static String decimal(long value, long scale) {
    return BigDecimal.valueOf(value)
        .divide(BigDecimal.valueOf(scale), 3, RoundingMode.HALF_UP)
        .stripTrailingZeros()
        .toPlainString();
  }
}
