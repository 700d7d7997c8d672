package dev.kairos.generator.lowering;

import dev.kairos.ir.Platform.PlatformFile;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.Diagnostic;
import dev.kairos.reports.Findings;
import dev.kairos.timing.MessageCapacity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The checks that need the lowered model and come before any analysis: messages the ORB cannot
 * carry, and platform files that cannot be read. One list, in one order, for `kairos` (which prints
 * them as diagnostics and analyses nothing) and for the language server (which reports them and
 * puts each on its model element), so that the two cannot disagree.
 */
public final class LoweredChecks {
  private LoweredChecks() {}

  /** A model element a problem concerns, for an editor to put the problem on. */
  public sealed interface Element {}

  /** An operation of an interface, whose messages are too large. */
  public record OperationElement(List<String> namespace, String iface, String operation)
      implements Element {}

  /** The hardware clauses that name a platform file. */
  public record PlatformElement(String path) implements Element {}

  /**
   * One problem: where it is written, its code, what `kairos` says of it, the figures an editor's
   * fix needs ({@code data}) and the element it concerns.
   */
  public record Problem(
      SourceRef where, String code, String message, List<String> data, Element element) {
    /** The problem as an error where it is written. */
    public Diagnostic diagnostic() {
      return new Diagnostic(
          where.file(), where.line(), where.column(), Diagnostic.Severity.ERROR, message, code);
    }
  }

  private static final Comparator<Problem> ORDER =
      Comparator.comparing((Problem p) -> p.where().file())
          .thenComparingInt(p -> p.where().line())
          .thenComparingInt(p -> p.where().column())
          .thenComparing(Problem::message);

  /** The problems of {@code system}, by file, line, column and message; empty when it has none. */
  public static List<Problem> of(SystemModel system) {
    final List<Problem> problems = new ArrayList<>();
    for (MessageCapacity.Oversized o : MessageCapacity.check(system)) {
      // On the operation's line: the message is the operation's, whatever column it starts at.
      problems.add(
          new Problem(
              new SourceRef(o.source().file(), o.source().line(), 1),
              MessageCapacity.MESSAGE_TOO_LARGE,
              Findings.text(o),
              List.of(Long.toString(o.maxBytes()), Long.toString(o.capacityBytes())),
              new OperationElement(o.iface().namespace(), o.iface().name(), o.operation().name())));
    }
    for (PlatformFile file : PlatformFiles.problems(system)) {
      problems.add(
          new Problem(
              file.source(),
              PlatformFiles.PLATFORM_FILE,
              PlatformFiles.message(file),
              List.of(),
              new PlatformElement(file.path())));
    }
    problems.sort(ORDER);
    return List.copyOf(problems);
  }
}
