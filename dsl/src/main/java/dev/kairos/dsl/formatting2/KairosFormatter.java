package dev.kairos.dsl.formatting2;

import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Node;
import dev.kairos.dsl.kairos.Spm;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.Keyword;
import org.eclipse.xtext.formatting2.AbstractJavaFormatter;
import org.eclipse.xtext.formatting2.IFormattableDocument;
import org.eclipse.xtext.formatting2.IHiddenRegionFormatter;
import org.eclipse.xtext.formatting2.regionaccess.ISemanticRegion;
import org.eclipse.xtext.xbase.lib.Procedures.Procedure1;

/**
 * The canonical layout of a model, decided token by token over the whole file: one declaration per
 * paragraph, members one per line inside braces (indented two spaces), a spontaneous method's
 * activation condition on continuation lines, and single spaces elsewhere except around
 * punctuation. Comments stay where they are.
 */
public class KairosFormatter extends AbstractJavaFormatter {

  /** Keywords that start a continuation line of an SpM. */
  private static final Set<String> SPM_CLAUSES = Set.of("for", "start-during", "wcet", "uses");

  /** Keywords that start a member line of a node (a node has no semicolons). */
  private static final Set<String> NODE_MEMBERS =
      Set.of("hardware", "os", "scheduling", "endpoint", "host", "deploy");

  /** Two spaces per level and \n, whatever the editor prefers: there is one canonical layout. */
  @Override
  protected void initialize(org.eclipse.xtext.formatting2.FormatterRequest request) {
    final java.util.Map<String, String> canonical =
        java.util.Map.of(
            org.eclipse.xtext.formatting2.FormatterPreferenceKeys.indentation.getId(), "  ",
            org.eclipse.xtext.formatting2.FormatterPreferenceKeys.lineSeparator.getId(), "\n");
    request.setPreferences(
        new org.eclipse.xtext.preferences.MapBasedPreferenceValues(
            request.getPreferences(), canonical));
    super.initialize(request);
  }

  protected void format(Model model, IFormattableDocument doc) {
    final List<ISemanticRegion> tokens = new ArrayList<>();
    allSemanticRegions(model).forEach(tokens::add);
    if (tokens.isEmpty()) {
      return;
    }
    doc.set(tokens.get(0).getPreviousHiddenRegion(), this::noSpace);

    final Deque<ISemanticRegion> openBraces = new ArrayDeque<>();
    for (int i = 0; i < tokens.size(); i++) {
      final ISemanticRegion token = tokens.get(i);
      if (isKeyword(token, "{")) {
        openBraces.push(token);
      } else if (isKeyword(token, "}") && !openBraces.isEmpty()) {
        doc.interior(openBraces.pop(), token, this::indent);
      }
      if (i + 1 == tokens.size()) {
        doc.set(token.getNextHiddenRegion(), this::newLine);
      } else {
        doc.set(token.getNextHiddenRegion(), spacing(model, token, tokens.get(i + 1)));
      }
    }
    for (Spm spm : EcoreUtil2.eAllOfType(model, Spm.class)) {
      final ISemanticRegion name =
          regionFor(spm).feature(dev.kairos.dsl.kairos.KairosPackage.Literals.METHOD__NAME);
      final ISemanticRegion end = regionFor(spm).keyword(";");
      if (name != null && end != null) {
        doc.interior(name, end, this::indent);
      }
    }
  }

  private Procedure1<? super IHiddenRegionFormatter> spacing(
      Model model, ISemanticRegion before, ISemanticRegion after) {
    final String a = before.getText();
    final String b = after.getText();
    if (startsTopLevelElement(model, after)) {
      return f -> f.setNewLines(2);
    }
    if (isKeyword(before, "{") || isKeyword(after, "}")) {
      return this::newLine;
    }
    if (isKeyword(before, "}") || isKeyword(before, ";")) {
      if (b.equals(";") || b.equals(",")) {
        return this::noSpace;
      }
      // Members go one per line; a single blank line the author left between them stays.
      return f -> f.setNewLines(1, 1, 2);
    }
    if (isKeyword(after, "import") || isKeyword(before, "package")) {
      return isKeyword(before, "package") ? this::oneSpace : this::newLine;
    }
    if (startsLine(after, SPM_CLAUSES, Spm.class) || startsLine(after, NODE_MEMBERS, Node.class)) {
      return this::newLine;
    }
    if (b.equals(";") || b.equals(",") || b.equals(")") || b.equals("]") || b.equals(".*")) {
      return this::noSpace;
    }
    if (a.equals("(") || a.equals("[") || a.equals(".") || b.equals(".")) {
      return this::noSpace;
    }
    if (b.equals("<") || a.equals("<") || b.equals(">")) {
      return this::noSpace;
    }
    if (b.equals("(") || b.equals("[")) {
      return isKeyword(before, "start-during") || isKeyword(before, "raises")
          ? this::oneSpace
          : this::noSpace;
    }
    if (a.equals("-") && before.getSemanticElement() instanceof dev.kairos.dsl.kairos.NumberValue) {
      return this::noSpace;
    }
    return this::oneSpace;
  }

  private static boolean startsTopLevelElement(Model model, ISemanticRegion token) {
    final EObject element = token.getSemanticElement();
    EObject topLevel = element;
    while (topLevel != null && topLevel.eContainer() != model) {
      topLevel = topLevel.eContainer();
    }
    if (topLevel == null || !model.getElements().contains(topLevel)) {
      return false;
    }
    final ISemanticRegion previous = token.getPreviousSemanticRegion();
    return previous == null
        || previous.getSemanticElement() != null
            && !EcoreUtil2.isAncestor(topLevel, previous.getSemanticElement());
  }

  private static boolean startsLine(
      ISemanticRegion token, Set<String> keywords, Class<? extends EObject> owner) {
    return token.getGrammarElement() instanceof Keyword
        && keywords.contains(token.getText())
        && EcoreUtil2.getContainerOfType(token.getSemanticElement(), owner) != null
        && (owner != Spm.class
            || !(token.getSemanticElement() instanceof dev.kairos.dsl.kairos.Svm));
  }

  private static boolean isKeyword(ISemanticRegion token, String text) {
    return token.getGrammarElement() instanceof Keyword && token.getText().equals(text);
  }
}
