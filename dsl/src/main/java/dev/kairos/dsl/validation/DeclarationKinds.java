package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.KairosPackage.Literals;
import java.util.Map;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.util.SimpleAttributeResolver;

/** How diagnostics name each kind of declaration: with the keyword that declares it. */
public final class DeclarationKinds {
  private DeclarationKinds() {}

  private static final Map<EClass, String> WORDS =
      Map.ofEntries(
          Map.entry(Literals.MODEL, "package"),
          Map.entry(Literals.STRUCT, "struct"),
          Map.entry(Literals.ENUM_DECL, "enum"),
          Map.entry(Literals.ENUM_LITERAL, "enum literal"),
          Map.entry(Literals.EXCEPTION_DECL, "exception"),
          Map.entry(Literals.TYPEDEF, "typedef"),
          Map.entry(Literals.CONST_DECL, "constant"),
          Map.entry(Literals.TYPE_DECL, "type"),
          Map.entry(Literals.VALUE_DECL, "constant or enum literal"),
          Map.entry(Literals.FIELD, "field"),
          Map.entry(Literals.INTERFACE, "interface"),
          Map.entry(Literals.OPERATION, "operation"),
          Map.entry(Literals.PARAMETER, "parameter"),
          Map.entry(Literals.TMO, "TMO"),
          Map.entry(Literals.SEGMENT, "segment"),
          Map.entry(Literals.GATE, "gate"),
          Map.entry(Literals.CHANNEL, "channel"),
          Map.entry(Literals.SPM, "spm"),
          Map.entry(Literals.SVM, "svm"),
          Map.entry(Literals.METHOD, "method"),
          Map.entry(Literals.HARDWARE, "hardware"),
          Map.entry(Literals.NODE, "node"),
          Map.entry(Literals.DEPLOYMENT, "deployment"),
          Map.entry(Literals.NETWORK, "network"),
          Map.entry(Literals.SYSTEM_DECL, "system"));

  /** "struct", "TMO", "enum literal": the word for declarations of this class. */
  public static String word(EClass type) {
    final String word = WORDS.get(type);
    return word != null ? word : type.getName().toLowerCase(java.util.Locale.ROOT);
  }

  public static String word(EObject declaration) {
    return word(declaration.eClass());
  }

  /** "struct Point", "package geo", or just the word when the declaration has no name yet. */
  public static String describe(EObject declaration) {
    final String name = SimpleAttributeResolver.NAME_RESOLVER.apply(declaration);
    return name == null || name.isEmpty() ? word(declaration) : word(declaration) + " " + name;
  }

  /**
   * Where a declaration lives, as a reader would say it: "struct Point", "package geo", or "the
   * model" for the top level of a file without a package.
   */
  public static String scopeOf(EObject declaration) {
    EObject container = declaration.eContainer();
    while (container != null
        && SimpleAttributeResolver.NAME_RESOLVER.apply(container) == null
        && container.eClass() != Literals.MODEL) {
      container = container.eContainer();
    }
    if (container == null) {
      return "the model";
    }
    final String name = SimpleAttributeResolver.NAME_RESOLVER.apply(container);
    if (container.eClass() == Literals.MODEL && (name == null || name.isEmpty())) {
      return "the model (no package)";
    }
    return describe(container);
  }
}
