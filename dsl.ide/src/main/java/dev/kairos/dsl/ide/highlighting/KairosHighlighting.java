package dev.kairos.dsl.ide.highlighting;

import dev.kairos.dsl.kairos.KairosPackage.Literals;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.lsp4j.SemanticTokenModifiers;
import org.eclipse.lsp4j.SemanticTokenTypes;
import org.eclipse.xtext.AbstractRule;
import org.eclipse.xtext.Assignment;
import org.eclipse.xtext.CrossReference;
import org.eclipse.xtext.EnumLiteralDeclaration;
import org.eclipse.xtext.EnumRule;
import org.eclipse.xtext.GrammarUtil;
import org.eclipse.xtext.Keyword;
import org.eclipse.xtext.RuleCall;
import org.eclipse.xtext.TerminalRule;
import org.eclipse.xtext.ide.editor.syntaxcoloring.IHighlightedPositionAcceptor;
import org.eclipse.xtext.ide.editor.syntaxcoloring.ISemanticHighlightingCalculator;
import org.eclipse.xtext.nodemodel.ICompositeNode;
import org.eclipse.xtext.nodemodel.ILeafNode;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;
import org.eclipse.xtext.resource.XtextResource;
import org.eclipse.xtext.util.CancelIndicator;

/**
 * Semantic tokens for editors, named with the LSP's standard token types so that any client's theme
 * colours them: declarations by what they declare (a TMO is a class, an SpM a method, a segment a
 * property), references by what they refer to, keywords, numbers, enumeration values and primitive
 * types. Colours then follow meaning, which a grammar-only highlighter cannot know (a `channel` may
 * be a keyword or a parameter's name).
 */
public class KairosHighlighting implements ISemanticHighlightingCalculator {
  private static final String[] NONE = {};

  @Override
  public void provideHighlightingFor(
      XtextResource resource, IHighlightedPositionAcceptor acceptor, CancelIndicator cancel) {
    if (resource == null || resource.getParseResult() == null) {
      return;
    }
    final ICompositeNode root = resource.getParseResult().getRootNode();
    final var nodes = root.getAsTreeIterable().iterator();
    int visited = 0;
    while (nodes.hasNext()) {
      if ((++visited & 0x3ff) == 0 && cancel.isCanceled()) {
        return;
      }
      final INode node = nodes.next();
      final EObject grammarElement = node.getGrammarElement();
      if (grammarElement == null || node.getLength() == 0) {
        continue;
      }
      final String[] token = tokenOf(node, grammarElement);
      if (token == null) {
        continue; // look inside: the leaves may say more
      }
      if (token.length > 0) {
        acceptor.addPosition(node.getOffset(), node.getLength(), token);
      }
      nodes.prune();
    }
  }

  /**
   * The token of a whole node (its children are then skipped), an empty array for a node that gets
   * none, or null where its children decide.
   */
  private String[] tokenOf(INode node, EObject grammarElement) {
    final CrossReference reference = GrammarUtil.containingCrossReference(grammarElement);
    if (reference != null) {
      return referenceToken(node);
    }
    final Assignment assignment = GrammarUtil.containingAssignment(grammarElement);
    if (assignment != null && !(node instanceof ILeafNode && ((ILeafNode) node).isHidden())) {
      final String feature = assignment.getFeature();
      if ("name".equals(feature)) {
        return declarationToken(NodeModelUtils.findActualSemanticObjectFor(node));
      }
      if ("variable".equals(feature)) {
        return new String[] {SemanticTokenTypes.Parameter, SemanticTokenModifiers.Declaration};
      }
      if ("anchor".equals(feature)) {
        return new String[] {SemanticTokenTypes.Parameter};
      }
      if ("importedNamespace".equals(feature)) {
        return new String[] {SemanticTokenTypes.Namespace};
      }
    }
    if (grammarElement instanceof TerminalRule rule) {
      // hidden tokens: only comments are worth a token
      return rule.getName().endsWith("_COMMENT") ? new String[] {SemanticTokenTypes.Comment} : NONE;
    }
    if (grammarElement instanceof EnumLiteralDeclaration literal) {
      return literalToken(literal);
    }
    if (grammarElement instanceof RuleCall call) {
      final AbstractRule rule = call.getRule();
      if ("Decimal".equals(rule.getName()) || "INT".equals(rule.getName())) {
        return new String[] {SemanticTokenTypes.Number};
      }
      if ("STRING".equals(rule.getName())) {
        return new String[] {SemanticTokenTypes.String};
      }
      return null;
    }
    if (grammarElement instanceof Keyword keyword) {
      return keywordToken(keyword);
    }
    return null;
  }

