package dev.kairos.generator.emit;

import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Tmos.Spm;
import dev.kairos.generator.ir.Tmos.TmoClass;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

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

  static GeneratedFile emit(Node node) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName(node), List.of(node.source().file())));
    w.line("#include <kairos/binding.hpp>");
    w.line("#include <kairos/engine.hpp>");
    w.line("#include <kairos/node.hpp>").blank();
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
    w.line("const auto status = engine.run_for(options.duration,");
    w.line("    options.quiet ? nullptr : &::kairos::print_activation, nullptr);");
    w.line("::kairos::print_summary(kNode, engine.counters());");
    w.open("if (status != ::kairos::kal::Status::kOk) {");
    w.line(
        "::kairos::kal::report(::kairos::kal::Severity::kError, kNode, ::kairos::kal::to_string(status));");
    w.line("return 1;");
    w.close("}");
    w.line("return 0;");
    w.close("}");
    return new GeneratedFile(fileName(node), w.text(), GeneratedFile.Kind.CPP);
  }
}
