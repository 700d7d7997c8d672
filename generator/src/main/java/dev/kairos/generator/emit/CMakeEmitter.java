package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.DistributedSystem;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Platform.OperatingSystem;
import dev.kairos.ir.SystemModel;
import java.util.List;
import java.util.Locale;

/**
 * CMakeLists.txt: one executable per node, linked against the installed Kairos runtime for the
 * node's OS, and one per system whose nodes all run on sim, which runs them in one process.
 * Hand-written bodies come from KAIROS_IMPL_DIR, recorded relative to the output directory so the
 * file holds no machine-specific path. Each executable is made by the package's {@code
 * kairos_node_executable}: Kairos's strict warnings apply to the generated sources only, so users'
 * bodies get the compiler's defaults unless they opt in.
 */
final class CMakeEmitter {
  static final String FILE = FileLayout.CMAKE;

  /** The library of idlc's C code for the channels' IDL. */
  private static final String CHANNELS_IDL_TARGET = "kairos_channels_idl";

  private CMakeEmitter() {}

  static GeneratedFile emit(SystemModel system, List<String> modelFiles, String implDirFromOutput) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cmake(modelFiles));
    w.line("cmake_minimum_required(VERSION 3.25)");
    w.line("project($name$_nodes LANGUAGES CXX)", "name", system.modelName()).blank();
    w.line("set(CMAKE_CXX_STANDARD 20)");
    w.line("set(CMAKE_CXX_STANDARD_REQUIRED ON)");
    w.line("set(CMAKE_CXX_EXTENSIONS OFF)");
    w.line("# Nodes are measured and deployed optimised, as the runtime is built: without a build");
    w.line("# type the runtime's headers would be compiled into each node unoptimised.");
    w.line("if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)");
    w.line("  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING \"Build type\" FORCE)");
    w.line("endif()").blank();
    w.line("find_package(Kairos 0.1 REQUIRED)").blank();
    w.line(
        "set(KAIROS_IMPL_DIR \"$${CMAKE_CURRENT_SOURCE_DIR}/$dir$\" CACHE PATH",
        "dir",
        implDirFromOutput);
    w.line("    \"Directory of the hand-written method bodies (<package>/<Tmo>.hpp and .cpp)\")");
    final boolean dds = system.nodes().stream().anyMatch(n -> ChannelEmitter.onDds(system, n));
    if (dds) {
      w.blank();
      w.line("# RMMC channels on Eclipse Cyclone DDS: idlc compiles the payload types' IDL into C");
      w.line("# types and topic descriptors, built into each node that joins the DDS domain.");
      w.line("enable_language(C)");
      w.line("find_package(CycloneDDS REQUIRED)");
      w.line("# A node's --probe times the channel transport through DDS with Kairos::probe_dds.");
      w.line("if(NOT TARGET Kairos::probe_dds)");
      w.line(
          "  message(FATAL_ERROR \"the Kairos runtime found here was built without Cyclone DDS:"
              + " build it where cyclonedds-dev and cyclonedds-tools are installed\")");
      w.line("endif()");
      w.line(
          "idlc_generate(TARGET $target$ FILES \"$${CMAKE_CURRENT_SOURCE_DIR}/$idl$\")",
          "target",
          CHANNELS_IDL_TARGET,
          "idl",
          FileLayout.CHANNELS_IDL);
    }
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
      executable(
          w,
          node.name(),
          "node " + node.name(),
          node.os(),
          FileLayout.nodeSources(node),
          FileLayout.userSources(List.of(node)),
          ChannelEmitter.onDds(system, node)
              ? List.of(CHANNELS_IDL_TARGET, "CycloneDDS::ddsc", "Kairos::probe_dds")
              : List.of());
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
      executable(
          w,
          distributed.name(),
          "system " + distributed.name(),
          OperatingSystem.SIM,
          FileLayout.systemSources(distributed, nodes),
          FileLayout.userSources(nodes),
          List.of());
    }
    return new GeneratedFile(FILE, w.text(), GeneratedFile.Kind.TEXT);
  }

  /**
   * An executable linked against the runtime for {@code os} and {@code libraries}, made by the
   * package's {@code kairos_node_executable} (strict warnings on the generated sources, the
   * runtime's headers precompiled); built only where that runtime is installed, except Linux's,
   * which every build has.
   */
  private static void executable(
      CodeWriter w,
      String target,
      String what,
      OperatingSystem os,
      List<String> generatedSources,
      List<String> userSources,
      List<String> libraries) {
    final boolean optional = os != OperatingSystem.LINUX;
    if (optional) {
      w.open("if(TARGET Kairos::runtime_$os$)", "os", osName(os));
    }
    w.open("kairos_node_executable($target$ PLATFORM $os$", "target", target, "os", osName(os));
    w.line("GENERATED");
    for (String source : generatedSources) {
      w.line("  $source$", "source", source);
    }
    if (!userSources.isEmpty()) {
      w.line("BODIES");
      for (String source : userSources) {
        w.line("  $${KAIROS_IMPL_DIR}/$source$", "source", source);
      }
    }
    w.line("INCLUDE_DIRECTORIES $${CMAKE_CURRENT_SOURCE_DIR} $${KAIROS_IMPL_DIR}");
    if (!libraries.isEmpty()) {
      w.line("LIBRARIES $libraries$", "libraries", String.join(" ", libraries));
    }
    w.close(")");
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
