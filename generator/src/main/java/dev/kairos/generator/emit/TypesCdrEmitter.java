package dev.kairos.generator.emit;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import dev.kairos.ir.wire.MaxEncodedSize;
import java.util.ArrayList;
import java.util.List;

/**
 * types.cdr.hpp: how each declared type travels (docs/marshalling.md). Structs, exceptions and
 * enums get {@code encode}/{@code decode} overloads in their own namespace, where
 * argument-dependent lookup finds them from any generated code; strings, sequences and arrays use
 * the generic overloads of {@code <kairos/cdr.hpp>}, which call these for their elements. Every
 * type also gets its maximum encoded size, in {@code <package>::cdr::max_size}.
 *
 * <p>A typedef is a C++ alias, not a type of its own: it travels as what it aliases, through that
 * type's overloads. (An overload per typedef would redefine the aliased type's overload, and two
 * typedefs of one type would collide.) It still gets its maximum size.
 */
final class TypesCdrEmitter {
  static final String FILE = FileLayout.TYPES_CDR;

  /** The namespace, inside a type's package, that holds the maximum sizes of its types. */
  static final String MAX_SIZE_NAMESPACE = "cdr::max_size";

  private TypesCdrEmitter() {}

  static GeneratedFile emit(SystemModel system, MaxEncodedSize sizes, List<String> modelFiles) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(FILE, modelFiles));
    w.line("#pragma once").blank();
    w.line("#include <cstddef>").blank();
    w.line("#include <kairos/cdr.hpp>").blank();
    w.line("#include \"$types$\"", "types", FileLayout.TYPES).blank();

    final NamespaceScope scope = new NamespaceScope(w);
    for (TypeDeclaration declaration : system.types()) {
      if (declaration instanceof Alias) {
        continue;
      }
      scope.enter(declaration.namespace());
      w.line(Banner.origin(declaration.source()));
      if (declaration instanceof Enumeration enumeration) {
        enumeration(w, enumeration);
      } else {
        final Aggregate aggregate = (Aggregate) declaration;
        aggregate(w, aggregate.name(), aggregate.fields().stream().map(Field::name).toList());
      }
      w.blank();
    }
    for (TypeDeclaration declaration : system.types()) {
      scope.enter(maxSizeNamespace(declaration.namespace()));
      w.line(Banner.origin(declaration.source()));
      if (declaration instanceof Alias alias) {
        w.comment(
            "typedef $name$ travels as $type$.",
            "name",
            alias.name(),
            "type",
            CppNames.type(alias.type(), alias.arraySize()));
      }
      w.line(
          "inline constexpr ::std::size_t $name$ = $size$;",
          "name",
          declaration.name(),
          "size",
          sizes.anyStart(declaration));
      w.blank();
    }
    scope.leave();
    return new GeneratedFile(FILE, w.text(), GeneratedFile.Kind.CPP);
  }

  /** Where the maximum sizes of a package's types are: {@code <package>::cdr::max_size}. */
  static List<String> maxSizeNamespace(List<String> namespace) {
    final List<String> result = new ArrayList<>(namespace);
    result.addAll(List.of(MAX_SIZE_NAMESPACE.split("::")));
    return result;
  }

  private static void enumeration(CodeWriter w, Enumeration enumeration) {
    w.comment(
        "enum $name$: the uint32 of its literal's position, below $count$.",
        "name",
        enumeration.name(),
        "count",
        enumeration.literals().size());
    w.open(
        "inline ::kairos::cdr::Status encode(::kairos::cdr::Writer& writer, $type$ value)"
            + " noexcept {",
        "type",
        enumeration.name());
    w.line("return ::kairos::cdr::encode_enum(writer, value);");
    w.close("}");
    w.open(
        "inline ::kairos::cdr::Status decode(::kairos::cdr::Reader& reader, $type$& value)"
            + " noexcept {",
        "type",
        enumeration.name());
    w.line(
        "return ::kairos::cdr::decode_enum(reader, value, $count$);",
        "count",
        enumeration.literals().size());
    w.close("}");
  }

  /**
   * The encode/decode pair of an aggregate: its members in order. Each call is unqualified, so the
   * member's own overload is found (by the namespace of its type, or through the Writer's);
   * failures stick in the writer or reader, so one status at the end tells.
   */
  static void aggregate(CodeWriter w, String type, List<String> members) {
    final String value = members.isEmpty() ? "/*value*/" : "value";
    memberwise(
        w,
        "inline ::kairos::cdr::Status encode(::kairos::cdr::Writer& writer, const $type$& $value$)"
            + " noexcept {",
        "encode(writer, value.$member$);",
        "return writer.status();",
        type,
        value,
        members);
    memberwise(
        w,
        "inline ::kairos::cdr::Status decode(::kairos::cdr::Reader& reader, $type$& $value$)"
            + " noexcept {",
        "decode(reader, value.$member$);",
        "return reader.status();",
        type,
        value,
        members);
  }

  /** One function of the pair: its signature, a call per member in order, then its status. */
  private static void memberwise(
      CodeWriter w,
      String signature,
      String call,
      String status,
      String type,
      String value,
      List<String> members) {
    w.open(signature, "type", type, "value", value);
    for (String member : members) {
      w.line(call, "member", member);
    }
    w.line(status);
    w.close("}");
  }
}
