package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `kairos format`: rewrites models in the canonical layout, or lists those that differ. */
@Command(
    name = "format",
    mixinStandardHelpOptions = true,
    description =
        "Rewrites models in the canonical layout (or, with --check, lists those that differ).")
final class FormatCommand extends ModelCommand {
  @Option(names = "--check", description = "change nothing; exit 1 if a file is not formatted")
  boolean check;

  @Override
  public Integer call() throws IOException {
    final int[] exit = {OK};
    final ModelLoader loader = ModelLoader.create();
    final Optional<ModelLoader.Loaded> loaded = loadAndReport(loader, exit, false, true);
    if (loaded.isEmpty() || exit[0] != OK) {
      if (exit[0] == MODEL_ERRORS) {
        err().println("kairos: files with syntax errors are not formatted");
      }
      return exit[0];
    }
    int unformatted = 0;
    for (Path file : files) {
      final String original = java.nio.file.Files.readString(file);
      final String formatted = loader.format(file);
      if (original.equals(formatted)) {
        continue;
      }
      unformatted++;
      if (check) {
        out().println("not formatted: " + file);
      } else {
        java.nio.file.Files.writeString(file, formatted);
        out().println("formatted " + file);
      }
    }
    return check && unformatted > 0 ? MODEL_ERRORS : OK;
  }
}
