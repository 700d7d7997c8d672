package dev.kairos.cli;

import java.util.Map;

/**
 * Whether diagnostics are coloured: {@code always}, {@code never}, or {@code auto} — only on a
 * terminal, and never when NO_COLOR is set (https://no-color.org) or TERM is dumb.
 */
enum ColorChoice {
  auto,
  always,
  never;

  /**
   * The launcher tells whether stderr is a terminal (Java cannot ask for stderr); without it, as in
   * a JVM started otherwise, the console tells for stdin and stdout together.
   */
  static final String STDERR_IS_TERMINAL = "kairos.stderr.tty";

  static final String STDOUT_IS_TERMINAL = "kairos.stdout.tty";

  boolean colors(boolean toStderr, Map<String, String> environment) {
    return switch (this) {
      case always -> true;
      case never -> false;
      case auto -> {
        final String noColor = environment.get("NO_COLOR");
        if (noColor != null && !noColor.isEmpty() || "dumb".equals(environment.get("TERM"))) {
          yield false;
        }
        final String told = System.getProperty(toStderr ? STDERR_IS_TERMINAL : STDOUT_IS_TERMINAL);
        yield told != null ? told.equals("1") : System.console() != null;
      }
    };
  }
}
