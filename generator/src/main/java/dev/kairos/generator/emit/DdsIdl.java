package dev.kairos.generator.emit;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The IDL of a system's channel payloads, for Cyclone DDS's idlc: one module per package, each
 * payload a final struct, every name kept clear of IDL's keywords.
 */
final class DdsIdl {
  private DdsIdl() {}

  static GeneratedFile idl(SystemModel system, List<String> modelFiles) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(FileLayout.CHANNELS_IDL, modelFiles));
    w.line("// The payload types of the model's channels, for any DDS application: each channel's");
    w.line("// topic (named in docs/channels.md) carries its payload struct.");
    for (TypeDeclaration declaration : DdsEmitter.reachable(system)) {
      w.blank();
      w.line(Banner.origin(declaration.source()));
      for (String module : declaration.namespace()) {
        w.open("module $module$ {", "module", idlName(module));
      }
      if (declaration instanceof Aggregate aggregate) {
        w.open("@final struct $name$ {", "name", idlName(aggregate.name()));
        for (Field field : aggregate.fields()) {
          w.line(
              "$type$ $name$$array$;",
              "type",
              idlType(field.type()),
              "name",
              idlName(field.name()),
              "array",
              field.arraySize() > 0 ? "[" + field.arraySize() + "]" : "");
        }
        w.close("};");
      } else if (declaration instanceof Enumeration enumeration) {
        w.line(
            "enum $name$ { $literals$ };",
            "name",
            idlName(enumeration.name()),
            "literals",
            String.join(", ", enumeration.literals().stream().map(DdsIdl::idlName).toList()));
      } else if (declaration instanceof Alias alias) {
        w.line(
            "typedef $type$ $name$$array$;",
            "type",
            idlType(alias.type()),
            "name",
            idlName(alias.name()),
            "array",
            alias.arraySize() > 0 ? "[" + alias.arraySize() + "]" : "");
      }
      for (int i = 0; i < declaration.namespace().size(); i++) {
        w.close("};");
      }
    }
    return new GeneratedFile(FileLayout.CHANNELS_IDL, w.text(), GeneratedFile.Kind.TEXT);
  }

  static String idlType(TypeUse type) {
    if (type instanceof TypeUse.Primitive primitive) {
      return switch (primitive.kind()) {
        case OCTET -> "octet";
        case BOOL -> "boolean";
        case CHAR -> "char";
        case INT8 -> "int8";
        case UINT8 -> "uint8";
        case INT16 -> "short";
        case UINT16 -> "unsigned short";
        case INT32 -> "long";
        case UINT32 -> "unsigned long";
        case INT64 -> "long long";
        case UINT64 -> "unsigned long long";
        case FLOAT -> "float";
        case DOUBLE -> "double";
      };
    }
    if (type instanceof TypeUse.BoundedString string) {
      return "string<" + string.bound() + ">";
    }
    if (type instanceof TypeUse.Sequence sequence) {
      return "sequence<" + idlType(sequence.element()) + ", " + sequence.bound() + ">";
    }
    final TypeUse.Named named = (TypeUse.Named) type;
    final List<String> parts = new ArrayList<>(named.namespace());
    parts.add(named.name());
    return "::" + String.join("::", parts.stream().map(DdsIdl::idlName).toList());
  }

  /**
   * IDL's keywords, which IDL matches ignoring case (OMG IDL 4.2, §7.2.4): a model name among them
   * (a field {@code in}, an enum literal {@code Object}) is written escaped, {@code _in}, which IDL
   * reads as the identifier {@code in}.
   */
  private static final Set<String> IDL_KEYWORDS =
      Set.of(
          "abstract",
          "any",
          "alias",
          "attribute",
          "bitfield",
          "bitmask",
          "bitset",
          "boolean",
          "case",
          "char",
          "component",
          "connector",
          "const",
          "consumes",
          "context",
          "custom",
          "default",
          "double",
          "exception",
          "emits",
          "enum",
          "eventtype",
          "factory",
          "false",
          "finder",
          "fixed",
          "float",
          "getraises",
          "getter",
          "home",
          "import",
          "in",
          "inout",
          "interface",
          "local",
          "long",
          "manages",
          "map",
          "mirrorport",
          "module",
          "multiple",
          "native",
          "object",
          "octet",
          "oneway",
          "out",
          "primarykey",
          "private",
          "port",
          "porttype",
          "provides",
          "public",
          "publishes",
          "raises",
          "readonly",
          "setraises",
          "setter",
          "sequence",
          "short",
          "string",
          "struct",
          "supports",
          "switch",
          "true",
          "truncatable",
          "typedef",
          "typeid",
          "typename",
          "typeprefix",
          "unsigned",
          "union",
          "uses",
          "valuebase",
          "valuetype",
          "void",
          "wchar",
          "wstring",
          "int8",
          "uint8",
          "int16",
          "int32",
          "int64",
          "uint16",
          "uint32",
          "uint64");

  static String idlName(String name) {
    return IDL_KEYWORDS.contains(name.toLowerCase(Locale.ROOT)) ? "_" + name : name;
  }
}
