package dev.kairos.dsl.linking;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.Gate;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.Tmo;
import dev.kairos.dsl.scoping.KairosScopeProvider;
import dev.kairos.dsl.validation.DeclarationKinds;
import dev.kairos.dsl.validation.IssueCodes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.xtext.CrossReference;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.diagnostics.DiagnosticMessage;
import org.eclipse.xtext.diagnostics.Severity;
import org.eclipse.xtext.linking.impl.IllegalNodeException;
import org.eclipse.xtext.linking.impl.LinkingDiagnosticMessageProvider;
import org.eclipse.xtext.naming.IQualifiedNameConverter;
import org.eclipse.xtext.naming.QualifiedName;
import org.eclipse.xtext.resource.IEObjectDescription;
import org.eclipse.xtext.resource.impl.ResourceDescriptionsProvider;
import org.eclipse.xtext.util.IResourceScopeCache;

/**
 * Names that do not resolve, reported in Kairos's words ("unknown type 'Pointt'", "TMO 'Server' has
 * no svm 'gett'") under {@link IssueCodes#UNRESOLVED_REFERENCE}, with a hint when the name is
 * declared in another package or as another kind of thing. The code is set here, so the command
 * line and the language server report the same one.
 */
public class KairosLinkingMessages extends LinkingDiagnosticMessageProvider {
  private static final String TOP_LEVEL_BY_NAME = KairosLinkingMessages.class.getName();

  @Inject private ResourceDescriptionsProvider descriptionsProvider;
  @Inject private IResourceScopeCache cache;
  @Inject private IQualifiedNameConverter names;

  @Override
  public DiagnosticMessage getUnresolvedProxyMessage(ILinkingDiagnosticContext context) {
    final EObject owner = context.getContext();
    final EReference reference = context.getReference();
    final String text = context.getLinkText();
    final String message;
    if (reference == Literals.GATE__METHOD && owner instanceof Gate gate) {
      final Tmo callee = gate.getCallee();
      if (callee == null || callee.eIsProxy()) {
        return null; // the unknown callee is the problem, reported on its own
      }
      message = "TMO '" + callee.getName() + "' has no svm '" + text + "'";
    } else if (reference == Literals.SEGMENT_USE__SEGMENT) {
      final Tmo tmo = EcoreUtil2.getContainerOfType(owner, Tmo.class);
      message =
          tmo == null
              ? "unknown segment '" + text + "'"
              : "TMO '" + tmo.getName() + "' has no segment '" + text + "' in its ods";
    } else if (reference == Literals.ENUM_VALUE__LITERAL && enumOfConstant(owner) != null) {
      message = "enum " + enumOfConstant(owner).getName() + " has no literal '" + text + "'";
    } else if (reference == Literals.NAMED_VALUE__TARGET
        && KairosScopeProvider.enumOfField(owner) != null) {
      final EnumDecl enumeration = KairosScopeProvider.enumOfField(owner);
      message =
          "enum "
              + enumeration.getName()
              + " has no literal '"
              + text
              + "', and no constant has that name either";
    } else {
      final EClass kind = reference.getEReferenceType();
      message =
          "unknown " + DeclarationKinds.word(kind) + " '" + text + "'" + hint(owner, kind, text);
    }
    return error(message);
  }

  /** The enum type of the constant `context` belongs to, if it has one. */
  private static EnumDecl enumOfConstant(EObject context) {
    final ConstDecl constant = EcoreUtil2.getContainerOfType(context, ConstDecl.class);
    return constant != null
            && constant.getType() instanceof NamedTypeRef named
            && named.getType() instanceof EnumDecl enumeration
        ? enumeration
        : null;
  }

  /** Where the name is declared after all: in another package, or as another kind of thing. */
  private String hint(EObject owner, EClass kind, String text) {
    final QualifiedName written;
    try {
      written = names.toQualifiedName(text);
    } catch (RuntimeException malformed) {
      return "";
    }
    if (written.isEmpty() || owner.eResource() == null) {
      return "";
    }
    final String simple = written.getLastSegment();
    final List<IEObjectDescription> declared =
        topLevelBySimpleName(owner.eResource()).getOrDefault(simple, List.of());
    final List<String> packages =
        declared.stream()
            .filter(d -> kind.isSuperTypeOf(d.getEClass()) && d.getName().getSegmentCount() > 1)
            .map(d -> d.getName().skipLast(1).toString())
            .distinct()
            .sorted()
            .toList();
    if (!packages.isEmpty()) {
      final String first = packages.get(0);
      return "; "
          + (packages.size() == 1 ? "package " + first : "packages " + String.join(", ", packages))
          + " declare"
          + (packages.size() == 1 ? "s" : "")
          + " one: write "
          + first
          + "."
          + simple
          + " or import "
          + first
          + ".*";
    }
    return declared.stream()
        .filter(d -> !kind.isSuperTypeOf(d.getEClass()))
        .findFirst()
        .map(d -> " ('" + simple + "' is a " + DeclarationKinds.word(d.getEClass()) + ")")
        .orElse("");
  }

  /** The top-level declarations of the whole system by simple name, once per resource state. */
  private Map<String, List<IEObjectDescription>> topLevelBySimpleName(Resource resource) {
    return cache.get(
        TOP_LEVEL_BY_NAME,
        resource,
        () -> {
          final Map<String, List<IEObjectDescription>> byName = new HashMap<>();
          for (IEObjectDescription description :
              descriptionsProvider.getResourceDescriptions(resource).getExportedObjects()) {
            if (Literals.ELEMENT.isSuperTypeOf(description.getEClass())
                && !description.getName().isEmpty()) {
              byName
                  .computeIfAbsent(description.getName().getLastSegment(), k -> new ArrayList<>())
                  .add(description);
            }
          }
          return byName;
        });
  }

  @Override
  public DiagnosticMessage getIllegalNodeMessage(
      ILinkingDiagnosticContext context, IllegalNodeException ex) {
    return error("'" + context.getLinkText() + "' cannot name anything here");
  }

  @Override
  public DiagnosticMessage getIllegalCrossReferenceMessage(
      ILinkingDiagnosticContext context, CrossReference reference) {
    return error("'" + context.getLinkText() + "' cannot name anything here");
  }

  @Override
  public DiagnosticMessage getViolatedBoundsConstraintMessage(
      ILinkingDiagnosticContext context, int size) {
    return error("too many names here ('" + context.getLinkText() + "')");
  }

  @Override
  public DiagnosticMessage getViolatedUniqueConstraintMessage(ILinkingDiagnosticContext context) {
    return error("'" + context.getLinkText() + "' is named twice here");
  }

  private static DiagnosticMessage error(String message) {
    return new DiagnosticMessage(message, Severity.ERROR, IssueCodes.UNRESOLVED_REFERENCE);
  }
}
