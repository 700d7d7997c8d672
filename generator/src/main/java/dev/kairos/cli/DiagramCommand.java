package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;
import static dev.kairos.cli.KairosCli.USAGE;

import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `kairos diagram`: the system's architecture as SVG, laid out by ELK. */
@Command(
    name = "diagram",
    mixinStandardHelpOptions = true,
    description =
        "Validates and analyses models, then draws their architecture as SVG: nodes with their"
            + " TMOs, gates, channels and networks, laid out by the Eclipse Layout Kernel.")
final class DiagramCommand extends ModelCommand {
  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "write the SVG to FILE (parent directories are created); default: stdout")
  Path output;

  @Override
  public Integer call() {
    if (output != null && Files.isDirectory(output)) {
      err().println("kairos: error: -o " + output + ": is a directory");
      return USAGE;
    }
    final int[] exit = {OK};
    final Optional<ModelLoader.Loaded> loaded = loadAndReport(exit, true);
    if (loaded.isEmpty() || exit[0] != OK) {
      if (exit[0] == MODEL_ERRORS) {
        err().println("kairos: no diagram drawn");
      }
      return exit[0];
    }
    lap("load and validate");
    // The analysis gives the verdicts and the gates' worst round trips the diagram shows.
    final Optional<CheckPipeline.Analysed> analysed =
        analysed(loaded.get(), true, "kairos: no diagram drawn");
    if (analysed.isEmpty()) {
      return MODEL_ERRORS;
    }
    final SystemModel system = analysed.get().system();
    final TimingPlan report = analysed.get().report();
    lap("analyse");
    final String svg = ArchitectureDiagrams.svg(system, report);
    lap("lay out and draw");
    if (output == null) {
      out().print(svg);
      out().flush();
    } else {
      try {
        final Path parent = output.toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        Files.writeString(output, svg, StandardCharsets.UTF_8);
      } catch (IOException e) {
        err().println("kairos: error: cannot write the diagram " + output + ": " + reason(e));
        return USAGE;
      }
      out().println("wrote " + output);
    }
    reportTimings();
    return OK;
  }
}
