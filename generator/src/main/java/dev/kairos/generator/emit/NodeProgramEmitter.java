package dev.kairos.generator.emit;

import dev.kairos.generator.emit.RemoteCalls.ResolvedGate;
import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A node as a program ({@code <node>.node.hpp} and {@code <node>.node.cpp}): its TMO instances,
 * each row of its release table bound to its servant's entry point ({@code run_<method>}, which
 * lends the method the segments the row locks, reached through the base's {@code EntryPoints},
 * which only node programs define), its engine and its ORB, behind the steps of a {@code
 * kairos::NodeProgram}. The node's own executable runs it ({@link NodeMainEmitter}); a system whose
 * nodes all run on sim runs all of them in one process ({@link SystemMainEmitter}).
 */
final class NodeProgramEmitter {
  private NodeProgramEmitter() {}

  static GeneratedFile header(Node node) {
    final CodeWriter w = new CodeWriter();
    final String fileName = FileLayout.nodeProgramHeader(node);
    w.line(Banner.cpp(fileName, List.of(node.source().file())));
    w.line("#pragma once").blank();
    w.line("#include <kairos/node.hpp>").blank();
    w.line(Banner.origin(node.source()));
    w.line("namespace $ns$ {", "ns", ScheduleEmitter.namespace(node)).blank();
    w.docComment(
        "Node $node$ as a program: its TMO instances, its engine and its ORB, set up, run and"
            + " finished by its own main, or with the other nodes of its system by the system's.",
        "node",
        node.name());
    w.line("extern const ::kairos::NodeProgram kProgram;").blank();
    w.line("}  // namespace $ns$", "ns", ScheduleEmitter.namespace(node));
    return new GeneratedFile(fileName, w.text(), GeneratedFile.Kind.CPP);
  }

