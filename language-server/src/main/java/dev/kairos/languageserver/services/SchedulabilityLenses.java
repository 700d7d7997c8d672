package dev.kairos.languageserver.services;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.Method;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.generator.verdicts.ModelElements;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.languageserver.live.AnalysisSnapshot;
import dev.kairos.languageserver.live.LatestAnalysis;
import dev.kairos.reports.Figures;
import dev.kairos.timing.TaskReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.lsp4j.CodeLens;
import org.eclipse.lsp4j.CodeLensParams;
import org.eclipse.lsp4j.Command;
import org.eclipse.lsp4j.Range;
import org.eclipse.xtext.ide.server.Document;
import org.eclipse.xtext.ide.server.codelens.ICodeLensService;
import org.eclipse.xtext.resource.XtextResource;
import org.eclipse.xtext.util.CancelIndicator;

/**
 * A code lens above each analysed method, `response 2.7 ms / deadline 10 ms`, and above each node,
 * its utilization and verdict. Lenses are placed on the document as it is now and take their
 * figures from the latest analysis, so they stay on their methods while the user types.
 */
public class SchedulabilityLenses implements ICodeLensService {
  /** Lenses only show figures: their command does nothing (an empty command id). */
  static final String NO_COMMAND = "";

  @Inject private LatestAnalysis latest;

  @Override
  public List<? extends CodeLens> computeCodeLenses(
      Document document, XtextResource resource, CodeLensParams params, CancelIndicator cancel) {
    final List<CodeLens> lenses = new ArrayList<>();
    if (resource.getContents().isEmpty() || !(resource.getContents().get(0) instanceof Model)) {
      return lenses;
    }
    final Optional<AnalysisSnapshot> snapshot = latest.analysedFor(resource.getURI());
    if (snapshot.isEmpty()) {
      return lenses;
    }
    final String prefix = latest.currentFor(resource.getURI()) ? "" : "last analysed: ";
    final Model model = (Model) resource.getContents().get(0);
    for (EObject element : model.getElements()) {
      if (cancel.isCanceled()) {
        return lenses;
      }
      if (element instanceof Tmo tmo) {
        for (Method method : tmo.getMethods()) {
          ModelElements.methodKey(method)
              .map(snapshot.get()::method)
              .filter(rows -> !rows.isEmpty())
              .ifPresent(rows -> lens(document, method, prefix + title(rows), lenses));
        }
      } else if (element instanceof Node node && node.getName() != null) {
        snapshot
            .get()
            .node(node.getName())
            .ifPresent(
                report ->
                    lens(
                        document,
                        node,
                        prefix
                            + "utilization "
                            + Figures.percent(report.utilization())
                            + (report.schedulable() ? ": schedulable" : ": NOT schedulable"),
                        lenses));
      }
    }
    return lenses;
  }

  /** `response 2.7 ms / deadline 10 ms`, and the verdict when the method does not hold. */
  static String title(List<AnalysisSnapshot.MethodFigures> rows) {
    final List<String> parts = new ArrayList<>();
    for (AnalysisSnapshot.MethodFigures row : rows) {
      final TaskReport task = row.task();
      final String limit = task.kind() == TaskReport.Kind.SVM ? "GCT " : "deadline ";
      final String response =
          task.responseTimeNs() >= 0
              ? "response " + Figures.duration(task.responseTimeNs())
              : "response > " + Figures.duration(task.deadlineNs());
      String part = response + " / " + limit + Figures.duration(task.deadlineNs());
      if (!task.schedulable()) {
        part +=
            task.criticality() == Criticality.SOFT && row.node().schedulable()
                ? " (may miss)"
                : " (misses)";
      }
      parts.add(rows.size() > 1 ? row.node().node().name() + ": " + part : part);
    }
    return String.join("; ", parts);
  }

  private static void lens(Document document, EObject element, String title, List<CodeLens> out) {
    ModelElements.nameRegion(element)
        .ifPresent(
            region -> {
              final Range range =
                  new Range(
                      document.getPosition(region.offset()),
                      document.getPosition(region.offset() + region.length()));
              out.add(new CodeLens(range, new Command(title, NO_COMMAND), null));
            });
  }
}
