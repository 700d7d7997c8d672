package dev.kairos.cli;

import java.util.Comparator;

/**
 * One problem found in a model, as the CLI prints it: {@code file:line:col: error[code]: message}.
 * Lines and columns count from 1; the range ends before {@code endLine:endColumn} (a range that
 * does not end after its start is one character).
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

    String label() {
      return this == INFO ? "note" : name().toLowerCase(java.util.Locale.ROOT);
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