  static GeneratedFile source(SystemModel system, TimingPlan analysis, Node node) {
    final CodeWriter w = new CodeWriter();
    final String fileName = FileLayout.nodeProgram(node);
    final List<ResolvedGate> gates = RemoteCalls.gatesOf(system, analysis, node);
    final NodePlan report = RemoteCalls.reportOf(analysis, node);
    final boolean serves = RemoteCalls.serves(node) && node.endpoint() != null;
    final boolean calls = !gates.isEmpty();
    final Optional<ClockSyncEmitter.NodeClock> clock = ClockSyncEmitter.of(system, node);
    final boolean networked = serves || calls || clock.isPresent();
    final boolean meets =
        gates.stream().anyMatch(g -> reachable(node, g.calleeNode()))
            || clock.filter(c -> !c.isMaster()).isPresent();
    final String ns = ScheduleEmitter.namespace(node);
    w.line(Banner.cpp(fileName, List.of(node.source().file())));
    w.line("#include \"$header$\"", "header", FileLayout.nodeProgramHeader(node)).blank();
    w.line("#include <kairos/binding.hpp>");
    w.line("#include <kairos/engine.hpp>");
    if (clock.isPresent()) {
      w.line("#include <kairos/clock/clock_sync.hpp>");
    }
    if (networked) {
      w.line("#include <kairos/orb/orb.hpp>");
      w.line("#include <kairos/orb/service.hpp>");
    }
    ChannelEmitter.includes(w, system, node);
    w.blank();
    w.line("#include \"$schedule$\"", "schedule", ScheduleEmitter.fileName(node));
    ChannelEmitter.localIncludes(w, system, node);
    final Set<TmoClass> classes = new LinkedHashSet<>();
    for (Deployment deployment : node.deployments()) {
      classes.add(deployment.tmo());
    }
    for (TmoClass tmo : classes) {
      w.line("#include \"$header$\"", "header", UserCodeEmitter.headerName(tmo));
    }
    w.blank();
    for (TmoClass tmo : classes) {
      entryPoints(w, tmo);
    }
    w.line("namespace {").blank();
    w.line("constexpr const char* kNode = $name$;", "name", CppNames.literal(node.name())).blank();
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
    clock.ifPresent(c -> ClockSyncEmitter.table(w, c));
    if (serves) {
      dispatchers(w, node);
    }
    ChannelEmitter.definitions(w, system, analysis, node);
    // Found once: how long the node serves after its end and its access list both come from them.
    final List<RemoteCalls.Caller> callers = RemoteCalls.callersOf(system, analysis, node);
    runtime(
        w,
        node,
        networked,
        clock.isPresent(),
        RemoteCalls.serveAfterEndNs(analysis, node, callers));
    setUp(w, system, node, report, gates, serves, networked, clock, callers);
    if (meets) {
      w.open("bool meet_peers(::kairos::kal::TimePoint until) noexcept {");
      w.line("return node_runtime->orb.connect_all(until);");
      w.close("}").blank();
    }
    w.open(
        "::kairos::kal::Status run(::kairos::kal::Duration duration,"
            + " ::kairos::ActivationObserver observer, void* observer_context) noexcept {");
    w.line("return node_runtime->engine.run_for(duration, observer, observer_context);");
    w.close("}").blank();
    w.open("void finish() noexcept {");
    if (clock.isPresent()) {
      w.line("node_runtime->clock.stop();");
    }
    if (networked) {
      w.line("node_runtime->orb.stop();");
    }
    ChannelEmitter.stop(w, system, node);
    if (serves) {
      w.line("::kairos::print_orb(kNode, node_runtime->orb);");
    }
    w.line("::kairos::print_summary(kNode, node_runtime->engine.counters());");
    if (clock.isPresent()) {
      w.line("::kairos::print_clock(kNode, node_runtime->clock);");
    }
    if (calls) {
      NodeOrbSetUp.gateSummaries(w, gates);
    }
    ChannelEmitter.summaries(w, system, node);
    w.close("}").blank();
    w.comment(
        "The engine (none before set_up): what it measured of each method, for --timings, and"
            + " what SIGINT and SIGTERM stop.");
    w.open("::kairos::Engine* running_engine() noexcept {");
    w.line("return node_runtime != nullptr ? &node_runtime->engine : nullptr;");
    w.close("}").blank();
    w.line("}  // namespace").blank();
    w.comment(
        "The node's steps, in the order its own main (kairos::run_node) and its system's main"
            + " (kairos::run_system) take them.");
    w.line(
        "const ::kairos::NodeProgram $ns$::kProgram{.name = kNode, .cores = $cores$,"
            + " .set_up = &set_up, .meet_peers = $meet$, .run = &run, .finish = &finish,"
            + " .engine = &running_engine$transport$};",
        "ns",
        ns,
        "transport",
        ChannelEmitter.onDds(system, node)
            ? ", .channel_transport = &::kairos::probe::dds_transport"
            : "",
        "cores",
        node.hardware().cores() > 1 ? ns + "::kCores" : "1",
        "meet",
        meets ? "&meet_peers" : "nullptr");
    return new GeneratedFile(fileName, w.text(), GeneratedFile.Kind.CPP);
  }

