package dev.kairos.languageserver.live;

import dev.kairos.languageserver.KairosWorkspaceManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.log4j.Logger;
import org.eclipse.emf.common.util.URI;
import org.eclipse.xtext.ide.server.ProjectManager;
import org.eclipse.xtext.ide.server.concurrent.IRequestManager;
import org.eclipse.xtext.service.OperationCanceledManager;
import org.eclipse.xtext.util.CancelIndicator;
import org.eclipse.xtext.validation.Issue;

/**
 * Runs the schedulability analysis while the user edits. Every change restarts a quiet period
 * (debounce); when it passes, one run is queued as a read request of Xtext's request manager, so it
 * sees the models as the last build left them and never runs beside a build. A newer change both
 * makes the queued or running run stale (its generation is no longer the latest) and cancels it
 * (the request manager cancels reads when a write arrives); a stale run publishes nothing.
 *
 * <p>A finished run replaces the schedulability diagnostics of every document, records its results
 * for hover, code lenses and code actions, and sends the `kairos/report` notification.
 */
public final class LiveSchedulability {
  private static final Logger LOG = Logger.getLogger(LiveSchedulability.class);

  /** What a finished run hands to the editor: the notification and a code-lens refresh. */
  public interface Publisher {
    void report(com.google.gson.JsonObject notification);

    void refreshCodeLenses();
  }

  private final IRequestManager requests;
  private final KairosWorkspaceManager workspace;
  private final LatestAnalysis latest;
  private final Publisher publisher;
  private final long quietMillis;
  private final WorkspaceAnalysis analysis;
  private final OperationCanceledManager cancellation = new OperationCanceledManager();
  private final AtomicLong generation = new AtomicLong();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            final Thread thread = new Thread(runnable, "kairos-live-analysis");
            thread.setDaemon(true);
            return thread;
          });
  private ScheduledFuture<?> pending;

  public LiveSchedulability(
      IRequestManager requests,
      KairosWorkspaceManager workspace,
      LatestAnalysis latest,
      Publisher publisher,
      long quietMillis,
      boolean withHtml,
      boolean withArchitecture) {
    this.requests = requests;
    this.workspace = workspace;
    this.latest = latest;
    this.publisher = publisher;
    this.quietMillis = quietMillis;
    this.analysis = new WorkspaceAnalysis(withHtml, withArchitecture);
  }

  /** The models changed (or may have): analyse once they have been quiet for a while. */
  public synchronized void changed() {
    final long run = generation.incrementAndGet();
    if (pending != null) {
      pending.cancel(false);
    }
    if (!timer.isShutdown()) {
      pending = timer.schedule(() -> queue(run), quietMillis, TimeUnit.MILLISECONDS);
    }
  }

  public synchronized void stop() {
    generation.incrementAndGet();
    timer.shutdownNow();
  }

  private void queue(long run) {
    if (run != generation.get()) {
      return;
    }
    requests
        .runRead(
            cancel -> {
              analyse(run, () -> cancel.isCanceled() || run != generation.get());
              return null;
            })
        .exceptionally(
            failure -> {
              if (!cancellation.isOperationCanceledException(unwrapped(failure))
                  && !(unwrapped(failure) instanceof CancellationException)) {
                LOG.error("live analysis failed", failure);
              }
              return null;
            });
  }

  private static Throwable unwrapped(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  private void analyse(long run, CancelIndicator stale) {
    final Map<URI, List<Issue>> validation = workspace.validationIssues();
    final Map<URI, Integer> versions = workspace.openDocumentVersions();
    final List<AnalysisSnapshot> snapshots = new ArrayList<>();
    for (ProjectManager project : workspace.getProjectManagers()) {
      if (project.getBaseDir() == null) {
        continue; // files outside every workspace folder: no system of their own
      }
      Optional<AnalysisSnapshot> snapshot;
      try {
        snapshot = analysis.analyse(project, validation, versions, stale);
      } catch (RuntimeException e) {
        if (cancellation.isOperationCanceledException(e) || stale.isCanceled()) {
          return;
        }
        // A model that validates must lower and analyse; if it does not, that is a bug of ours,
        // reported in the notification rather than thrown at the editor.
        LOG.error("live analysis failed", e);
        snapshot = Optional.of(analysis.failed(project, versions, e));
      }
      if (snapshot.isEmpty()) {
        if (stale.isCanceled()) {
          return;
        }
        continue;
      }
      snapshots.add(snapshot.get());
    }
    synchronized (this) {
      if (stale.isCanceled()) {
        return;
      }
      final Map<URI, List<SchedulabilityDiagnostic>> diagnostics = new HashMap<>();
      snapshots.forEach(s -> diagnostics.putAll(s.diagnostics()));
      snapshots.forEach(latest::update);
      workspace.replaceSchedulability(diagnostics);
      publisher.refreshCodeLenses();
    }
    // The report (the JSON of the whole check) is written last: the diagnostics are what an
    // editor shows first, and a newer run will bring a newer report anyway.
    for (AnalysisSnapshot snapshot : snapshots) {
      if (stale.isCanceled()) {
        return;
      }
      publisher.report(snapshot.notification());
    }
  }
}
