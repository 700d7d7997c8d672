package dev.kairos.generator.emit;

import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.DistributedSystem;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Platform.OperatingSystem;
import dev.kairos.generator.ir.SystemModel;
import dev.kairos.generator.ir.Tmos.TmoClass;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * CMakeLists.txt: one executable per node, linked against the installed Kairos runtime for the
 * node's OS, and one per system whose nodes all run on sim, which runs them in one process.
 * Hand-written bodies come from KAIROS_IMPL_DIR, recorded relative to the output directory so the
 * file holds no machine-specific path.
 */
final class CMakeEmitter {
  static final String FILE = FileLayout.CMAKE;

  private CMakeEmitter() {}

  static GeneratedFile emit(SystemModel system, List<String> modelFiles, String implDirFromOutput) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cmake(modelFiles));
    w.line("cmake_minimum_required(VERSION 3.25)");
    w.line("project($name$_nodes LANGUAGES CXX)", "name", system.modelName()).blank();
    w.line("set(CMAKE_CXX_STANDARD 20)");
    w.line("set(CMAKE_CXX_STANDARD_REQUIRED ON)");
    w.line("set(CMAKE_CXX_EXTENSIONS OFF)").blank();
    w.line("find_package(Kairos 0.1 REQUIRED)").blank();
    w.line(
        "set(KAIROS_IMPL_DIR \"$${CMAKE_CURRENT_SOURCE_DIR}/$dir$\" CACHE PATH",
        "dir",
        implDirFromOutput);
    w.line("    \"Directory of the hand-written method bodies (<package>/<Tmo>.hpp and .cpp)\")");
    for (Node node : system.nodes()) {
      w.blank();
      w.line(
          "# node $node$ (from $source$): os $os$",
          "node",
          node.name(),
          "source",
          node.source(),
          "os",
          osName(node.os()));
      final List<String> sources = new ArrayList<>();
      sources.add(NodeMainEmitter.fileName(node));
      sources.add(FileLayout.nodeProgram(node));
      sources.addAll(userSources(List.of(node)));
      executable(w, node.name(), "node " + node.name(), node.os(), sources);
    }
    for (DistributedSystem distributed : SystemMainEmitter.inOneProcess(system)) {
      final List<Node> nodes = SystemMainEmitter.nodesOf(system, distributed);
      w.blank();
      w.line(
          "# system $system$ (from $source$): its nodes $nodes$ in one process, on sim",
          "system",
          distributed.name(),
          "source",
          distributed.source(),
          "nodes",
          String.join(", ", distributed.nodes()));
      final List<String> sources = new ArrayList<>();
      sources.add(FileLayout.systemMain(distributed));
      nodes.forEach(n -> sources.add(FileLayout.nodeProgram(n)));
      sources.addAll(userSources(nodes));
      executable(
          w, distributed.name(), "system " + distributed.name(), OperatingSystem.SIM, sources);
    }
    return new GeneratedFile(FILE, w.text(), GeneratedFile.Kind.TEXT);
  }

  /** The hand-written sources of the TMO classes the nodes deploy, each once. */
  private static List<String> userSources(List<Node> nodes) {
    final Set<TmoClass> classes = new LinkedHashSet<>();
    for (Node node : nodes) {
      for (Deployment deployment : node.deployments()) {
        classes.add(deployment.tmo());
      }
    }
    final List<String> sources = new ArrayList<>();
    for (TmoClass tmo : classes) {
      sources.add("${KAIROS_IMPL_DIR}/" + UserCodeEmitter.sourceName(tmo));
    }
    return sources;
  }

  /**
   * An executable linked against the runtime for {@code os}; built only where that runtime is
   * installed, except Linux's, which every build has.
   */
  private static void executable(
      CodeWriter w, String target, String what, OperatingSystem os, List<String> sources) {
    final String runtime = "Kairos::runtime_" + osName(os);
    final boolean optional = os != OperatingSystem.LINUX;
    if (optional) {
      w.open("if(TARGET $runtime$)", "runtime", runtime);
    }
    w.open("add_executable($target$", "target", target);
    for (String source : sources) {
      w.line("$source$", "source", source);
    }
    w.close(")");
    w.line(
        "target_include_directories($target$ PRIVATE $${CMAKE_CURRENT_SOURCE_DIR} $${KAIROS_IMPL_DIR})",
        "target",
        target);
    w.line(
        "target_link_libraries($target$ PRIVATE $runtime$)", "target", target, "runtime", runtime);
    w.line("kairos_strict_warnings($target$)", "target", target);
    if (optional) {
      w.outdented("else()");
      w.line(
          "message(STATUS \"$what$: the Kairos runtime for $os$ is not installed; not built\")",
          "what",
          what,
          "os",
          osName(os));
      w.close("endif()");
    }
  }

  private static String osName(OperatingSystem os) {
    return os.name().toLowerCase(Locale.ROOT);
  }
}
