package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.MODEL_ERRORS;
import static dev.kairos.cli.KairosCli.OK;

import dev.kairos.reports.Diagnostic;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `kairos validate`: parses and validates models and prints their diagnostics. */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = "Parses and validates models; prints file:line:col: diagnostics.")
final class ValidateCommand extends ModelCommand {
  enum Format {
    text,
    sarif
  }

  @Option(
      names = "--format",
      defaultValue = "text",
      description = "text (file:line:col: diagnostics) or sarif (SARIF 2.1.0 for code scanning)")
  Format format;

  @Override
  public Integer call() {
    final int[] exit = {OK};
    final Optional<ModelLoader.Loaded> loaded =
        format == Format.text ? loadAndReport(exit, false) : loadQuietly(exit);
    if (loaded.isEmpty()) {
      return exit[0];
    }
    final List<Diagnostic> diagnostics = new ArrayList<>(loaded.get().diagnostics());
    if (exit[0] == OK) {
      // Errors only the lowered model shows (message sizes) are validation errors too.
      final List<Diagnostic> lowered = lower(loaded.get()).errors();
      if (!lowered.isEmpty()) {
        diagnostics.addAll(lowered);
        exit[0] = MODEL_ERRORS;
        if (format == Format.text) {
          reportLowered(lowered, false);
        }
      }
    }
    final int result = withWarningsAsErrors(exit[0], diagnostics);
    if (format == Format.sarif) {
      out().print(SarifReport.render(KairosCli.version(), shown(diagnostics), result));
      out().flush();
    }
    return result;
  }
}
