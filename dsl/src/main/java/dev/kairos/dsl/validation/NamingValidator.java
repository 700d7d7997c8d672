package dev.kairos.dsl.validation;

import java.util.Set;
import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.xtext.validation.Check;

/**
 * Names become C++ identifiers unchanged, so every name must be a legal, unreserved C++ identifier
 * in the generated code.
 */
public class NamingValidator extends ConcernValidator {

  /** C++20 keywords and alternative tokens, plus identifiers with special meaning. */
  static final Set<String> CPP_KEYWORDS =
      Set.of(
          "alignas",
          "alignof",
          "and",
          "and_eq",
          "asm",
          "auto",
          "bitand",
          "bitor",
          "bool",
          "break",
          "case",
          "catch",
          "char",
          "char8_t",
          "char16_t",
          "char32_t",
          "class",
          "compl",
          "concept",
          "const",
          "consteval",
          "constexpr",
          "constinit",
          "const_cast",
          "continue",
          "co_await",
          "co_return",
          "co_yield",
          "decltype",
          "default",
          "delete",
          "do",
          "double",
          "dynamic_cast",
          "else",
          "enum",
          "explicit",
          "export",
          "extern",
          "false",
          "float",
          "for",
          "friend",
          "goto",
          "if",
          "inline",
          "int",
          "long",
          "mutable",
          "namespace",
          "new",
          "noexcept",
          "not",
          "not_eq",
          "nullptr",
          "operator",
          "or",
          "or_eq",
          "private",
          "protected",
          "public",
          "register",
          "reinterpret_cast",
          "requires",
          "return",
          "short",
          "signed",
          "sizeof",
          "static",
          "static_assert",
          "static_cast",
          "struct",
          "switch",
          "template",
          "this",
          "thread_local",
          "throw",
          "true",
          "try",
          "typedef",
          "typeid",
          "typename",
          "union",
          "unsigned",
          "using",
          "virtual",
          "void",
          "volatile",
          "wchar_t",
          "while",
          "xor",
          "xor_eq",
          "final",
          "override",
          "import",
          "module",
          "main",
          "std",
          "NULL");

  @Check
  public void checkCppName(EObject element) {
    final EStructuralFeature feature = element.eClass().getEStructuralFeature("name");
    if (!(feature instanceof EAttribute) || feature.isMany()) {
      return;
    }
    if (!(element.eGet(feature) instanceof String name)) {
      return;
    }
    final String plain = name.startsWith("^") ? name.substring(1) : name;
    for (String part : plain.split("\\.")) {
      if (CPP_KEYWORDS.contains(part)) {
        error(
            "'" + part + "' is a C++ keyword or reserved identifier and cannot name anything here",
            element,
            feature,
            IssueCodes.CPP_KEYWORD);
        return;
      }
      if (part.contains("__")
          || (part.length() > 1 && part.charAt(0) == '_' && Character.isUpperCase(part.charAt(1)))
          || part.endsWith("_")) {
        error(
            "'"
                + part
                + "' is reserved in C++ (double underscore, or underscore and capital) or collides"
                + " with generated names (trailing underscore)",
            element,
            feature,
            IssueCodes.RESERVED_NAME);
        return;
      }
    }
  }
}
