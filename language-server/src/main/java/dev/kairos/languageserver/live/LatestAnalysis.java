package dev.kairos.languageserver.live;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.emf.common.util.URI;

/**
 * The latest results of the live analysis, per project, for the services that answer the editor
 * (hover, code lenses, code actions). Each project keeps the latest run and the latest run that
 * analysed: while the model has errors, an editor still shows the figures of the last model that
 * had none, marked as such.
 */
public final class LatestAnalysis {
  private final Map<URI, AnalysisSnapshot> latest = new ConcurrentHashMap<>();
  private final Map<URI, AnalysisSnapshot> latestAnalysed = new ConcurrentHashMap<>();

  /** Records a run. */
  public void update(AnalysisSnapshot snapshot) {
    latest.put(snapshot.project(), snapshot);
    if (snapshot.analysed()) {
      latestAnalysed.put(snapshot.project(), snapshot);
    }
  }

  /** The results that hold figures for a document: the last analysed run of its project. */
  public Optional<AnalysisSnapshot> analysedFor(URI document) {
    return projectOf(document).map(latestAnalysed::get);
  }

  /** The latest run for a document's project, whether it analysed or not. */
  public Optional<AnalysisSnapshot> latestFor(URI document) {
    return projectOf(document).map(latest::get);
  }

  /** Whether the latest run for a document's project analysed (false: figures are older). */
  public boolean currentFor(URI document) {
    return projectOf(document).map(latest::get).map(AnalysisSnapshot::analysed).orElse(false);
  }

  /** The project of a document: the deepest base directory that holds it. */
  private Optional<URI> projectOf(URI document) {
    final String path = document.toString();
    URI best = null;
    for (URI project : List.copyOf(latest.keySet())) {
      final String base = project.toString();
      final String prefix = base.endsWith("/") ? base : base + "/";
      if (path.startsWith(prefix) && (best == null || base.length() > best.toString().length())) {
        best = project;
      }
    }
    return Optional.ofNullable(best);
  }
}
