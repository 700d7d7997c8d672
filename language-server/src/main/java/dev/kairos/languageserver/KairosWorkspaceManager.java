package dev.kairos.languageserver;

import com.google.inject.Singleton;
import dev.kairos.dsl.validation.IssueCodes;
import dev.kairos.languageserver.live.SchedulabilityDiagnostic;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.eclipse.emf.common.util.URI;
import org.eclipse.lsp4j.WorkspaceFolder;
import org.eclipse.xtext.ide.server.Document;
import org.eclipse.xtext.ide.server.WorkspaceManager;
import org.eclipse.xtext.util.CancelIndicator;
import org.eclipse.xtext.validation.Issue;
import org.eclipse.xtext.xbase.lib.Procedures.Procedure2;

/**
 * Xtext's workspace, with one more source of diagnostics: the live schedulability analysis. An
 * editor shows one list per document, so every publication merges the document's latest validation
 * issues (from Xtext's builds) with its latest schedulability diagnostics (from the analysis, which
 * runs later and less often); either side replaces only its own half.
 */
@Singleton
public class KairosWorkspaceManager extends WorkspaceManager {
  private final Map<URI, List<Issue>> validation = new HashMap<>();
  private Map<URI, List<SchedulabilityDiagnostic>> schedulability = Map.of();
  private Procedure2<? super URI, ? super Iterable<Issue>> publisher;

  @Override
  public void initialize(
      List<WorkspaceFolder> workspaceFolders,
      Procedure2<? super URI, ? super Iterable<Issue>> issueAcceptor,
      CancelIndicator cancelIndicator) {
    synchronized (this) {
      publisher = issueAcceptor;
    }
    super.initialize(workspaceFolders, this::acceptValidation, cancelIndicator);
  }

  /**
   * Xtext validated a document: its issues replace the previous ones. Each carries the code the CLI
   * prints (docs/diagnostics.md), not Xtext's internal one.
   */
  private synchronized void acceptValidation(URI uri, Iterable<Issue> issues) {
    final List<Issue> copy = new ArrayList<>();
    issues.forEach(issue -> copy.add(withStableCode(issue)));
    validation.put(uri, copy);
    publish(uri);
  }

  /**
   * The schedulability diagnostics of a new analysis, for every document; documents whose
   * diagnostics changed are published again (those that had some and have none now included).
   */
  public synchronized void replaceSchedulability(
      Map<URI, List<SchedulabilityDiagnostic>> diagnostics) {
    final Set<URI> changed = new HashSet<>();
    final Set<URI> all = new HashSet<>(schedulability.keySet());
    all.addAll(diagnostics.keySet());
    for (URI uri : all) {
      if (!Objects.equals(schedulability.get(uri), diagnostics.get(uri))) {
        changed.add(uri);
      }
    }
    schedulability = Map.copyOf(diagnostics);
    changed.stream().sorted(Comparator.comparing(URI::toString)).forEach(this::publish);
  }

  /** The issue itself when its code is a Kairos code, else a copy under the Kairos name. */
  private static Issue withStableCode(Issue issue) {
    final String code = IssueCodes.stable(issue.getCode());
    if (code.equals(issue.getCode())) {
      return issue;
    }
    final Issue.IssueImpl copy = new Issue.IssueImpl();
    copy.setCode(code);
    copy.setSeverity(issue.getSeverity());
    copy.setMessage(issue.getMessage());
    copy.setOffset(issue.getOffset());
    copy.setLength(issue.getLength());
    copy.setLineNumber(issue.getLineNumber());
    copy.setColumn(issue.getColumn());
    copy.setLineNumberEnd(issue.getLineNumberEnd());
    copy.setColumnEnd(issue.getColumnEnd());
    copy.setUriToProblem(issue.getUriToProblem());
    copy.setType(issue.getType());
    copy.setSyntaxError(issue.isSyntaxError());
    copy.setData(issue.getData());
    return copy;
  }

  /** The latest validation issues of every document Xtext has validated. */
  public synchronized Map<URI, List<Issue>> validationIssues() {
    return Map.copyOf(validation);
  }

  /** The versions of the documents open in the editor, as the editor numbered them. */
  public Map<URI, Integer> openDocumentVersions() {
    final Map<URI, Integer> versions = new HashMap<>();
    for (Map.Entry<URI, Document> open : getOpenDocuments().entrySet()) {
      if (open.getValue().getVersion() != null) {
        versions.put(open.getKey(), open.getValue().getVersion());
      }
    }
    return versions;
  }

  private void publish(URI uri) {
    if (publisher == null) {
      return;
    }
    final List<Issue> merged = new ArrayList<>(validation.getOrDefault(uri, List.of()));
    for (SchedulabilityDiagnostic diagnostic : schedulability.getOrDefault(uri, List.of())) {
      merged.add(diagnostic.toIssue(uri));
    }
    publisher.apply(uri, merged);
  }
}
