package dev.kairos.languageserver.services;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.Duration;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.PeriodicAac;
import dev.kairos.dsl.kairos.Spm;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.TimePoint;
import dev.kairos.dsl.kairos.Window;
import dev.kairos.dsl.units.Quantities;
import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.generator.verdicts.ModelElements;
import dev.kairos.languageserver.live.AnalysisSnapshot;
import dev.kairos.languageserver.live.LatestAnalysis;
import dev.kairos.languageserver.live.SchedulabilityDiagnostic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.lsp4j.CodeAction;
import org.eclipse.lsp4j.CodeActionKind;
import org.eclipse.lsp4j.CodeActionParams;
import org.eclipse.lsp4j.Command;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.TextEdit;
import org.eclipse.lsp4j.WorkspaceEdit;
import org.eclipse.lsp4j.jsonrpc.messages.Either;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.ide.server.Document;
import org.eclipse.xtext.ide.server.codeActions.ICodeActionService2;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;
import org.eclipse.xtext.resource.EObjectAtOffsetHelper;
import org.eclipse.xtext.resource.XtextResource;

/**
 * Quick fixes for the diagnostics whose remedy is a number the model already knows: widen a
 * deadline (or raise a GCT) to the analysed response time, raise a GCT to the WCET, pull a deadline
 * back to the next release, widen a deadline until the WCET fits. Each replaces one time of the
 * model with a new one, written exactly, in the largest unit that keeps it whole.
 */
public class KairosCodeActions implements ICodeActionService2 {
  @Inject private LatestAnalysis latest;
  @Inject private EObjectAtOffsetHelper elementAt;

  @Override
  public List<Either<Command, CodeAction>> getCodeActions(Options options) {
    final CodeActionParams params = options.getCodeActionParams();
    if (params.getContext() == null || params.getContext().getDiagnostics() == null) {
      return List.of();
    }
    return options
        .getLanguageServerAccess()
        .doSyncRead(
            options.getURI(),
            context -> {
              final List<Either<Command, CodeAction>> actions = new ArrayList<>();
              if (!(context.getResource() instanceof XtextResource resource)) {
                return actions;
              }
              for (Diagnostic diagnostic : params.getContext().getDiagnostics()) {
                fix(context.getDocument(), resource, options.getURI(), diagnostic)
                    .ifPresent(action -> actions.add(Either.forRight(action)));
              }
              return actions;
            });
  }

  private Optional<CodeAction> fix(
      Document document, XtextResource resource, String uri, Diagnostic diagnostic) {
    if (diagnostic.getCode() == null
        || !diagnostic.getCode().isLeft()
        || diagnostic.getRange() == null
        || diagnostic.getRange().getStart() == null) {
      return Optional.empty();
    }
    final String code = diagnostic.getCode().getLeft();
    final int offset;
    try {
      offset = document.getOffSet(diagnostic.getRange().getStart());
    } catch (IndexOutOfBoundsException outsideTheDocument) {
      return Optional.empty();
    }
    final EObject element = elementAt.resolveElementAt(resource, offset);
    final Method method = EcoreUtil2.getContainerOfType(element, Method.class);
    if (method == null) {
      return Optional.empty();
    }
    final Optional<Replacement> replacement;
    if (SchedulabilityDiagnostic.UNSCHEDULABLE.equals(code)
        || SchedulabilityDiagnostic.MAY_MISS.equals(code)) {
      replacement = widenToResponse(resource, method);
    } else if (IssueCodes.WCET_EXCEEDS_GCT.equals(code) && method instanceof Svm svm) {
      replacement =
          node(svm.getGct())
              .filter(n -> svm.getWcet() != null && svm.getWcet().getValue() != null)
              .map(
                  n ->
                      new Replacement(
                          "Raise the GCT to the WCET: gct " + Quantities.text(svm.getWcet()),
                          n,
                          Quantities.text(svm.getWcet())));
    } else if (IssueCodes.DEADLINE_EXCEEDS_PERIOD.equals(code) && method instanceof Spm spm) {
      replacement = deadlineAtPeriod(spm);
    } else if (IssueCodes.WCET_EXCEEDS_DEADLINE.equals(code) && method instanceof Spm spm) {
      replacement = deadlineFittingWcet(spm);
    } else {
      replacement = Optional.empty();
    }
    return replacement.map(r -> action(document, uri, diagnostic, r));
  }

  /** A new text for the node of one model element. */
  private record Replacement(String title, INode node, String text) {}