  /** The engine and the ORB, made with the options of the run. */
  private static void runtime(
      CodeWriter w, Node node, boolean networked, boolean clock, long serveAfterEndNs) {
    final String ns = ScheduleEmitter.namespace(node);
    final String engineOptions =
        serveAfterEndNs > 0
            ? "::kairos::engine_options(options, $ns$::kStrategy, $ns$::kSimulated,"
                + " kServeAfterEnd)"
            : "::kairos::engine_options(options, $ns$::kStrategy, $ns$::kSimulated)";
    if (serveAfterEndNs > 0) {
      w.comment(
          "Other nodes call this one: it still takes their requests in this long after its run"
              + " ends (its duration, or a stop), the latest that a call of an activation released"
              + " before the end is served here by the analysis, so that no such call fails.");
      w.line(
          "constexpr ::std::chrono::nanoseconds kServeAfterEnd{$nanoseconds$};",
          "nanoseconds",
          Long.toString(serveAfterEndNs));
      w.blank();
    }
    w.docComment(
        "The node's engine$orb$, made once, at start-up, for the options of the run (its cores and"
            + " their CPUs too). Simulated nodes model each method's WCET on their virtual"
            + " processors.",
        "orb",
        networked ? " and its ORB" : "");
    w.open("struct NodeRuntime {");
    w.line("explicit NodeRuntime(const ::kairos::NodeOptions& options) noexcept");
    if (networked) {
      w.line("    : engine{" + engineOptions + "},", "ns", ns);
      // The band readers of a node whose lanes run by deadline must not rank below them.
      w.line(
          "      orb{::kairos::orb::OrbOptions{.node = kNode, .cpu = options.orb_cpu$edf$,"
              + " .identity = options.identity,"
              + " .local_peers = {.group = options.socket_group}}}$more$",
          "edf",
          node.strategy().preemptsByDeadline() ? ", .lanes_by_deadline = true" : "",
          "more",
          clock ? "," : " {}");
      if (clock) {
        w.line(
            "      clock{kClockSync, ::kairos::clock_sync_options(options, kClockSync, kNode)} {}");
      }
    } else {
      w.line("    : engine{" + engineOptions + "} {}", "ns", ns);
    }
    w.blank();
    w.line("::kairos::Engine engine;");
    if (networked) {
      w.line("::kairos::orb::Orb orb;");
    }
    if (clock) {
      w.line("::kairos::clock::ClockSync clock;");
    }
    w.close("};");
    w.line("NodeRuntime* node_runtime = nullptr;").blank();
  }

