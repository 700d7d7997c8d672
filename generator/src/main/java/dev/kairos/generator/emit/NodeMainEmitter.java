package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Node;
import java.util.List;

/**
 * {@code <node>.main.cpp}: the node's own executable. It runs the node's program ({@link
 * NodeProgramEmitter}) with the node's command line.
 */
final class NodeMainEmitter {
  private NodeMainEmitter() {}

  static String fileName(Node node) {
    return FileLayout.nodeMain(node);
  }

  static GeneratedFile emit(Node node) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName(node), List.of(node.source().file())));
    w.line("#include <kairos/node.hpp>").blank();
    w.line("#include \"$header$\"", "header", FileLayout.nodeProgramHeader(node)).blank();
    w.line(Banner.origin(node.source()));
    w.open("int main(int argc, char** argv) {");
    w.line(
        "return ::kairos::run_node($ns$::kProgram, argc, argv);",
        "ns",
        ScheduleEmitter.namespace(node));
    w.close("}");
    return new GeneratedFile(fileName(node), w.text(), GeneratedFile.Kind.CPP);
  }
}
