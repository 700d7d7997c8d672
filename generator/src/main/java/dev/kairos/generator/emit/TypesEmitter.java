package dev.kairos.generator.emit;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Constant;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.List;

/**
 * types.hpp: the model's IDL types as plain C++ aggregates. Bounded strings and sequences are
 * fixed-capacity containers, so no generated type ever allocates.
 */
final class TypesEmitter {
  static final String FILE = FileLayout.TYPES;

  private TypesEmitter() {}

  static GeneratedFile emit(SystemModel system, List<String> modelFiles) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(FILE, modelFiles));
    w.line("#pragma once").blank();
    w.line("#include <array>");
    w.line("#include <cstdint>");
    w.line("#include <string_view>").blank();
    w.line("#include <kairos/bounded.hpp>").blank();

    final NamespaceScope scope = new NamespaceScope(w);
    for (TypeDeclaration declaration : system.types()) {
      scope.enter(declaration.namespace());
      w.line(Banner.origin(declaration.source()));
      if (declaration instanceof Enumeration enumeration) {
        enumeration(w, enumeration);
      } else if (declaration instanceof Aggregate aggregate) {
        aggregate(w, aggregate);
      } else if (declaration instanceof Alias alias) {
        w.line(
            "using $name$ = $type$;",
            "name",
            alias.name(),
            "type",
            CppNames.type(alias.type(), alias.arraySize()));
      }
      w.blank();
    }
    for (Constant constant : system.constants()) {
      scope.enter(constant.namespace());
      w.line(Banner.origin(constant.source()));
      final String type =
          constant.type() instanceof TypeUse.BoundedString
              ? "::std::string_view"
              : CppNames.type(constant.type());
      w.line(
          "inline constexpr $type$ $name$ = $value$;",
          "type",
          type,
          "name",
          constant.name(),
          "value",
          CppNames.value(constant.value(), constant.type()));
      w.blank();
    }
    scope.leave();
    return new GeneratedFile(FILE, w.text(), GeneratedFile.Kind.CPP);
  }

  private static void enumeration(CodeWriter w, Enumeration enumeration) {
    w.open("enum class $name$ : ::std::uint32_t {", "name", enumeration.name());
    for (String literal : enumeration.literals()) {
      w.line("$literal$,", "literal", literal);
    }
    w.close("};");
  }

  private static void aggregate(CodeWriter w, Aggregate aggregate) {
    w.open("struct $name$ {", "name", aggregate.name());
    fields(w, aggregate.fields());
    w.blank();
    w.line(
        "friend bool operator==(const $name$&, const $name$&) = default;",
        "name",
        aggregate.name());
    w.close("};");
  }

  /** Members, value-initialised so a default-constructed message is all zeros. */
  private static void fields(CodeWriter w, List<Field> fields) {
    for (Field field : fields) {
      w.line(
          "$type$ $name${};",
          "type",
          CppNames.type(field.type(), field.arraySize()),
          "name",
          field.name());
    }
  }
}
