package dev.kairos.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a command that builds the nodes generates them: the options it shares with generate. */
final class NodeSourceOptions {
  @Option(
      names = "--impl",
      paramLabel = "DIR",
      description =
          "hand-written method bodies, as for kairos generate (default: src/ beside the first model)")
  Path impl;

  @Option(
      names = "--clang-format",
      paramLabel = "COMMAND",
      description = "clang-format for the generated C++, as for kairos generate")
  String clangFormat;
}
