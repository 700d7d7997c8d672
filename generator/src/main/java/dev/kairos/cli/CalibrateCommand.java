package dev.kairos.cli;

import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.CalibrationReports;
import dev.kairos.reports.calibrate.Calibration;
import dev.kairos.reports.calibrate.JsonText;
import dev.kairos.reports.calibrate.TimingRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kairos calibrate MODEL.tmo... RUN.json...}: measured execution times against the model's
 * WCETs, and the analysis once more with the measured figures (docs/cli.md). Exit codes as for
 * check: 0 every measured method within its WCET and schedulable with the measured figures, 1 a
 * WCET exceeded, not schedulable with them, or model errors, 2 usage errors and unreadable runs.
 */
@Command(
    name = "calibrate",
    mixinStandardHelpOptions = true,
    description =
        "Compares the execution times nodes measured (their --timings files, RUN.json) with the"
            + " model's WCETs, analyses the model again with the measured maxima plus a margin,"
            + " and can write the WCETs that were exceeded into the model. Give the model's .tmo"
            + " files and one or more .json timings files, in any order.")
final class CalibrateCommand extends ModelCommand {
  enum Format {
    text,
    json
  }

  @Option(
      names = "--margin",
      paramLabel = "PERCENT",
      defaultValue = "20%",
      description =
          // A format string: picocli escapes the default's % for it, and ours are doubled.
          "added to each measured maximum before the analysis uses it, e.g. 20%% or 12.5%%"
              + " (default: ${DEFAULT-VALUE})")
  String margin;

  @Option(
      names = "--format",
      defaultValue = "text",
      description = "text (a table per node) or json (times in integer nanoseconds)")
  Format format;

  @Option(
      names = "--update",
      description =
          "rewrite, in the model files, the wcet of every method whose measured maximum plus the"
              + " margin exceeds it (comments and layout kept), and say what changed")
  boolean update;

  @Option(
      names = "--only",
      paramLabel = "TMO.METHOD",
      description =
          "with --update, rewrite only the wcet of this method (repeatable; the TMO's name, with"
              + " or without its package, e.g. Controller.control)")
  List<String> only = new ArrayList<>();

