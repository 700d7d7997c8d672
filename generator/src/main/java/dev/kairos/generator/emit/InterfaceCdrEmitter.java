package dev.kairos.generator.emit;

import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Interface;
import dev.kairos.ir.Types.Operation;
import dev.kairos.ir.wire.OperationMessages;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code <package>/<Interface>.cdr.hpp}: the messages of an interface's operations
 * (docs/marshalling.md). Per operation, in declaration order: a dense id, a request struct (its
 * {@code in} and {@code inout} parameters), a reply struct (the result, then its {@code inout} and
 * {@code out} parameters; none for oneway) and, where it {@code raises}, an exception struct whose
 * variant index is the exception's dense index (0 = none). Each has encode/decode overloads and its
 * maximum size as a body, and a constexpr table describes every operation.
 *
 * <p>All of it lives in {@code <package>::cdr::<Interface>}: a namespace of its own per interface,
 * so the message names ({@code CurrentRequest}) can never meet the model's own type names, which
 * live in {@code <package>}.
 */
final class InterfaceCdrEmitter {
  /** The member of a reply that holds the result: a name ending in '_' no model name can have. */
  static final String RESULT_MEMBER = "result_";

  private InterfaceCdrEmitter() {}

  static List<String> namespace(Interface iface) {
    final List<String> result = new ArrayList<>(iface.namespace());
    result.add("cdr");
    result.add(iface.name());
    return result;
  }

  static String requestType(Operation operation) {
    return CppNames.typeName(operation.name()) + "Request";
  }

  static String replyType(Operation operation) {
    return CppNames.typeName(operation.name()) + "Reply";
  }

  static String exceptionType(Operation operation) {
    return CppNames.typeName(operation.name()) + "Exception";
  }

  static GeneratedFile emit(Interface iface, OperationMessages messages) {
    final String file = FileLayout.interfaceCdr(iface);
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(file, List.of(iface.source().file())));
    w.line("#pragma once").blank();
    if (sizeTerms(iface, true).size() > 1 || sizeTerms(iface, false).size() > 1) {
      w.line("#include <algorithm>"); // std::max of the operations' sizes
    }
    w.line("#include <array>");
    w.line("#include <cstddef>");
    w.line("#include <cstdint>");
    if (iface.operations().stream().anyMatch(o -> !o.raises().isEmpty())) {
      w.line("#include <variant>");
    }
    w.blank();
    w.line("#include <kairos/cdr.hpp>").blank();
    w.line("#include \"$types$\"", "types", FileLayout.TYPES);
    w.line("#include \"$cdr$\"", "cdr", FileLayout.TYPES_CDR).blank();

