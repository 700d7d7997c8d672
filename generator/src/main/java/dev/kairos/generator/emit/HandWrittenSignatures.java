package dev.kairos.generator.emit;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos.TmoClass;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares a kept hand-written header with the servant base the model now gives it. Starters are
 * never overwritten, so when the model adds, removes or renames a method or changes whether it uses
 * segments, the user's class no longer overrides what the base declares and the build fails far
 * from the model line that caused it. This finds those methods from the header's text (a textual
 * check, not a C++ parse: it looks for each method's name followed by its parameter list, and for
 * the names the class declares {@code override}) so that {@code generate} can name them with their
 * model lines, the out-of-date files and what to change in them.
 */
public final class HandWrittenSignatures {
  private HandWrittenSignatures() {}

  /** One method whose declaration in the user's header no longer matches the base. */
  public record Mismatch(SourceRef source, String message) {}

  private static final Pattern COMMENTS = Pattern.compile("//[^\n]*|/\\*.*?\\*/", Pattern.DOTALL);

  /**
   * A member function declared {@code override}: its name is group 1. A destructor ({@code ~Name()
   * override}, for a servant with members to clean up) is not one of the model's methods.
   */
  private static final Pattern OVERRIDE =
      Pattern.compile(
          "(?<![~\\w])([A-Za-z_][A-Za-z0-9_]*)\\s*\\([^()]*\\)\\s*(?:const\\s*)?(?:noexcept\\s*)?override\\b");

  /**
   * @param headerName the header as it should be named in messages
   * @param headerText the header's content
   */
  public static List<Mismatch> check(TmoClass tmo, String headerName, String headerText) {
    return check(tmo, headerName, headerName.replaceFirst("\\.hpp$", ".cpp"), headerText);
  }

  /**
   * @param headerName the header as it should be named in messages
   * @param sourceName the hand-written source beside it (where the bodies are), as named there
   * @param headerText the header's content
   */
  public static List<Mismatch> check(
      TmoClass tmo, String headerName, String sourceName, String headerText) {
    final String code = COMMENTS.matcher(headerText).replaceAll(" ");
    final List<Mismatch> mismatches = new ArrayList<>();
    final Set<String> modelled = new LinkedHashSet<>();
    for (MethodAccess method : MethodAccess.of(tmo)) {
      modelled.add(method.name());
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
                what
                    + " is not declared in "
                    + headerName
                    + ": add `"
                    + expected
                    + " override;` to the class there and its body to "
                    + sourceName));
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
                    + expected
                    + ": change the declaration there and the body in "
                    + sourceName));
      }
    }
    // A method the model no longer has: its `override` no longer overrides anything.
    final Set<String> gone = new LinkedHashSet<>();
    final Matcher overrides = OVERRIDE.matcher(code);
    while (overrides.find()) {
      final String name = overrides.group(1);
      if (!modelled.contains(name) && !name.equals(ServantEmitter.DEADLINE_HANDLER)) {
        gone.add(name);
      }
    }
    for (String name : gone) {
      mismatches.add(
          new Mismatch(
              tmo.source(),
              "tmo "
                  + tmo.name()
                  + " has no method "
                  + name
                  + " any more, but "
                  + headerName
                  + " still declares "
                  + name
                  + "(...) override: remove it there and its body from "
                  + sourceName));
    }
    return mismatches;
  }
}