  private static final Pattern PERCENT = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)%");
  private static final BigDecimal MAX_MARGIN = BigDecimal.TEN;

  @Override
  public Integer call() {
    final List<Path> models = new ArrayList<>();
    final List<Path> runFiles = new ArrayList<>();
    for (Path file : files) {
      final String name = String.valueOf(file.getFileName());
      if (name.endsWith(".tmo")) {
        models.add(file);
      } else if (name.endsWith(".json")) {
        runFiles.add(file);
      } else {
        err()
            .println(
                "kairos: error: "
                    + file
                    + " is neither a model (.tmo) nor a timings file (.json) of a node run");
        return KairosCli.USAGE;
      }
    }
    if (models.isEmpty() || runFiles.isEmpty()) {
      err()
          .println(
              "kairos: error: calibrate needs the model's .tmo files and at least one timings file"
                  + " (.json, written by a node run with --timings FILE)");
      return KairosCli.USAGE;
    }
    final Optional<BigDecimal> fraction = parseMargin(margin);
    if (fraction.isEmpty()) {
      err()
          .println(
              "kairos: error: --margin "
                  + margin
                  + ": give a percentage from 0% to 1000%, e.g. --margin 20%");
      return KairosCli.USAGE;
    }
    if (!only.isEmpty() && !update) {
      err().println("kairos: error: --only chooses which WCETs --update rewrites: give --update");
      return KairosCli.USAGE;
    }
    files = models;
    final ModelLoader loader = ModelLoader.create();
    final int[] exit = {KairosCli.OK};
    final Optional<ModelLoader.Loaded> loaded =
        loadAndReport(loader, exit, format != Format.text, false);
    if (loaded.isEmpty() || exit[0] != KairosCli.OK) {
      return exit[0];
    }
    lap("load and validate");
    final CheckPipeline.Lowered lowered = lower(loaded.get());
    lap("lower");
    if (!reportLowered(lowered.errors(), format != Format.text)) {
      return KairosCli.MODEL_ERRORS;
    }
    final SystemModel system = lowered.system();
    final List<TimingRun> runs = new ArrayList<>();
    for (Path file : runFiles) {
      final String text;
      try {
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException | RuntimeException e) {
        err().println("kairos: error: cannot read the timings file " + file + ": " + reason(e));
        return KairosCli.USAGE;
      }
      try {
        runs.add(TimingRun.parse(file.toString(), text));
      } catch (JsonText.Malformed e) {
        err().println("kairos: error: " + file + ":" + e.line() + ": " + e.getMessage());
        return KairosCli.USAGE;
      }
    }
    final Calibration.Result result;
    try {
      result = Calibration.calibrate(system, runs, fraction.get());
    } catch (Calibration.Mismatch e) {
      err().println("kairos: error: " + e.file() + ":" + e.line() + ": " + e.getMessage());
      return KairosCli.USAGE;
    }
    lap("read runs and analyse twice");
    final PrintWriter notes = format == Format.text ? out() : err();
    boolean updated = false;
    final List<Calibration.Update> chosen = chosen(result.updates(), notes);
    if (update && !chosen.isEmpty()) {
      try {
        final WcetRewriter.Outcome outcome =
            WcetRewriter.apply(loader, loaded.get(), models, chosen);
        for (WcetRewriter.Change change : outcome.changes()) {
          notes.println(
              "updated "
                  + change.file()
                  + ":"
                  + change.line()
                  + ": "
                  + change.method()
                  + " wcet "
                  + change.before()
                  + " -> "
                  + change.after());
        }
        for (Path file : outcome.leftAsWritten()) {
          notes.println(
              "note: "
                  + file.getFileName()
                  + " was not in the canonical layout, so only its wcet values changed"
                  + " (kairos format rewrites it whole)");
        }
        updated = !outcome.changes().isEmpty();
      } catch (IOException e) {
        err().println("kairos: error: cannot rewrite the model: " + reason(e));
        return KairosCli.USAGE;
      }
    } else if (update) {
      notes.println("no wcet needs raising: the model is unchanged");
    }
    if (format == Format.json) {
      out().print(CalibrationReports.json(result, updated));
    } else {
      out().print(CalibrationReports.text(result));
      if (!update && !result.updates().isEmpty()) {
        out().println("(kairos calibrate --update writes these WCETs into the model)");
      }
    }
    out().flush();
    notes.flush();
    reportTimings();
    return result.allWithinBounds() ? KairosCli.OK : KairosCli.MODEL_ERRORS;
  }

  /**
   * The updates --update writes: all of them, or those of the methods --only names (a name that
   * chooses none is said, since it may be misspelt).
   */
  private List<Calibration.Update> chosen(List<Calibration.Update> updates, PrintWriter notes) {
    if (only.isEmpty()) {
      return updates;
    }
    final List<Calibration.Update> chosen = new ArrayList<>();
    for (String name : only) {
      final List<Calibration.Update> named =
          updates.stream()
              .filter(
                  u -> {
                    final String full = u.tmo() + "." + u.method();
                    return full.equals(name) || full.endsWith("." + name);
                  })
              .toList();
      if (named.isEmpty()) {
        notes.println(
            "note: --only "
                + name
                + ": no wcet of that name needs raising (or the model has no such method)");
      }
      for (Calibration.Update update : named) {
        if (!chosen.contains(update)) {
          chosen.add(update);
        }
      }
    }
    return chosen;
  }

  /** "20%" as 0.2; empty for anything else, or beyond 1000%. */
  static Optional<BigDecimal> parseMargin(String text) {
    final Matcher matcher = PERCENT.matcher(text == null ? "" : text.trim());
    if (!matcher.matches()) {
      return Optional.empty();
    }
    final BigDecimal fraction = new BigDecimal(matcher.group(1)).movePointLeft(2);
    return fraction.compareTo(MAX_MARGIN) > 0 ? Optional.empty() : Optional.of(fraction);
  }

  private static String reason(Exception e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