  /** A literal of an enumeration of the grammar: a primitive type, a unit or a value. */
  private static String[] literalToken(EnumLiteralDeclaration literal) {
    final String name =
        GrammarUtil.containingRule(literal) instanceof EnumRule rule ? rule.getName() : "";
    if ("PrimitiveKind".equals(name)) {
      return new String[] {SemanticTokenTypes.Type, SemanticTokenModifiers.DefaultLibrary};
    }
    if ("TimeUnit".equals(name) || "BandwidthUnit".equals(name)) {
      return new String[] {SemanticTokenTypes.Keyword};
    }
    return new String[] {SemanticTokenTypes.EnumMember};
  }

  private static String[] keywordToken(Keyword keyword) {
    if (keyword.eContainer() instanceof EnumLiteralDeclaration literal) {
      return literalToken(literal);
    }
    final String text = keyword.getValue();
    if (!text.isEmpty() && Character.isLetter(text.charAt(0))) {
      return new String[] {SemanticTokenTypes.Keyword};
    }
    if ("->".equals(text) || "+".equals(text) || "=".equals(text) || "-".equals(text)) {
      return new String[] {SemanticTokenTypes.Operator};
    }
    return NONE;
  }

  private static String[] referenceToken(INode node) {
    final EObject owner = NodeModelUtils.findActualSemanticObjectFor(node);
    final CrossReference crossReference =
        GrammarUtil.containingCrossReference(node.getGrammarElement());
    final Assignment assignment = GrammarUtil.containingAssignment(crossReference);
    if (owner == null || assignment == null) {
      return NONE;
    }
    final EStructuralFeature feature =
        owner.eClass().getEStructuralFeature(assignment.getFeature());
    if (!(feature instanceof EReference reference)) {
      return NONE;
    }
    EClass target = reference.getEReferenceType();
    if (!reference.isMany() && owner.eGet(reference, false) instanceof EObject linked) {
      if (!linked.eIsProxy()) {
        target = linked.eClass();
      }
    }
    final String type = typeOf(target);
    if (type == null) {
      return NONE;
    }
    return target == Literals.CONST_DECL
        ? new String[] {type, SemanticTokenModifiers.Readonly}
        : new String[] {type};
  }

  private static String[] declarationToken(EObject declared) {
    if (declared == null) {
      return NONE;
    }
    final String type = typeOf(declared.eClass());
    if (type == null) {
      return NONE;
    }
    return declared.eClass() == Literals.CONST_DECL
        ? new String[] {type, SemanticTokenModifiers.Declaration, SemanticTokenModifiers.Readonly}
        : new String[] {type, SemanticTokenModifiers.Declaration};
  }

  /** The LSP token type of a kind of declaration (null: none fits). */
  static String typeOf(EClass type) {
    if (type == Literals.TMO) {
      return SemanticTokenTypes.Class;
    }
    if (type == Literals.SPM
        || type == Literals.SVM
        || type == Literals.METHOD
        || type == Literals.OPERATION) {
      return SemanticTokenTypes.Method;
    }
    if (type == Literals.STRUCT || type == Literals.EXCEPTION_DECL || type == Literals.SEGMENT) {
      return SemanticTokenTypes.Struct;
    }
    if (type == Literals.ENUM_DECL) {
      return SemanticTokenTypes.Enum;
    }
    if (type == Literals.ENUM_LITERAL) {
      return SemanticTokenTypes.EnumMember;
    }
    if (type == Literals.INTERFACE) {
      return SemanticTokenTypes.Interface;
    }
    if (type == Literals.TYPEDEF || type == Literals.TYPE_DECL || type == Literals.HARDWARE) {
      return SemanticTokenTypes.Type;
    }
    if (type == Literals.FIELD) {
      return SemanticTokenTypes.Property;
    }
    if (type == Literals.PARAMETER) {
      return SemanticTokenTypes.Parameter;
    }
    if (type == Literals.CONST_DECL || type == Literals.DEPLOYMENT) {
      return SemanticTokenTypes.Variable;
    }
    if (type == Literals.GATE || type == Literals.CHANNEL) {
      return SemanticTokenTypes.Event;
    }
    if (type == Literals.MODEL
        || type == Literals.NODE
        || type == Literals.NETWORK
        || type == Literals.SYSTEM_DECL) {
      return SemanticTokenTypes.Namespace;
    }
    return null;
  }
}
