package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;
import static dev.kairos.cli.KairosCli.USAGE;

import dev.kairos.generator.emit.ClangFormat;
import dev.kairos.generator.emit.CppGenerator;
import dev.kairos.generator.emit.FileLayout;
import dev.kairos.generator.emit.GeneratedFile;
import dev.kairos.generator.emit.GenerationManifest;
import dev.kairos.generator.emit.HandWrittenSignatures;
import dev.kairos.generator.emit.OutputWriter;
import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.reports.CheckReports;
import dev.kairos.timing.TimingPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `kairos generate`: checks models, then writes the C++ project of every node. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = "Validates and checks models, then generates the C++ project of every node.")
final class GenerateCommand extends ModelCommand {
  @Option(
      names = {"-o", "--output"},
      required = true,
      paramLabel = "DIR",
      description =
          "directory for generated code (created if missing); files an earlier run generated"
              + " there and this one does not are removed (DIR/kairos.manifest lists them)")
  Path output;

  @Option(
      names = "--impl",
      paramLabel = "DIR",
      description =
          "directory of hand-written method bodies (default: src/ beside the first model);"
              + " starter files are written there only where none exist")
  Path impl;

  @Option(
      names = "--allow-unschedulable",
      description = "generate even when `kairos check` would fail")
  boolean allowUnschedulable;

  @Option(
      names = "--clang-format",
      paramLabel = "COMMAND",
      description =
          "clang-format to format generated C++ with; it must be the pinned version (default:"
              + " $KAIROS_CLANG_FORMAT, else the one installed with kairos, or in a checkout the"
              + " one `make setup` installs; never the PATH's)")
  String clangFormat;

  @Option(
      names = "--outputs",
      paramLabel = "FILE",
      description =
          "also write FILE, JSON for build systems: the files this run generates, the starters"
              + " and each node's sources (rewritten only when that list changes)")
  Path outputsFile;

  @Option(
      names = "--depfile",
      paramLabel = "FILE",
      description =
          "also write FILE, a Make-style depfile: the --outputs FILE (else the manifest)"
              + " depends on the model files and on kairos itself")
  Path depfile;

  @Override
  public Integer call() throws IOException {
    if (outputsFile != null && Files.isDirectory(outputsFile)) {
      err().println("kairos: error: --outputs " + outputsFile + ": is a directory");
      return USAGE;
    }
    if (depfile != null && Files.isDirectory(depfile)) {
      err().println("kairos: error: --depfile " + depfile + ": is a directory");
      return USAGE;
    }
    for (Path directory : impl == null ? List.of(output) : List.of(output, impl)) {
      if (Files.exists(directory) && !Files.isDirectory(directory)) {
        err()
            .println(
                "kairos: error: "
                    + (directory == output ? "-o " : "--impl ")
                    + directory
                    + ": exists and is not a directory");
        return USAGE;
      }
    }
    final int[] exit = {OK};
    final Optional<ModelLoader.Loaded> loaded = loadAndReport(exit, false);
    if (loaded.isEmpty() || exit[0] != OK) {
      if (exit[0] == MODEL_ERRORS) {
        err().println("kairos: nothing generated");
      }
      return exit[0];
    }
    if (withWarningsAsErrors(OK, loaded.get().diagnostics()) != OK) {
      err().println("kairos: nothing generated");
      return MODEL_ERRORS;
    }
    lap("load and validate");
    final Optional<CheckPipeline.Analysed> analysed =
        analysed(loaded.get(), false, "kairos: nothing generated");
    if (analysed.isEmpty()) {
      return MODEL_ERRORS;
    }
    final SystemModel system = analysed.get().system();
    final TimingPlan report = analysed.get().report();
    lap("analyse");
    if (!report.schedulable() && !allowUnschedulable) {
      err().print(CheckReports.text(report));
      err()
          .println(
              "kairos: error: the model is not schedulable; nothing generated"
                  + " (see `kairos check`, or pass --allow-unschedulable)");
      return MODEL_ERRORS;
    }
    if (!report.schedulable()) {
      err()
          .println(
              "kairos: warning: the model is not schedulable ("
                  + String.join(", ", unschedulableParts(report))
                  + "); generated anyway, as --allow-unschedulable asks: its deadlines may be"
                  + " missed at run time (see `kairos check`)");
    }
    final Path outputDir = output.toAbsolutePath().normalize();
    final Path implDir =
        (impl != null ? impl : files.get(0).toAbsolutePath().getParent().resolve("src"))
            .toAbsolutePath()
            .normalize();
    final String implFromOutput = outputDir.relativize(implDir).toString().replace('\\', '/');
    final CppGenerator.Output generated =
        CppGenerator.generate(system, report, implFromOutput.isEmpty() ? "." : implFromOutput);
    lap("emit " + (generated.generated().size() + generated.userStarters().size()) + " files");

    final ClangFormat formatter;
    try {
      formatter = ClangFormat.pinned(clangFormat);
    } catch (ClangFormat.Unavailable e) {
      err().println("kairos: error: " + e.getMessage());
      err().println("kairos: nothing generated");
      return USAGE;
    }
    final List<String> clashes =
        OutputWriter.clashes(
            List.of(
                new OutputWriter.Root(outputDir, generated.generated()),
                new OutputWriter.Root(implDir, generated.userStarters())));
    if (!clashes.isEmpty()) {
      clashes.forEach(clash -> err().println("kairos: error: " + clash));
      err().println("kairos: nothing generated");
      return MODEL_ERRORS;
    }
    final List<GeneratedFile> files = format(generated.generated(), formatter);
    final List<GeneratedFile> starters = format(generated.userStarters(), formatter);
    lap("format with clang-format " + ClangFormat.VERSION);
    final List<OutputWriter.Written> written = new ArrayList<>();
    try {
      GenerationManifest.begin(outputDir, files);
      written.addAll(OutputWriter.write(outputDir, files));
      written.addAll(OutputWriter.write(implDir, starters));
      written.addAll(
          GenerationManifest.finish(
              outputDir, files, starters.stream().map(s -> implDir.resolve(s.path())).toList()));
      writeBuildFiles(
          new BuildFiles.Generation(system, this.files, outputDir, implDir, files, starters));
    } catch (IOException e) {
      err().println("kairos: error: cannot write the generated files: " + reason(e));
      return USAGE;
    }
    for (OutputWriter.Written file : written) {
      final String what =
          switch (file.outcome()) {
            case WRITTEN -> "wrote";
            case UNCHANGED -> "unchanged";
            case KEPT_USER_FILE -> "kept";
            case REMOVED -> "removed";
          };
      out().println(String.format("%-9s %s", what, shown(file.path())));
    }
    lap("write " + written.size() + " files");
    final int stale = warnAboutStaleHeaders(system, loaded.get(), implDir, written);
    reportTimings();
    if (werror && stale > 0) {
      err().println("kairos: " + stale + " warning(s) treated as errors (--werror)");
      return MODEL_ERRORS;
    }
    return OK;
  }

