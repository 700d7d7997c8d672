package dev.kairos.languageserver.live;

import dev.kairos.generator.verdicts.LocatedVerdicts;
import java.util.List;
import org.eclipse.emf.common.util.URI;
import org.eclipse.xtext.diagnostics.Severity;
import org.eclipse.xtext.validation.Issue;

/**
 * A finding of the schedulability analysis at a place in a document: the name of the method, gate
 * or node it concerns. Lines and columns count from 1, as Xtext's issues do; {@code data} carries
 * the figures in nanoseconds for clients and code actions ({@code [response, deadline]}).
 */
public record SchedulabilityDiagnostic(
    String code,
    Severity severity,
    String message,
    int offset,
    int length,
    int line,
    int column,
    int endLine,
    int endColumn,
    List<String> data) {

  /** A method misses its deadline (or GCT): an error. */
  public static final String UNSCHEDULABLE = LocatedVerdicts.UNSCHEDULABLE;

  /** A soft method may miss its deadline under overload on a node that holds: a warning. */
  public static final String MAY_MISS = LocatedVerdicts.MAY_MISS;

  /** A node is not schedulable: an error on its name, with its utilization. */
  public static final String NODE_UNSCHEDULABLE = LocatedVerdicts.NODE_UNSCHEDULABLE;

  /** A remote call cannot return within its gate's deadline: an error on the gate. */
  public static final String REMOTE_CALL_UNSCHEDULABLE = LocatedVerdicts.REMOTE_CALL_UNSCHEDULABLE;

  /**
   * The diagnostic as an Xtext issue of the document at uri, to publish beside validation issues.
   */
  public Issue toIssue(URI uri) {
    final Issue.IssueImpl issue = new Issue.IssueImpl();
    issue.setCode(code);
    issue.setSeverity(severity);
    issue.setMessage(message);
    issue.setOffset(offset);
    issue.setLength(length);
    issue.setLineNumber(line);
    issue.setColumn(column);
    issue.setLineNumberEnd(endLine);
    issue.setColumnEnd(endColumn);
    issue.setUriToProblem(uri);
    issue.setData(data.toArray(String[]::new));
    return issue;
  }
}
