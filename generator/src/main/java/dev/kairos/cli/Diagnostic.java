package dev.kairos.cli;

import java.util.Comparator;

/**
 * One problem found in a model, as the CLI prints it: {@code file:line:col: error: message [code]}.
 */
public record Diagnostic(
    String file, int line, int column, Severity severity, String message, String code) {

  public enum Severity {
    ERROR,
    WARNING,
    INFO;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public static final Comparator<Diagnostic> ORDER =
      Comparator.comparing(Diagnostic::file)
          .thenComparingInt(Diagnostic::line)
          .thenComparingInt(Diagnostic::column)
          .thenComparing(Diagnostic::message);

  @Override
  public String toString() {
    return file
        + ":"
        + line
        + ":"
        + column
        + ": "
        + severity.label()
        + ": "
        + message
        + " ["
        + code
        + "]";
  }
}
