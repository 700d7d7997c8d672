package dev.kairos.generator.pipeline;

import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.generator.lowering.LoweredChecks;
import dev.kairos.generator.lowering.ModelLowering;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.Diagnostic;
import dev.kairos.timing.HolisticAnalysis;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.SchedulingAnalysis;
import dev.kairos.timing.TimingPlan;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.emf.common.util.URI;
import org.eclipse.xtext.diagnostics.Severity;
import org.eclipse.xtext.validation.Issue;

/**
 * The one way a system's models become a verdict, for `kairos` and the language server alike:
 * validation's errors stop it; the models are lowered to the IR; the lowered model's own checks
 * ({@link LoweredChecks}) stop it; then every node is analysed, and the chains across nodes by the
 * holistic analysis. Each caller loads and validates in its own way (the command line from files,
 * the server from its index) and hands the diagnostics over as {@link Diagnostic}s made by {@link
 * #diagnostic}; everything after that is here, in this order, so the two cannot disagree.
 */
public final class CheckPipeline {
  private CheckPipeline() {}

  /** What one run came to. */
  public sealed interface Outcome {}

  /** Validation found errors (sorted, errors only): nothing was lowered. */
  public record Invalid(List<Diagnostic> errors) implements Outcome {}

  /** The lowered model has problems of its own: nothing was analysed. */
  public record Refused(Lowered lowered) implements Outcome {}

  /** Every node analysed. */
  public record Analysed(SystemModel system, TimingPlan report) implements Outcome {}

  /** The models lowered, with what only the lowered model shows (empty: it may be analysed). */
  public record Lowered(SystemModel system, List<LoweredChecks.Problem> problems) {
    public boolean analysable() {
      return problems.isEmpty();
    }

    /** The problems as diagnostics, errors on the lines that caused them. */
    public List<Diagnostic> errors() {
      return problems.stream().map(LoweredChecks.Problem::diagnostic).toList();
    }
  }

  /**
   * The whole check of validated models.
   *
   * @param systemName the C++-safe name of the system (its first file, or its workspace folder)
   * @param fileNames how reports name each model's file
   * @param validation what validating the models found (warnings and notes are passed over)
   * @param withoutJitter each node's analysis without release jitter: a caller that keeps the
   *     reports of nodes that did not change gives them here
   * @param beforeAnalysis given the lowered system once its checks pass, before the analysis: a
   *     caller timing the phases ends one there; the language server analyses there, one by one,
   *     the nodes it has no report of, so that a newer edit can stop it between two
   */
  public static Outcome check(
      String systemName,
      List<Model> models,
      Function<URI, String> fileNames,
      List<Diagnostic> validation,
      Function<Node, NodePlan> withoutJitter,
      Consumer<SystemModel> beforeAnalysis) {
    final List<Diagnostic> errors =
        validation.stream()
            .filter(d -> d.severity() == Diagnostic.Severity.ERROR)
            .sorted(Diagnostic.ORDER)
            .toList();
    if (!errors.isEmpty()) {
      return new Invalid(errors);
    }
    final Lowered system = lower(systemName, models, fileNames);
    if (!system.analysable()) {
      return new Refused(system);
    }
    beforeAnalysis.accept(system.system());
    return new Analysed(system.system(), HolisticAnalysis.analyse(system.system(), withoutJitter));
  }

  /** As {@link #check(String, List, Function, List, Function, Consumer)}, every node afresh. */
  public static Outcome check(
      String systemName,
      List<Model> models,
      Function<URI, String> fileNames,
      List<Diagnostic> validation,
      Consumer<SystemModel> beforeAnalysis) {
    return check(
        systemName, models, fileNames, validation, SchedulingAnalysis::analyse, beforeAnalysis);
  }

  /** The models as one system, and the problems of the lowered model. */
  public static Lowered lower(
      String systemName, List<Model> models, Function<URI, String> fileNames) {
    final SystemModel system = new ModelLowering(fileNames).lower(systemName, models);
    return new Lowered(system, LoweredChecks.of(system));
  }

  /**
   * A validation issue as a diagnostic of {@code file}: the one conversion, so that a problem has
   * the same place, severity and code on the command line and in the editor's report. Xtext's own
   * syntax and linking codes get short, stable names; a missing line or column is 1.
   */
  public static Diagnostic diagnostic(String file, Issue issue) {
    final Diagnostic.Severity severity =
        issue.getSeverity() == Severity.ERROR
            ? Diagnostic.Severity.ERROR
            : issue.getSeverity() == Severity.WARNING
                ? Diagnostic.Severity.WARNING
                : Diagnostic.Severity.INFO;
    final int line = issue.getLineNumber() == null ? 1 : issue.getLineNumber();
    final int column = issue.getColumn() == null ? 1 : issue.getColumn();
    final int endLine = issue.getLineNumberEnd() == null ? line : issue.getLineNumberEnd();
    final int endColumn = issue.getColumnEnd() == null ? column : issue.getColumnEnd();
    return new Diagnostic(
        file,
        line,
        column,
        endLine,
        endColumn,
        severity,
        issue.getMessage(),
        IssueCodes.stable(issue.getCode()));
  }
}