  private Optional<Replacement> widenToResponse(XtextResource resource, Method method) {
    final Optional<String> key = ModelElements.methodKey(method);
    final Optional<AnalysisSnapshot> snapshot = latest.analysedFor(resource.getURI());
    if (key.isEmpty() || snapshot.isEmpty()) {
      return Optional.empty();
    }
    final OptionalLong required = snapshot.get().requiredDeadline(key.get());
    if (required.isEmpty()) {
      return Optional.empty();
    }
    if (method instanceof Svm svm) {
      final String gct = Quantities.formatNanos(required.getAsLong());
      return node(svm.getGct())
          .map(
              n ->
                  new Replacement(
                      "Raise the GCT to the analysed response time: gct " + gct, n, gct));
    }
    final Spm spm = (Spm) method;
    final Window window = window(spm);
    if (window == null) {
      return Optional.empty();
    }
    // The report counts an SpM's deadline from the opening of its start window.
    final OptionalLong opening = offset(window.getEarliest());
    if (opening.isEmpty()) {
      return Optional.empty();
    }
    final long finishBy = opening.getAsLong() + required.getAsLong();
    final OptionalLong period = period(spm);
    if (period.isPresent() && finishBy > period.getAsLong()) {
      return Optional.empty(); // beyond the next release: the model would not validate
    }
    return timePoint(window.getDeadline(), finishBy)
        .map(
            r ->
                new Replacement(
                    "Widen the deadline to the analysed response time: finish-by " + r.text(),
                    r.node(),
                    r.text()));
  }

  private Optional<Replacement> deadlineAtPeriod(Spm spm) {
    final Window window = window(spm);
    final OptionalLong period = period(spm);
    if (window == null || period.isEmpty()) {
      return Optional.empty();
    }
    return timePoint(window.getDeadline(), period.getAsLong())
        .map(
            r ->
                new Replacement(
                    "Move the deadline to the next release: finish-by " + r.text(),
                    r.node(),
                    r.text()));
  }

  private Optional<Replacement> deadlineFittingWcet(Spm spm) {
    final Window window = window(spm);
    if (window == null) {
      return Optional.empty();
    }
    final OptionalLong opening = offset(window.getEarliest());
    final OptionalLong wcet = nanos(spm.getWcet());
    if (opening.isEmpty() || wcet.isEmpty()) {
      return Optional.empty();
    }
    final long finishBy = opening.getAsLong() + wcet.getAsLong();
    final OptionalLong period = period(spm);
    if (period.isPresent() && finishBy > period.getAsLong()) {
      return Optional.empty();
    }
    return timePoint(window.getDeadline(), finishBy)
        .map(
            r ->
                new Replacement(
                    "Widen the deadline to fit the WCET: finish-by " + r.text(),
                    r.node(),
                    r.text()));
  }

  /** The finish-by point rewritten to `offset` from its anchor (or absolute, as it was). */
  private static Optional<Replacement> timePoint(TimePoint point, long offsetNs) {
    if (point == null) {
      return Optional.empty();
    }
    final String text =
        point.getAnchor() == null
            ? Quantities.formatNanos(offsetNs)
            : point.getAnchor() + " + " + Quantities.formatNanos(offsetNs);
    return node(point).map(n -> new Replacement("", n, text));
  }

  private static Window window(Spm spm) {
    return spm.getAac() == null
        ? null
        : EcoreUtil2.getAllContentsOfType(spm.getAac(), Window.class).stream()
            .findFirst()
            .orElse(null);
  }

  private static OptionalLong period(Spm spm) {
    return spm.getAac() instanceof PeriodicAac aac ? nanos(aac.getPeriod()) : OptionalLong.empty();
  }

  private static OptionalLong offset(TimePoint point) {
    if (point == null) {
      return OptionalLong.empty();
    }
    return point.getOffset() == null ? OptionalLong.of(0) : nanos(point.getOffset());
  }

  private static OptionalLong nanos(Duration duration) {
    if (duration == null || duration.getValue() == null || duration.getUnit() == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Quantities.nanoseconds(duration));
    } catch (Quantities.QuantityException e) {
      return OptionalLong.empty();
    }
  }

  private static Optional<INode> node(EObject element) {
    return Optional.ofNullable(element == null ? null : NodeModelUtils.findActualNodeFor(element));
  }

  private static CodeAction action(
      Document document, String uri, Diagnostic diagnostic, Replacement replacement) {
    final Range range =
        new Range(
            document.getPosition(replacement.node().getOffset()),
            document.getPosition(replacement.node().getEndOffset()));
    final CodeAction action = new CodeAction(replacement.title());
    action.setKind(CodeActionKind.QuickFix);
    action.setDiagnostics(List.of(diagnostic));
    action.setIsPreferred(true);
    action.setEdit(
        new WorkspaceEdit(Map.of(uri, List.of(new TextEdit(range, replacement.text())))));
    return action;
  }
}
