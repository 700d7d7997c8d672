package dev.kairos.reports;

import java.util.Comparator;

/**
 * One problem found in a model, the one type `kairos` and the language server report it by (text,
 * JSON, JUnit, SARIF, the page): {@code file:line:col: error[code]: message}. Lines and columns
 * count from 1; the range ends before {@code endLine:endColumn} (a range that does not end after
 * its start is one character).
 */
public record Diagnostic(
    String file,
    int line,
    int column,
    int endLine,
    int endColumn,
    Severity severity,
    String message,
    String code) {

  public enum Severity {
    ERROR,
    WARNING,
    INFO;

    /** As the text says it: error, warning, note. */
    public String label() {
      return this == INFO ? "note" : name().toLowerCase(java.util.Locale.ROOT);
    }

    /** As the JSON report says it: error, warning, info. */
    public String jsonName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** A diagnostic at one character. */
  public Diagnostic(
      String file, int line, int column, Severity severity, String message, String code) {
    this(file, line, column, line, column, severity, message, code);
  }

  public static final Comparator<Diagnostic> ORDER =
      Comparator.comparing(Diagnostic::file)
          .thenComparingInt(Diagnostic::line)
          .thenComparingInt(Diagnostic::column)
          .thenComparing(Diagnostic::message);

  /** The first line of the diagnostic, as gcc and rustc write it. */
  @Override
  public String toString() {
    return file
        + ":"
        + line
        + ":"
        + column
        + ": "
        + severity.label()
        + "["
        + code
        + "]: "
        + message;
  }
}
