package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.generator.emit.CppGenerator;
import dev.kairos.generator.emit.GeneratedFile;
import dev.kairos.generator.lowering.ModelLowering;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.HolisticAnalysis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A system whose nodes all run on sim gets one more executable, which runs them in one process on
 * the model's networks; a system with a Linux node does not, and gates never cross from one kind of
 * network to the other.
 */
class SimSystemOutputTest {
  @TempDir Path temp;

  private static final String MODEL =
      "package plant\n"
          + "tmo Server { svm get gct 2 ms wcet 100 us max-rate 100 Hz; }\n"
          + "tmo Client {\n"
          + "  eac { gate server -> Server.get deadline 3 ms; }\n"
          + "  spm poll for t = from 0 s to forever every 20 ms start-during (t, t + 1 ms)"
          + " finish-by t + 15 ms wcet 1 ms calls server;\n"
          + "}\n"
          + "tmo Console {\n"
          + "  eac { gate server -> Server.get deadline 3 ms; }\n"
          + "  spm poll for t = from 0 s to forever every 20 ms start-during (t, t + 1 ms)"
          + " finish-by t + 15 ms wcet 1 ms calls server;\n"
          + "}\n"
          + "node a { os sim endpoint \"uds:/sim/a\" deploy Client as client }\n"
          + "node b { os sim endpoint \"tcp:10.0.0.2:7000\" deploy Server as server }\n"
          + "node c { os linux endpoint \"tcp:127.0.0.1:7001\" deploy Console as console }\n"
          + "network lan { latency 100 us; jitter 50 us; bandwidth 1.5 Mbps; connects a, b, c; }\n"
          + "system Plant { nodes a, b; }\n"
          + "system Mixed { nodes b, c; }\n";

  private Map<String, String> generate() throws Exception {
    final Path model = temp.resolve("plant.tmo");
    Files.writeString(model, MODEL, StandardCharsets.UTF_8);
    final ModelLoader.Loaded loaded = ModelLoader.create().load(List.of(model));
    assertFalse(loaded.hasErrors(), loaded.diagnostics().toString());
    final SystemModel system =
        new ModelLowering(uri -> "plant.tmo").lower("plant", loaded.models());
    return CppGenerator.generate(system, HolisticAnalysis.analyse(system), "../src")
        .generated()
        .stream()
        .collect(Collectors.toMap(GeneratedFile::path, GeneratedFile::content));
  }

  @Test
  void aSystemOfSimNodesRunsThemInOneProcessOnTheModelsNetwork() throws Exception {
    final Map<String, String> files = generate();
    assertTrue(files.containsKey("Plant.system.cpp"), files.keySet().toString());
    assertFalse(
        files.containsKey("Mixed.system.cpp"), "a system with a Linux node runs as processes");

    final String main = files.get("Plant.system.cpp");
    assertTrue(main.contains("#include \"a.node.hpp\"\n#include \"b.node.hpp\"\n"), main);
    assertTrue(main.contains("kNodes{&a_node::kProgram,"), main);
    assertTrue(main.contains("&b_node::kProgram};"), main);
    assertTrue(
        main.contains("// network lan: latency 100 us, jitter 50 us, bandwidth 1500 kbps"), main);
    assertTrue(
        main.contains(
            "kLinkLan{.latency = ::kairos::kal::Duration{100000}, .jitter ="
                + " ::kairos::kal::Duration{50000}, .bits_per_second = 1500000};"),
        main);
    assertTrue(main.contains("{\"uds:/sim/a\", kLinkLan},  // node a on network lan"), main);
    assertTrue(main.contains("{\"tcp:10.0.0.2:7000\", kLinkLan},  // node b on network lan"), main);
    assertTrue(main.contains("return ::kairos::run_system(kSystem, kNodes, options);"), main);

    final String cmake = files.get("CMakeLists.txt");
    assertTrue(
        cmake.contains(
            "  kairos_node_executable(Plant PLATFORM sim\n"
                + "    GENERATED\n"
                + "      Plant.system.cpp\n"
                + "      a.node.cpp\n"
                + "      b.node.cpp\n"
                + "    BODIES\n"
                + "      ${KAIROS_IMPL_DIR}/plant/Client.cpp\n"
                + "      ${KAIROS_IMPL_DIR}/plant/Server.cpp\n"
                + "    INCLUDE_DIRECTORIES ${CMAKE_CURRENT_SOURCE_DIR} ${KAIROS_IMPL_DIR}\n"
                + "  )\n"),
        cmake);
  }

  @Test
  void aNodeOthersCallServesTheirLastCallsAfterItsRunEnds() throws Exception {
    final Map<String, String> files = generate();
    // b serves the pollers: an activation released just before the end calls it by its deadline
    // of 15 ms, and the call is answered within the gate's 3 ms, so b takes requests in 18 ms more.
    final String server = files.get("b.node.cpp");
    assertTrue(
        server.contains("constexpr ::std::chrono::nanoseconds kServeAfterEnd{18000000};"), server);
    assertTrue(server.contains("b_node::kSimulated, kServeAfterEnd)"), server);
    // a serves no one: its run ends at its end.
    final String client = files.get("a.node.cpp");
    assertFalse(client.contains("kServeAfterEnd"), client);
  }

  @Test
  void gatesReachNodesOnTheSameKindOfNetworkOnly() throws Exception {
    final Map<String, String> files = generate();
    // A sim node calls a sim node over the simulated network, and meets it before its run.
    final String client = files.get("a.node.cpp");
    assertTrue(client.contains("orb.add_peer(\"tcp:10.0.0.2:7000\", peer_b)"), client);
    assertTrue(client.contains(".meet_peers = &meet_peers"), client);
    // A Linux process cannot reach a node simulated in another process.
    final String console = files.get("c.node.cpp");
    assertFalse(console.contains("add_peer"), console);
    assertTrue(
        console.contains(
            "// gate console.server is not bound: node b runs on sim, this node on linux."),
        console);
    assertTrue(console.contains(".meet_peers = nullptr"), console);
    assertEquals(
        "// c.main.cpp — generated by kairos from plant.tmo. Do not edit.\n"
            + "#include <kairos/node.hpp>\n\n"
            + "#include \"c.node.hpp\"\n\n"
            + "// from plant.tmo:13\n"
            + "int main(int argc, char** argv) {\n"
            + "  return ::kairos::run_node(c_node::kProgram, argc, argv);\n"
            + "}\n",
        files.get("c.main.cpp"));
  }
}