  /** {@code set_up}: the engine's tables and rows, then the ORB, which it starts. */
  private static void setUp(
      CodeWriter w,
      SystemModel system,
      Node node,
      NodePlan report,
      List<ResolvedGate> gates,
      boolean serves,
      boolean networked,
      Optional<ClockSyncEmitter.NodeClock> clock,
      List<RemoteCalls.Caller> callers) {
    final String ns = ScheduleEmitter.namespace(node);
    w.open("bool set_up(const ::kairos::NodeOptions& options) noexcept {");
    w.line("static NodeRuntime made{options};");
    w.line("node_runtime = &made;");
    w.line("auto& engine = made.engine;");
    w.open("for (const auto& segment : $ns$::kSegments) {", "ns", ns);
    w.open("if (engine.add_segment(segment) != ::kairos::kal::Status::kOk) {");
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"segment table rejected\");");
    w.line("return false;");
    w.close("}");
    w.close("}");
    methodRows(
        w,
        node,
        "table",
        "kSpontaneousMethods",
        "add_spm",
        "release table row",
        TaskReport.Kind.SPM);
    methodRows(
        w,
        node,
        "services",
        "kServiceMethods",
        "add_svm",
        "service method row",
        TaskReport.Kind.SVM);
    w.line("// The time trigger walks the release table kairos check played out.");
    w.open("if constexpr (!$ns$::kReleaseTable.empty()) {", "ns", ns);
    w.open(
        "if (engine.set_release_table($ns$::kReleaseTable, $ns$::kHyperperiod) !="
            + " ::kairos::kal::Status::kOk) {",
        "ns",
        ns);
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"release table rejected\");");
    w.line("return false;");
    w.close("}");
    w.close("}");
    ChannelEmitter.setUp(w, system, node);
    if (networked) {
      w.blank();
      NodeOrbSetUp.orb(w, system, node, report, gates, serves, clock, callers);
    }
    w.line("return true;");
    w.close("}").blank();
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

  static String dispatcher(Deployment deployment) {
    return "dispatch_" + deployment.instance();
  }

  /** The qualified name of a TMO base's {@code EntryPoints}. */
  private static String entryPoints(TmoClass tmo) {
    return CppNames.qualified(tmo.namespace(), ServantEmitter.baseClass(tmo))
        + "::"
        + ServantEmitter.ENTRY_POINTS;
  }

  /**
   * The definition of a TMO base's {@code EntryPoints}: one engine entry per method, an SpM's
   * invoker of {@code run_<spm>} and an SvM's skeleton {@code serve_<svm>}. Made from the TMO
   * alone, so every node program that deploys it defines it with the same tokens, as C++ requires
   * of a class defined in several translation units linked together.
   */
  private static void entryPoints(CodeWriter w, TmoClass tmo) {
    if (tmo.spms().isEmpty() && tmo.svms().isEmpty()) {
      return; // a base without methods declares no entry points
    }
    final String type = CppNames.qualified(tmo.namespace(), tmo.name());
    w.line(Banner.origin(tmo.source()));
    w.comment(
        "The engine's way in to the methods of TMO $tmo$, whose entry points are private to"
            + " the base of its hand-written class: the rows below take these.",
        "tmo",
        tmo.name());
    // A class defined by a qualified name may not start at the global scope's `::`.
    w.open("struct $entries$ {", "entries", entryPoints(tmo).substring(2));
    for (Spm spm : tmo.spms()) {
      w.line(
          "static constexpr auto $method$ = &::kairos::invoke_spm<$type$, &$type$::$entry$>;",
          "method",
          spm.name(),
          "type",
          type,
          "entry",
          MethodAccess.of(spm).entryPoint());
    }
    for (Svm svm : tmo.svms()) {
      w.line(
          "static constexpr auto $method$ = &$type$::$skeleton$<$type$>;",
          "method",
          svm.name(),
          "type",
          type,
          "skeleton",
          RemoteEmitter.skeleton(svm));
    }
    ChannelEmitter.entryPoint(w, tmo);
    w.close("};").blank();
  }

  /**
   * Registers one row of the node's schedule per method (SpMs with their invokers, SvMs with the
   * skeletons that serve their requests), in the order of the schedule's table (MethodRow).
   */
  private static void methodRows(
      CodeWriter w,
      Node node,
      String local,
      String table,
      String add,
      String what,
      TaskReport.Kind kind) {
    final List<MethodRow> rows = MethodRow.of(node, kind);
    if (!rows.isEmpty()) {
      w.line(
          "const auto& $local$ = $ns$::$table$;",
          "local",
          local,
          "ns",
          ScheduleEmitter.namespace(node),
          "table",
          table);
    }
    for (int row = 0; row < rows.size(); row++) {
      final Deployment deployment = rows.get(row).deployment();
      final String type = CppNames.qualified(deployment.tmo().namespace(), deployment.tmo().name());
      final String method = rows.get(row).method();
      w.open(
          "if (engine.$add$($local$[$row$], &deployed::$instance$, $entries$::$method$,"
              + " &::kairos::forward_miss<$type$>) != ::kairos::kal::Status::kOk) {",
          "add",
          add,
          "local",
          local,
          "row",
          row,
          "instance",
          deployment.instance(),
          "entries",
          entryPoints(deployment.tmo()),
          "method",
          method,
          "type",
          type);
      w.line(
          "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, \"$what$ $row$"
              + " rejected\");",
          "what",
          what,
          "row",
          row);
      w.line("return false;");
      w.close("}");
    }
  }

  /**
   * Whether {@code caller}'s gates can reach {@code callee}: it has an endpoint, on a network of
   * the same kind. Linux nodes meet over the host's sockets; sim nodes over the simulated network
   * of the process they run in together.
   */
  static boolean reachable(Node caller, Node callee) {
    return callee.endpoint() != null && callee.os() == caller.os();
  }

  static String osName(Node node) {
    return node.os().name().toLowerCase(Locale.ROOT);
  }

  static void check(CodeWriter w, String call, String failure) {
    w.open("if ($call$ != ::kairos::kal::Status::kOk) {", "call", call);
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, $message$);",
        "message",
        CppNames.literal(failure));
    w.line("return false;");
    w.close("}");
  }
}