    final NamespaceScope scope = new NamespaceScope(w);
    scope.enter(namespace(iface));
    operationIds(w, iface);
    for (Operation operation : iface.operations()) {
      request(w, operation, messages);
      if (!operation.oneway()) {
        reply(w, operation, messages);
      }
      if (!operation.raises().isEmpty()) {
        exception(w, operation, messages);
      }
    }
    table(w, iface);
    scope.leave();
    return new GeneratedFile(file, w.text(), GeneratedFile.Kind.CPP);
  }

  private static void operationIds(CodeWriter w, Interface iface) {
    w.line(Banner.origin(iface.source()));
    w.line(
        "/// The operations of interface $name$, in declaration order: the id a request carries.",
        "name",
        iface.name());
    w.open("enum class Operation : ::std::uint16_t {");
    for (Operation operation : iface.operations()) {
      w.line("$name$,", "name", operation.name());
    }
    w.close("};");
    w.line(
        "inline constexpr ::std::size_t kOperationCount = $count$;",
        "count",
        iface.operations().size());
    w.blank();
  }

  private static void request(CodeWriter w, Operation operation, OperationMessages messages) {
    w.line(Banner.origin(operation.source()));
    w.line(
        "/// The request of $name$: its in and inout parameters, in order.",
        "name",
        operation.name());
    message(w, requestType(operation), OperationMessages.request(operation), messages);
  }

  private static void reply(CodeWriter w, Operation operation, OperationMessages messages) {
    w.line(Banner.origin(operation.source()));
    w.line(
        "/// The reply of $name$: the result, then its inout and out parameters, in order.",
        "name",
        operation.name());
    message(w, replyType(operation), OperationMessages.reply(operation), messages);
  }

  /** The C++ name of a message member: a parameter's, or {@link #RESULT_MEMBER}. */
  private static String memberName(OperationMessages.Member member) {
    return member.parameter().orElse(RESULT_MEMBER);
  }

  /** A message struct, its overloads, and its maximum size as a whole body. */
  private static void message(
      CodeWriter w,
      String type,
      List<OperationMessages.Member> members,
      OperationMessages messages) {
    w.open("struct $type$ {", "type", type);
    for (OperationMessages.Member member : members) {
      w.line("$type$ $name${};", "type", CppNames.type(member.type()), "name", memberName(member));
    }
    w.line("static constexpr ::std::size_t kMaxSize = $size$;", "size", messages.body(members));
    w.blank();
    w.line("friend bool operator==(const $type$&, const $type$&) = default;", "type", type);
    w.close("};");
    TypesCdrEmitter.aggregate(
        w, type, members.stream().map(InterfaceCdrEmitter::memberName).toList());
    w.blank();
  }

  /**
   * What an operation may raise: a variant whose index is the dense exception index (0 = none, then
   * the `raises` list in order), sent as a uint32 and followed by the exception's fields.
   */
  private static void exception(CodeWriter w, Operation operation, OperationMessages messages) {
    final String type = exceptionType(operation);
    final List<String> alternatives = new ArrayList<>(List.of("::std::monostate"));
    for (TypeUse.Named raised : operation.raises()) {
      alternatives.add(CppNames.type(raised));
    }
    final long maxSize = messages.exceptionBytes(operation);
    w.line(Banner.origin(operation.source()));
    w.line(
        "/// What $name$ raises: index 0 none, then $raises$.",
        "name",
        operation.name(),
        "raises",
        String.join(", ", names(operation.raises())));
    w.open("struct $type$ {", "type", type);
    w.line(
        "::std::variant<$alternatives$> raised{};",
        "alternatives",
        String.join(", ", alternatives));
    w.line("static constexpr ::std::size_t kMaxSize = $size$;", "size", maxSize);
    w.blank();
    w.line("friend bool operator==(const $type$&, const $type$&) = default;", "type", type);
    w.close("};");

    w.open(
        "inline ::kairos::cdr::Status encode(::kairos::cdr::Writer& writer, const $type$& value)"
            + " noexcept {",
        "type",
        type);
    w.line("writer.write(static_cast<::std::uint32_t>(value.raised.index()));");
    w.open("switch (value.raised.index()) {");
    for (int index = 1; index <= operation.raises().size(); index++) {
      w.outdented("case $index$:", "index", index);
      w.line("encode(writer, *::std::get_if<$index$>(&value.raised));", "index", index);
      w.line("break;");
    }
    w.outdented("default:");
    w.line("break;");
    w.close("}");
    w.line("return writer.status();");
    w.close("}");

    w.open(
        "inline ::kairos::cdr::Status decode(::kairos::cdr::Reader& reader, $type$& value)"
            + " noexcept {",
        "type",
        type);
    w.line("::std::uint32_t index = 0;");
    w.open("if (reader.read(index) != ::kairos::cdr::Status::kOk) {");
    w.line("return reader.status();");
    w.close("}");
    w.open("switch (index) {");
    w.outdented("case 0:");
    w.line("value.raised.emplace<0>();");
    w.line("break;");
    for (int index = 1; index <= operation.raises().size(); index++) {
      w.outdented("case $index$:", "index", index);
      w.line("decode(reader, value.raised.emplace<$index$>());", "index", index);
      w.line("break;");
    }
    w.outdented("default:");
    w.line("return reader.fail(::kairos::cdr::Status::kInvalidValue);");
    w.close("}");
    w.line("return reader.status();");
    w.close("}");
    w.blank();
  }

  /** The raised exceptions as the model names them, qualified where packages differ. */
  private static List<String> names(List<TypeUse.Named> raises) {
    final Set<List<String>> packages = new HashSet<>();
    raises.forEach(r -> packages.add(r.namespace()));
    return raises.stream()
        .map(
            r ->
                packages.size() > 1 && !r.namespace().isEmpty()
                    ? String.join(".", r.namespace()) + "." + r.name()
                    : r.name())
        .toList();
  }

  /** One row per operation, indexed by its id: what the ORB needs to size and route messages. */
  private static void table(CodeWriter w, Interface iface) {
    final List<String> rows = new ArrayList<>();
    for (Operation operation : iface.operations()) {
      rows.add(
          "{"
              + CppNames.literal(operation.name())
              + ", "
              + operation.oneway()
              + ", "
              + requestType(operation)
              + "::kMaxSize, "
              + (operation.oneway() ? "0" : replyType(operation) + "::kMaxSize")
              + ", "
              + (operation.raises().isEmpty() ? "0" : exceptionType(operation) + "::kMaxSize")
              + "},");
    }
    w.line("/// Every operation by its id (`kOperations[id]`).");
    w.openList(
        "inline constexpr ::std::array<::kairos::cdr::OperationInfo, kOperationCount> kOperations{{");
    rows.forEach(row -> w.line("$row$", "row", row));
    w.closeList("}};");
    w.blank();
    w.line("/// The largest request and the largest reply or exception of any operation.");
    w.line(
        "inline constexpr ::std::size_t kMaxRequestSize = $size$;", "size", maxOver(iface, true));
    w.line("inline constexpr ::std::size_t kMaxReplySize = $size$;", "size", maxOver(iface, false));
  }

  private static String maxOver(Interface iface, boolean request) {
    final List<String> terms = sizeTerms(iface, request);
    if (terms.isEmpty()) {
      return "0";
    }
    return terms.size() == 1 ? terms.get(0) : "::std::max({" + String.join(", ", terms) + "})";
  }

  /** The maximum sizes of every request, or of every reply and exception, of an interface. */
  private static List<String> sizeTerms(Interface iface, boolean request) {
    final List<String> terms = new ArrayList<>();
    for (Operation operation : iface.operations()) {
      if (request) {
        terms.add(requestType(operation) + "::kMaxSize");
      } else {
        if (!operation.oneway()) {
          terms.add(replyType(operation) + "::kMaxSize");
        }
        if (!operation.raises().isEmpty()) {
          terms.add(exceptionType(operation) + "::kMaxSize");
        }
      }
    }
    return terms;
  }
}
