package dev.kairos.generator.emit;

import dev.kairos.generator.ir.SourceRef;
import dev.kairos.generator.ir.Tmos.TmoClass;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares a kept hand-written header with the servant base the model now gives it. Starters are
 * never overwritten, so when the model adds, removes or renames a method or changes whether it uses
 * segments, the user's class no longer overrides what the base declares and the build fails far
 * from the model line that caused it. This finds those methods from the header's text (a textual
 * check, not a C++ parse: it looks for each method's name followed by its parameter list) so that
 * {@code generate} can name them with their model lines.
 */
public final class HandWrittenSignatures {
  private HandWrittenSignatures() {}

  /** One method whose declaration in the user's header no longer matches the base. */
  public record Mismatch(SourceRef source, String message) {}

  private static final Pattern COMMENTS = Pattern.compile("//[^\n]*|/\\*.*?\\*/", Pattern.DOTALL);

  /**
   * @param headerName the header as it should be named in messages
   * @param headerText the header's content
   */
  public static List<Mismatch> check(TmoClass tmo, String headerName, String headerText) {
    final String code = COMMENTS.matcher(headerText).replaceAll(" ");
    final List<Mismatch> mismatches = new ArrayList<>();
    for (MethodAccess method : MethodAccess.of(tmo)) {
      final Matcher declared =
          Pattern.compile("\\b" + Pattern.quote(method.name()) + "\\s*\\(([^)]*)\\)").matcher(code);
      final Pattern view = Pattern.compile("^\\s*(const\\s+)?" + method.viewType() + "\\b");
      boolean found = false;
      boolean matching = false;
      while (declared.find()) {
        found = true;
        matching |= view.matcher(declared.group(1)).find() == method.hasView();
      }
      final String expected = method.declaration(false);
      final String what = method.kind() + " " + method.name();
      if (!found) {
        mismatches.add(
            new Mismatch(
                method.source(),
                what + " is not declared in " + headerName + "; the base declares " + expected));
      } else if (!matching) {
        mismatches.add(
            new Mismatch(
                method.source(),
                what
                    + (method.hasView()
                        ? " now " + method.usesClause() + ", but " + headerName
                        : " uses no segment any more, but " + headerName)
                    + " declares it "
                    + (method.hasView() ? "without" : "with")
                    + " the view "
                    + method.viewType()
                    + "; the base declares "
                    + expected));
      }
    }
    return mismatches;
  }
}
