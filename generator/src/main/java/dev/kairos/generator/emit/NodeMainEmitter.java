package dev.kairos.generator.emit;

import dev.kairos.generator.analysis.AnalysisReport;
import dev.kairos.generator.analysis.NodeReport;
import dev.kairos.generator.analysis.TaskReport;
import dev.kairos.generator.emit.RemoteCalls.ResolvedGate;
import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Platform.OperatingSystem;
import dev.kairos.generator.ir.SystemModel;
import dev.kairos.generator.ir.Tmos.Spm;
import dev.kairos.generator.ir.Tmos.Svm;
import dev.kairos.generator.ir.Tmos.TmoClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code <node>.main.cpp}: the node executable. It instantiates the user's TMO classes once each,
 * binds every row of the release table to its servant's entry point ({@code run_<method>}, which
 * lends the method the segments the row locks), and runs the engine.
 */
final class NodeMainEmitter {
  private NodeMainEmitter() {}

  static String fileName(Node node) {
    return FileLayout.nodeMain(node);
  }

  static GeneratedFile emit(SystemModel system, AnalysisReport analysis, Node node) {
    final CodeWriter w = new CodeWriter();
    final List<ResolvedGate> gates = RemoteCalls.gatesOf(system, analysis, node);
    final NodeReport report = RemoteCalls.reportOf(analysis, node);
    // Remote calls run over the ORB on real platforms; a simulated node has no network yet, so
    // its service methods are registered but nothing reaches them and its gates stay unbound.
    final boolean networked = node.os() != OperatingSystem.SIM;
    final boolean serves = networked && RemoteCalls.serves(node) && node.endpoint() != null;
    final boolean calls = networked && !gates.isEmpty();
    w.line(Banner.cpp(fileName(node), List.of(node.source().file())));
    w.line("#include <kairos/binding.hpp>");
    w.line("#include <kairos/engine.hpp>");
    w.line("#include <kairos/node.hpp>");
    if (serves || calls) {
      w.line("#include <kairos/orb/orb.hpp>");
      w.line("#include <kairos/orb/service.hpp>");
    }
    w.blank();
    w.line("#include \"$schedule$\"", "schedule", ScheduleEmitter.fileName(node));
    final Set<TmoClass> classes = new LinkedHashSet<>();
    for (Deployment deployment : node.deployments()) {
      classes.add(deployment.tmo());
    }
    for (TmoClass tmo : classes) {
      w.line("#include \"$header$\"", "header", UserCodeEmitter.headerName(tmo));
    }
    w.blank();
    w.line("namespace {").blank();
    w.line("// The deployed TMO instances: one object each, alive for the whole run.");
    w.line("namespace deployed {");
    for (Deployment deployment : node.deployments()) {
      w.line(Banner.origin(deployment.source()));
      w.line(
          "$type$ $instance$;",
          "type",
          CppNames.qualified(deployment.tmo().namespace(), deployment.tmo().name()),
          "instance",
          deployment.instance());
    }
    w.line("}  // namespace deployed").blank();
    if (serves) {
      dispatchers(w, node);
    }
    w.line("}  // namespace").blank();

    w.open("int main(int argc, char** argv) {");
    w.line("constexpr const char* kNode = $name$;", "name", CppNames.literal(node.name()));
    w.line("::kairos::NodeOptions options;");
    if (node.hardware().cores() > 1) {
      w.line("options.cores = $ns$::kCores;", "ns", ScheduleEmitter.namespace(node));
    }
    w.open("switch (::kairos::parse_node_options(argc, argv, kNode, options)) {");
    w.line("case ::kairos::NodeCommand::kHelp:");
    w.line("  return 0;");
    w.line("case ::kairos::NodeCommand::kUsageError:");
    w.line("  return 2;");
    w.line("case ::kairos::NodeCommand::kRun:");
    w.line("  break;");
    w.close("}").blank();
    w.line("// Constructed here, at start-up, with the options of this run (its cores and their");
    w.line("// CPUs too). Simulated nodes model each method's WCET on their virtual processors.");
    w.line(
        "static ::kairos::Engine engine{"
            + "::kairos::engine_options(options, $ns$::kStrategy, $ns$::kSimulated)};",
        "ns",
        ScheduleEmitter.namespace(node));
    w.open("for (const auto& segment : $ns$::kSegments) {", "ns", ScheduleEmitter.namespace(node));
    w.open("if (engine.add_segment(segment) != ::kairos::kal::Status::kOk) {");
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"segment table rejected\");");
    w.line("return 1;");
    w.close("}");
    w.close("}");
    int row = 0;
    if (node.deployments().stream().anyMatch(d -> !d.tmo().spms().isEmpty())) {
      w.line(
          "const auto& table = $ns$::kSpontaneousMethods;", "ns", ScheduleEmitter.namespace(node));
    }
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        final String type =
            CppNames.qualified(deployment.tmo().namespace(), deployment.tmo().name());
        w.open(
            "if (engine.add_spm(table[$row$], &deployed::$instance$,"
                + " &::kairos::invoke_spm<$type$, &$type$::$entry$>,"
                + " &::kairos::forward_miss<$type$>) != ::kairos::kal::Status::kOk) {",
            "row",
            row++,
            "instance",
            deployment.instance(),
            "type",
            type,
            "entry",
            MethodAccess.of(spm).entryPoint());
        w.line(
            "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"release table row $row$ rejected\");",
            "row",
            row - 1);
        w.line("return 1;");
        w.close("}");
      }
    }
    services(w, node);
    w.line("// The time trigger walks the release table kairos check played out.");
    w.open("if constexpr (!$ns$::kReleaseTable.empty()) {", "ns", ScheduleEmitter.namespace(node));
    w.open(
        "if (engine.set_release_table($ns$::kReleaseTable, $ns$::kHyperperiod) !="
            + " ::kairos::kal::Status::kOk) {",
        "ns",
        ScheduleEmitter.namespace(node));
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"release table rejected\");");
    w.line("return 1;");
    w.close("}");
    w.close("}");
    w.blank();
    if (serves || calls) {
      orb(w, system, node, report, gates, serves);
    }
    w.line("const auto status = engine.run_for(options.duration,");
    w.line("    options.quiet ? nullptr : &::kairos::print_activation, nullptr);");
    if (serves || calls) {
      w.line("orb.stop();");
    }
    w.line("::kairos::print_summary(kNode, engine.counters());");
    if (calls) {
      gateSummaries(w, gates);
    }
    w.open("if (status != ::kairos::kal::Status::kOk) {");
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, ::kairos::kal::to_string(status));");
    w.line("return 1;");
    w.close("}");
    w.line("return 0;");
    w.close("}");
    return new GeneratedFile(fileName(node), w.text(), GeneratedFile.Kind.CPP);
  }

  /** One dispatch function per instance with service methods: a switch on the operation. */
  private static void dispatchers(CodeWriter w, Node node) {
    w.comment(
        "Remote requests for the instances here. An object is an instance's place among the"
            + " node's deployments, an operation its service method's place in its TMO; each"
            + " request is admitted by the engine as a request of that service method's row.");
    int row = 0;
    for (Deployment deployment : node.deployments()) {
      if (deployment.tmo().svms().isEmpty()) {
        continue;
      }
      w.line(Banner.origin(deployment.source()));
      w.open(
          "::kairos::orb::ReplyStatus $name$(void* engine, ::kairos::orb::ServerRequest& request)"
              + " noexcept {",
          "name",
          dispatcher(deployment));
      w.line("auto& node_engine = *static_cast<::kairos::Engine*>(engine);");
      w.open("switch (request.header().operation) {");
      for (int operation = 0; operation < deployment.tmo().svms().size(); operation++) {
        w.line(
            "case $operation$:  // svm $svm$",
            "operation",
            operation,
            "svm",
            deployment.tmo().svms().get(operation).name());
        w.line(
            "  return ::kairos::orb::admit_row(node_engine, $ns$::kServiceMethods, $row$,"
                + " request);",
            "ns",
            ScheduleEmitter.namespace(node),
            "row",
            row++);
      }
      w.line("default:");
      w.line("  return ::kairos::orb::ReplyStatus::kNoSuchTarget;");
      w.close("}");
      w.close("}").blank();
    }
  }

  private static String dispatcher(Deployment deployment) {
    return "dispatch_" + deployment.instance();
  }

  /** Registers every service method row with the skeleton that serves its requests. */
  private static void services(CodeWriter w, Node node) {
    int row = 0;
    if (node.deployments().stream().anyMatch(d -> !d.tmo().svms().isEmpty())) {
      w.line(
          "const auto& services = $ns$::kServiceMethods;", "ns", ScheduleEmitter.namespace(node));
    }
    for (Deployment deployment : node.deployments()) {
      final String type = CppNames.qualified(deployment.tmo().namespace(), deployment.tmo().name());
      for (Svm svm : deployment.tmo().svms()) {
        w.open(
            "if (engine.add_svm(services[$row$], &deployed::$instance$,"
                + " &$type$::$skeleton$<$type$>,"
                + " &::kairos::forward_miss<$type$>) != ::kairos::kal::Status::kOk) {",
            "row",
            row++,
            "instance",
            deployment.instance(),
            "type",
            type,
            "skeleton",
            RemoteEmitter.skeleton(svm));
        w.line(
            "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"service method row"
                + " $row$ rejected\");",
            "row",
            row - 1);
        w.line("return 1;");
        w.close("}");
      }
    }
  }

  /** The ORB: what the node serves, the peers and routes its gates call, their binding. */
  private static void orb(
      CodeWriter w,
      SystemModel system,
      Node node,
      NodeReport report,
      List<ResolvedGate> gates,
      boolean serves) {
    w.comment(
        "Remote calls: the ORB serves this node's service methods and carries its gates' calls,"
            + " on one connection per (peer, band, calling lane) set up before the run.");
    w.line("static ::kairos::orb::Orb orb{::kairos::orb::OrbOptions{kNode}};");
    if (serves) {
      check(
          w,
          "orb.listen(" + CppNames.literal(node.endpoint()) + ")",
          "cannot listen on " + node.endpoint());
      if (node.endpoint().startsWith("udp:")) {
        w.comment(
            "Over UDP the node takes oneways only, one datagram each: band b's arrive on port"
                + " $port$ + b.",
            "port",
            node.endpoint().substring(node.endpoint().lastIndexOf(':') + 1));
      }
      final Set<Integer> bands = new TreeSet<>();
      for (TaskReport task : report.tasks()) {
        if (task.kind() == TaskReport.Kind.SVM) {
          bands.add(task.band());
        }
      }
      for (int band : bands) {
        check(w, "orb.serve_band(" + band + ")", "cannot serve band " + band);
      }
      for (Deployment deployment : node.deployments()) {
        if (!deployment.tmo().svms().isEmpty()) {
          final int object = RemoteCalls.objectOf(node, deployment);
          check(
              w,
              "orb.add_object(" + object + ", &" + dispatcher(deployment) + ", &engine)",
              "cannot serve " + deployment.instance());
        }
      }
    }
    final Map<String, String> peers = new LinkedHashMap<>();
    for (ResolvedGate gate : gates) {
      final Node callee = gate.calleeNode();
      if (reachable(callee) && !peers.containsKey(callee.name())) {
        final String peer = "peer_" + callee.name();
        peers.put(callee.name(), peer);
        w.line("::std::uint8_t $peer$ = 0;", "peer", peer);
        check(
            w,
            "orb.add_peer(" + CppNames.literal(callee.endpoint()) + ", " + peer + ")",
            "cannot call node " + callee.name() + " at " + callee.endpoint());
      }
    }
    for (ResolvedGate gate : gates) {
      if (!reachable(gate.calleeNode())) {
        w.comment(
            "gate $caller$.$gate$ is not bound: node $node$ has no endpoint on a network.",
            "caller",
            gate.caller().instance(),
            "gate",
            gate.gate().name(),
            "node",
            gate.calleeNode().name());
        continue;
      }
      for (RemoteCalls.Lane lane : gate.callerLanes()) {
        check(
            w,
            "orb.add_route("
                + peers.get(gate.calleeNode().name())
                + ", "
                + gate.band()
                + ", "
                + lane.core()
                + ", "
                + lane.band()
                + ")",
            "no route for gate " + gate.caller().instance() + "." + gate.gate().name());
      }
    }
    for (Deployment deployment : node.deployments()) {
      final List<ResolvedGate> own =
          gates.stream()
              .filter(g -> g.caller().equals(deployment) && reachable(g.calleeNode()))
              .toList();
      if (own.isEmpty()) {
        continue;
      }
      final List<String> targets = new ArrayList<>();
      for (ResolvedGate gate : own) {
        targets.add(
            "."
                + gate.gate().name()
                + " = {.peer = "
                + peers.get(gate.calleeNode().name())
                + ", .band = "
                + gate.band()
                + ", .object = "
                + gate.object()
                + ", .operation = "
                + gate.operation()
                + "}");
      }
      w.parenthesized("deployed::" + deployment.instance() + ".bind_gates(orb, {", targets, "});");
    }
    check(w, "orb.start()", "the ORB could not start");
    if (!peers.isEmpty()) {
      w.comment(
          "The nodes of a system start together: meet every peer before the engine begins (for"
              + " at most --peer-wait); a gate to a peer that is not up fails until it is.");
      w.open("if (!orb.connect_all(::kairos::kal::MonotonicClock::now() + options.peer_wait)) {");
      w.line(
          "::kairos::kal::report(::kairos::kal::Severity::kWarning, kNode, \"not every peer"
              + " answered; their gates fail until they do\");");
      w.close("}");
    }
    w.blank();
  }

  /** A node that gates can call: on a real platform, with an endpoint. */
  private static boolean reachable(Node node) {
    return node.os() != OperatingSystem.SIM && node.endpoint() != null;
  }

  private static void check(CodeWriter w, String call, String failure) {
    w.open("if ($call$ != ::kairos::kal::Status::kOk) {", "call", call);
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, $message$);",
        "message",
        CppNames.literal(failure));
    w.line("return 1;");
    w.close("}");
  }

  /** A line per gate after the run: its calls beside the round trip the analysis bounds. */
  private static void gateSummaries(CodeWriter w, List<ResolvedGate> gates) {
    for (ResolvedGate gate : gates) {
      final long bound =
          gate.report()
              .filter(r -> r.networkNs() >= 0 && r.calleeResponseNs() >= 0)
              .map(r -> r.networkNs() + r.calleeResponseNs())
              .orElse(-1L);
      final String accessor =
          "deployed::" + gate.caller().instance() + ".gates()." + gate.gate().name();
      w.line(
          "::kairos::print_gate(kNode, $name$, $callee$, $gate$.counters(),"
              + " ::std::chrono::nanoseconds{$bound$}, $gate$.deadline());",
          "name",
          CppNames.literal(gate.caller().instance() + "." + gate.gate().name()),
          "callee",
          CppNames.literal(gate.callee().instance() + "." + gate.svm().name()),
          "gate",
          accessor,
          "bound",
          bound);
    }
  }
}
