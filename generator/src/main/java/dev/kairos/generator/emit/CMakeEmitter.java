package dev.kairos.generator.emit;

import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Platform.OperatingSystem;
import dev.kairos.generator.ir.SystemModel;
import java.util.List;
import java.util.Locale;

/**
 * CMakeLists.txt: one executable per node, linked against the installed Kairos runtime for the
 * node's OS. Hand-written bodies come from KAIROS_IMPL_DIR, recorded relative to the output
 * directory so the file holds no machine-specific path; Kairos's strict warnings apply to the
 * generated sources only, so users' bodies get the compiler's defaults unless they opt in.
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
          node.os().name().toLowerCase(Locale.ROOT));
      final String runtime = "Kairos::runtime_" + node.os().name().toLowerCase(Locale.ROOT);
      final boolean optional = node.os() != OperatingSystem.LINUX;
      if (optional) {
        w.open("if(TARGET $runtime$)", "runtime", runtime);
      }
      final List<String> generatedSources = FileLayout.nodeSources(node);
      w.open("add_executable($node$", "node", node.name());
      for (String source : generatedSources) {
        w.line("$source$", "source", source);
      }
      for (String source : FileLayout.nodeUserSources(node)) {
        w.line("$${KAIROS_IMPL_DIR}/$source$", "source", source);
      }
      w.close(")");
      w.line(
          "target_include_directories($node$ PRIVATE $${CMAKE_CURRENT_SOURCE_DIR} $${KAIROS_IMPL_DIR})",
          "node",
          node.name());
      w.line(
          "target_link_libraries($node$ PRIVATE $runtime$)",
          "node",
          node.name(),
          "runtime",
          runtime);
      w.line("# Strict warnings for the generated sources; hand-written bodies get the compiler's");
      w.line("# defaults unless KAIROS_STRICT_BODIES is ON.");
      w.line(
          "kairos_strict_warnings($node$ SOURCES $sources$)",
          "node",
          node.name(),
          "sources",
          String.join(" ", generatedSources));
      if (optional) {
        w.outdented("else()");
        w.line(
            "message(STATUS \"node $node$: the Kairos runtime for $os$ is not installed; not built\")",
            "node",
            node.name(),
            "os",
            node.os().name().toLowerCase(Locale.ROOT));
        w.close("endif()");
      }
    }
    return new GeneratedFile(FILE, w.text(), GeneratedFile.Kind.TEXT);
  }
}