  /** The files --outputs and --depfile ask for, once everything else is written. */
  private void writeBuildFiles(BuildFiles.Generation generation) throws IOException {
    if (outputsFile != null) {
      BuildFiles.write(outputsFile, BuildFiles.outputs(generation));
    }
    if (depfile != null) {
      final Path target =
          outputsFile != null ? outputsFile : generation.outputDir().resolve(FileLayout.MANIFEST);
      BuildFiles.write(depfile, BuildFiles.depfile(target, this.files));
    }
  }

  /**
   * Hand-written headers that were kept are compared with the bases just generated: a method the
   * model added or dropped, or whose segment view appeared or went away, is named with its model
   * line and the files to change, so the compiler's complaint has its cause beside it.
   */
  private int warnAboutStaleHeaders(
      SystemModel system,
      ModelLoader.Loaded loaded,
      Path implDir,
      List<OutputWriter.Written> written) {
    // Model lines are kept portable in the IR; warnings name the files as they were given.
    final Map<String, String> shownFiles = new HashMap<>();
    for (Path file : files) {
      final String portable =
          loaded
              .portableNames()
              .get(
                  org.eclipse.emf.common.util.URI.createFileURI(
                      file.toAbsolutePath().normalize().toString()));
      if (portable != null) {
        shownFiles.putIfAbsent(portable, file.normalize().toString());
      }
    }
    int warnings = 0;
    for (TmoClass tmo : system.tmos()) {
      final Path header = implDir.resolve(FileLayout.userHeader(tmo));
      final boolean kept =
          written.stream()
              .anyMatch(
                  w ->
                      w.outcome() == OutputWriter.Outcome.KEPT_USER_FILE
                          && w.path().equals(header));
      if (!kept || !Files.isRegularFile(header)) {
        continue;
      }
      final String text;
      try {
        text = Files.readString(header, StandardCharsets.UTF_8);
      } catch (IOException e) {
        continue; // not text this check can read; the compiler will judge it
      }
      for (HandWrittenSignatures.Mismatch mismatch :
          HandWrittenSignatures.check(
              tmo,
              shown(header).toString(),
              shown(implDir.resolve(FileLayout.userSource(tmo))).toString(),
              text)) {
        warnings++;
        if (quiet) {
          continue;
        }
        err()
            .println(
                shownFiles.getOrDefault(mismatch.source().file(), mismatch.source().file())
                    + ":"
                    + mismatch.source().line()
                    + ": warning: "
                    + mismatch.message());
      }
    }
    return warnings;
  }

  /** A path relative to the working directory where it lies below it, as written. */
  private static Path shown(Path path) {
    final Path workingDirectory = Path.of("").toAbsolutePath();
    return path.startsWith(workingDirectory) ? workingDirectory.relativize(path) : path;
  }

  private static List<GeneratedFile> format(List<GeneratedFile> files, ClangFormat formatter)
      throws IOException {
    final List<GeneratedFile> cpp = files.stream().filter(GeneratedFile::needsFormatting).toList();
    final List<String> formatted =
        formatter.formatAll(
            cpp.stream().map(GeneratedFile::path).toList(),
            cpp.stream().map(GeneratedFile::content).toList());
    final List<GeneratedFile> result = new ArrayList<>();
    int next = 0;
    for (GeneratedFile file : files) {
      result.add(
          file.needsFormatting()
              ? new GeneratedFile(file.path(), formatted.get(next++), file.kind())
              : file);
    }
    return result;
  }

  /** What makes a report not schedulable, named: nodes, remote calls, chains, service rates. */
  private static List<String> unschedulableParts(TimingPlan report) {
    final List<String> parts = new ArrayList<>();
    report.nodes().stream()
        .filter(n -> !n.schedulable())
        .forEach(n -> parts.add("node " + n.node().name()));
    report.gates().stream()
        .filter(g -> !g.meets())
        .forEach(g -> parts.add("remote call " + g.caller() + "." + g.gate()));
    report.chains().stream()
        .filter(c -> c.hard() && !c.meets())
        .forEach(c -> parts.add("chain " + c.name()));
    report.rates().stream()
        .filter(r -> !r.meets())
        .forEach(r -> parts.add("the callers of " + r.callee() + " beyond its max-rate"));
    if (!report.holistic().converged() || !report.holistic().complete()) {
      parts.add("the holistic analysis");
    }
    return parts;
  }
}
