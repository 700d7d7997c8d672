package dev.kairos.cli;

import dev.kairos.reports.Diagnostic;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Prints diagnostics as gcc and rustc do: the headline {@code file:line:col: error[code]: message},
 * then the source line and a caret under the start of the range with tildes under the rest of it
 * (to the end of the line when the range goes on). In colour when asked to (see {@link
 * ColorChoice}): the location bold, the severity in its colour, the underline green.
 */
final class DiagnosticPrinter {
  private static final String RESET = "\u001b[0m";
  private static final String BOLD = "\u001b[1m";
  private static final String RED = "\u001b[1;31m";
  private static final String MAGENTA = "\u001b[1;35m";
  private static final String CYAN = "\u001b[1;36m";
  private static final String GREEN = "\u001b[1;32m";

  private final boolean color;
  private final Map<String, List<String>> sources = new HashMap<>();

  DiagnosticPrinter(boolean color) {
    this.color = color;
  }

  void print(Diagnostic diagnostic, PrintWriter sink) {
    sink.println(headline(diagnostic));
    excerpt(diagnostic).forEach(sink::println);
  }

  String headline(Diagnostic d) {
    final String where = d.file() + ":" + d.line() + ":" + d.column() + ":";
    final String severity = d.severity().label() + "[" + d.code() + "]:";
    if (!color) {
      return where + " " + severity + " " + d.message();
    }
    final String tint =
        switch (d.severity()) {
          case ERROR -> RED;
          case WARNING -> MAGENTA;
          case INFO -> CYAN;
        };
    return BOLD + where + RESET + " " + tint + severity + RESET + " " + d.message();
  }

  /** The source line and its underline; none where the line cannot be read. */
  List<String> excerpt(Diagnostic d) {
    final List<String> lines = sources.computeIfAbsent(d.file(), DiagnosticPrinter::read);
    if (d.line() < 1 || d.line() > lines.size()) {
      return List.of();
    }
    final String text = lines.get(d.line() - 1);
    final int start = Math.max(0, Math.min(d.column() - 1, text.length()));
    final int end;
    if (d.endLine() > d.line()) {
      end = Math.max(start + 1, text.length());
    } else if (d.endLine() == d.line() && d.endColumn() > d.column()) {
      end = Math.max(start + 1, Math.min(d.endColumn() - 1, Math.max(text.length(), start + 1)));
    } else {
      end = start + 1;
    }
    // The underline keeps the line's tabs, so the caret sits under its character in any terminal.
    final StringBuilder padding = new StringBuilder();
    for (int i = 0; i < start; i++) {
      padding.append(text.charAt(i) == '\t' ? '\t' : ' ');
    }
    final String underline = "^" + "~".repeat(end - start - 1);
    final String number = String.format(java.util.Locale.ROOT, "%5d", d.line());
    return List.of(
        number + " | " + text,
        " ".repeat(number.length())
            + " | "
            + padding
            + (color ? GREEN + underline + RESET : underline));
  }

  /** The file's lines, malformed UTF-8 replaced; none when it cannot be read or is binary. */
  private static List<String> read(String file) {
    try {
      final byte[] bytes = Files.readAllBytes(Path.of(file));
      if (TextFiles.firstNul(bytes).isPresent()) {
        return List.of();
      }
      final String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPLACE)
              .onUnmappableCharacter(CodingErrorAction.REPLACE)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
      return text.lines().toList();
    } catch (IOException | RuntimeException e) {
      return List.of(); // the headline alone still says where
    }
  }
}
