package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One run of the kairos command in-process, as the CLI tests drive it: exit code and both streams.
 */
record CliRun(int exit, String out, String err) {
  String all() {
    return out + err;
  }

  /** Runs kairos with {@code args}; whatever the input, it never ends in a stack trace. */
  static CliRun kairos(String... args) {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final int exit = KairosCli.run(new PrintWriter(out), new PrintWriter(err), args);
    final CliRun run = new CliRun(exit, out.toString(), err.toString());
    assertFalse(run.err.contains("internal error") || run.err.contains("Exception"), run.err);
    return run;
  }
}
