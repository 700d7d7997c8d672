package dev.kairos.generator.emit;

import dev.kairos.generator.emit.ChannelPlan.SystemChannel;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.DeclarationKind;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What carries a model's channels on Eclipse Cyclone DDS: {@code channels.idl}, standard OMG IDL of
 * every channel payload type and the types it uses (a module per package), which the generated
 * CMake hands to Cyclone's {@code idlc}; and {@code channels.dds.hpp}, converters between Kairos's
 * types and the C types idlc makes of them ({@code to_dds} fills a C sample whose bounded sequences
 * point into a preallocated store; {@code from_dds} checks every length against its bound).
 *
 * <p>The IDL subset carried: structs of primitives, enums, bounded strings, fixed arrays, typedefs,
 * nested structs, and bounded sequences of primitives, enums and structs. A channel whose payload
 * is not a struct, or uses a sequence of strings or of sequences, is not carried by DDS (its
 * samples stay on their node); {@link #carried} says which are.
 */
final class DdsEmitter {
  private DdsEmitter() {}

  /** Whether the model has a channel that DDS carries: then both files are written. */
  static boolean needed(SystemModel system) {
    return ChannelPlan.channels(system).stream().anyMatch(c -> carried(system, c));
  }

  /** Whether DDS carries a channel: its payload is a struct of the subset. */
  static boolean carried(SystemModel system, SystemChannel channel) {
    final TypeUse payload = resolve(system, channel.channel().type()).type;
    return payload instanceof TypeUse.Named named
        && declaration(system, named).orElse(null) instanceof Aggregate aggregate
        && aggregate.kind() == DeclarationKind.STRUCT
        && supported(system, payload, new LinkedHashSet<>());
  }

  /** The C type idlc makes of a declared type: its package and name joined by underscores. */
  static String cName(TypeDeclaration declaration) {
    final List<String> parts = new ArrayList<>(declaration.namespace());
    parts.add(declaration.name());
    return String.join("_", parts);
  }

  /** The struct a carried channel's payload is (through typedefs). */
  static TypeDeclaration payload(SystemModel system, SystemChannel channel) {
    final TypeUse.Named named = (TypeUse.Named) resolve(system, channel.channel().type()).type;
    return declaration(system, named).orElseThrow();
  }

  /** The C type of a carried channel's payload (its topic descriptor adds {@code _desc}). */
  static String payloadC(SystemModel system, SystemChannel channel) {
    return "::" + cName(payload(system, channel));
  }

  // ----- channels.idl ---------------------------------------------------------------------------

  // ----- channels.dds.hpp -----------------------------------------------------------------------

  static GeneratedFile converters(SystemModel system, List<String> modelFiles) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(FileLayout.CHANNELS_DDS, modelFiles));
    w.line("#pragma once").blank();
    w.line("#include <cstddef>");
    w.line("#include <cstdint>").blank();
    w.line("#include <kairos/channel/dds.hpp>").blank();
    w.line("#include \"$header$\"", "header", FileLayout.CHANNELS_IDL_C_HEADER);
    w.line("#include \"$header$\"", "header", FileLayout.TYPES);
    for (TypeDeclaration declaration : reachable(system)) {
      if (!(declaration instanceof Aggregate aggregate)) {
        continue;
      }
      final String ns = CppNames.namespace(aggregate.namespace());
      final String kairosType = CppNames.qualified(aggregate.namespace(), aggregate.name());
      final String cType = "::" + cName(aggregate);
      w.blank();
      w.line(Banner.origin(aggregate.source()));
      w.line(
          "namespace $ns$dds {",
          "ns",
          aggregate.namespace().isEmpty() ? "" : String.join("::", aggregate.namespace()) + "::");
      w.docComment(
          "What a C $name$ points into: the elements of its bounded sequences.",
          "name",
          aggregate.name());
      w.open("struct $store$ {", "store", aggregate.name() + "Store");
      for (Field field : aggregate.fields()) {
        final Resolved resolved = resolve(system, field.type(), field.arraySize());
        if (needsStore(system, resolved.type)) {
          w.line(
              "$type$ $name${};",
              "type",
              storeType(system, resolved.type, resolved.arraySize),
              "name",
              field.name());
        }
      }
      w.close("};").blank();
      w.open(
          "inline void to_dds(const $kairos$& from, $c$& to, $store$& store) noexcept {",
          "kairos",
          kairosType,
          "c",
          cType,
          "store",
          aggregate.name() + "Store");
      boolean usesStore = false;
      for (Field field : aggregate.fields()) {
        final Resolved resolved = resolve(system, field.type(), field.arraySize());
        usesStore |= needsStore(system, resolved.type);
        toDds(
            w,
            system,
            resolved.type,
            resolved.arraySize,
            "from." + field.name(),
            "to." + field.name(),
            "store." + field.name(),
            0);
      }
      if (!usesStore) {
        w.line("static_cast<void>(store);");
      }
      w.close("}").blank();
      w.line(
          "/// False (and `to` partly written) when a length exceeds its bound or an enum value"
              + " its literals.");
      w.open(
          "inline bool from_dds(const $c$& from, $kairos$& to) noexcept {",
          "c",
          cType,
          "kairos",
          kairosType);
      for (Field field : aggregate.fields()) {
        final Resolved resolved = resolve(system, field.type(), field.arraySize());
        fromDds(
            w,
            system,
            resolved.type,
            resolved.arraySize,
            "from." + field.name(),
            "to." + field.name(),
            0);
      }
      w.line("return true;");
      w.close("}");
      w.line("}  // namespace $ns$dds", "ns", ns.isEmpty() ? "" : ns + "::");
    }
    return new GeneratedFile(FileLayout.CHANNELS_DDS, w.text(), GeneratedFile.Kind.CPP);
  }

  private static void toDds(
      CodeWriter w,
      SystemModel system,
      TypeUse type,
      int arraySize,
      String from,
      String to,
      String store,
      int depth) {
    if (arraySize > 0) {
      final String i = "i" + depth;
      w.open("for (::std::size_t $i$ = 0; $i$ < $n$; ++$i$) {", "i", i, "n", arraySize);
      toDds(
          w,
          system,
          type,
          0,
          from + "[" + i + "]",
          to + "[" + i + "]",
          store + "[" + i + "]",
          depth + 1);
      w.close("}");
      return;
    }
    if (type instanceof TypeUse.Primitive primitive) {
      w.line(
          "$to$ = static_cast<$c$>($from$);", "to", to, "c", cPrimitive(primitive), "from", from);
    } else if (type instanceof TypeUse.BoundedString) {
      w.line("::kairos::channel::dds::copy_string($from$, $to$);", "from", from, "to", to);
    } else if (type instanceof TypeUse.Sequence sequence) {
      final Resolved element = resolve(system, sequence.element());
      final String i = "i" + depth;
      w.line("$to$._maximum = $n$;", "to", to, "n", sequence.bound());
      w.line("$to$._length = static_cast<::std::uint32_t>($from$.size());", "to", to, "from", from);
      w.line("$to$._buffer = $store$.items.data();", "to", to, "store", store);
      w.line("$to$._release = false;", "to", to);
      w.open("for (::std::size_t $i$ = 0; $i$ < $from$.size(); ++$i$) {", "i", i, "from", from);
      toDds(
          w,
          system,
          element.type,
          0,
          from + "[" + i + "]",
          store + ".items[" + i + "]",
          store + ".stores[" + i + "]",
          depth + 1);
      w.close("}");
    } else {
      final TypeDeclaration declaration = declaration(system, (TypeUse.Named) type).orElseThrow();
      if (declaration instanceof Enumeration enumeration) {
        w.line(
            "$to$ = static_cast<::$c$>($from$);", "to", to, "c", cName(enumeration), "from", from);
      } else {
        w.line(
            "::$ns$dds::to_dds($from$, $to$, $store$);",
            "ns",
            CppNames.namespace(declaration.namespace()).isEmpty()
                ? ""
                : CppNames.namespace(declaration.namespace()) + "::",
            "from",
            from,
            "to",
            to,
            "store",
            store);
      }
    }
  }

  private static void fromDds(
      CodeWriter w,
      SystemModel system,
      TypeUse type,
      int arraySize,
      String from,
      String to,
      int depth) {
    if (arraySize > 0) {
      final String i = "i" + depth;
      w.open("for (::std::size_t $i$ = 0; $i$ < $n$; ++$i$) {", "i", i, "n", arraySize);
      fromDds(w, system, type, 0, from + "[" + i + "]", to + "[" + i + "]", depth + 1);
      w.close("}");
      return;
    }
    if (type instanceof TypeUse.Primitive primitive) {
      w.line(
          "$to$ = static_cast<$kairos$>($from$);",
          "to",
          to,
          "kairos",
          CppNames.primitive(primitive.kind()),
          "from",
          from);
    } else if (type instanceof TypeUse.BoundedString) {
      w.open("if (!::kairos::channel::dds::read_string($from$, $to$)) {", "from", from, "to", to);
      w.line("return false;");
      w.close("}");
    } else if (type instanceof TypeUse.Sequence sequence) {
      final Resolved element = resolve(system, sequence.element());
      final String i = "i" + depth;
      w.open(
          "if ($from$._length > $n$ || ($from$._length > 0 && $from$._buffer == nullptr) ||"
              + " !$to$.resize($from$._length)) {",
          "from",
          from,
          "n",
          sequence.bound(),
          "to",
          to);
      w.line("return false;");
      w.close("}");
      w.open("for (::std::size_t $i$ = 0; $i$ < $from$._length; ++$i$) {", "i", i, "from", from);
      fromDds(
          w, system, element.type, 0, from + "._buffer[" + i + "]", to + "[" + i + "]", depth + 1);
      w.close("}");
    } else {
      final TypeDeclaration declaration = declaration(system, (TypeUse.Named) type).orElseThrow();
      final String kairosType = CppNames.qualified(declaration.namespace(), declaration.name());
      if (declaration instanceof Enumeration enumeration) {
        w.open(
            "if (static_cast<::std::uint32_t>($from$) >= $count$U) {",
            "from",
            from,
            "count",
            enumeration.literals().size());
        w.line("return false;");
        w.close("}");
        w.line(
            "$to$ = static_cast<$kairos$>($from$);", "to", to, "kairos", kairosType, "from", from);
      } else {
        final String ns = CppNames.namespace(declaration.namespace());
        w.open(
            "if (!::$ns$dds::from_dds($from$, $to$)) {",
            "ns",
            ns.isEmpty() ? "" : ns + "::",
            "from",
            from,
            "to",
            to);
        w.line("return false;");
        w.close("}");
      }
    }
  }

  /** idlc's C types for primitives are the fixed-width types Kairos's own C++ uses. */
  private static String cPrimitive(TypeUse.Primitive primitive) {
    return CppNames.primitive(primitive.kind());
  }

  /** The C type of a sequence's element (never a string or a sequence: not in the subset). */
  private static String cElement(SystemModel system, TypeUse type) {
    if (type instanceof TypeUse.Primitive primitive) {
      return cPrimitive(primitive);
    }
    return "::" + cName(declaration(system, (TypeUse.Named) type).orElseThrow());
  }

  /**
   * Whether a value of the type has a store: a sequence (its elements) or a struct (its own,
   * possibly empty, so that converters of nested structs always have one to pass).
   */
  private static boolean needsStore(SystemModel system, TypeUse type) {
    if (type instanceof TypeUse.Sequence) {
      return true;
    }
    return type instanceof TypeUse.Named named
        && declaration(system, named).orElse(null) instanceof Aggregate;
  }

  /** The store of one value of {@code type} (needsStore must hold). */
  private static String storeType(SystemModel system, TypeUse type, int arraySize) {
    if (arraySize > 0) {
      return "::std::array<" + storeType(system, type, 0) + ", " + arraySize + ">";
    }
    if (type instanceof TypeUse.Sequence sequence) {
      final Resolved element = resolve(system, sequence.element());
      final String elementStore =
          needsStore(system, element.type)
              ? storeType(system, element.type, 0)
              : "::kairos::channel::dds::NoStore";
      return "::kairos::channel::dds::SequenceStore<"
          + cElement(system, element.type)
          + ", "
          + sequence.bound()
          + ", "
          + elementStore
          + ">";
    }
    final TypeDeclaration declaration = declaration(system, (TypeUse.Named) type).orElseThrow();
    return CppNames.qualified(declaration.namespace(), "dds::" + declaration.name() + "Store");
  }

  // ----- types ----------------------------------------------------------------------------------

  /** A type with its aliases seen through, and the array size they add. */
  private record Resolved(TypeUse type, int arraySize) {}

  private static Resolved resolve(SystemModel system, TypeUse type) {
    return resolve(system, type, 0);
  }

  private static Resolved resolve(SystemModel system, TypeUse type, int arraySize) {
    for (int depth = 0; depth < 32 && type instanceof TypeUse.Named named; depth++) {
      final Optional<TypeDeclaration> declaration = declaration(system, named);
      if (declaration.isEmpty() || !(declaration.get() instanceof Alias alias)) {
        break;
      }
      if (alias.arraySize() > 0) {
        if (arraySize > 0) {
          break; // an array of arrays: kept as the alias (not in the subset)
        }
        arraySize = alias.arraySize();
      }
      type = alias.type();
    }
    return new Resolved(type, arraySize);
  }

  private static Optional<TypeDeclaration> declaration(SystemModel system, TypeUse.Named named) {
    return system.types().stream()
        .filter(t -> t.namespace().equals(named.namespace()) && t.name().equals(named.name()))
        .findFirst();
  }

  private static boolean supported(SystemModel system, TypeUse type, Set<TypeUse> seen) {
    final TypeUse resolved = resolve(system, type).type;
    if (resolved instanceof TypeUse.Sequence sequence) {
      final TypeUse element = resolve(system, sequence.element()).type;
      return !(element instanceof TypeUse.BoundedString)
          && !(element instanceof TypeUse.Sequence)
          && resolve(system, sequence.element()).arraySize == 0
          && supported(system, element, seen);
    }
    if (resolved instanceof TypeUse.Named named) {
      if (!seen.add(named)) {
        return true;
      }
      final TypeDeclaration declaration = declaration(system, named).orElse(null);
      if (declaration instanceof Aggregate aggregate) {
        return aggregate.kind() == DeclarationKind.STRUCT
            && !aggregate.fields().isEmpty()
            && aggregate.fields().stream().allMatch(f -> supported(system, f.type(), seen));
      }
      return declaration instanceof Enumeration;
    }
    return true;
  }

  /**
   * The declarations the carried channels' payloads use, in the model's order (where uses follow
   * definitions), aliases included as written.
   */
  static List<TypeDeclaration> reachable(SystemModel system) {
    final Set<TypeDeclaration> needed = new LinkedHashSet<>();
    for (SystemChannel channel : ChannelPlan.channels(system)) {
      if (carried(system, channel)) {
        collect(system, channel.channel().type(), needed);
      }
    }
    return system.types().stream().filter(needed::contains).toList();
  }

  private static void collect(SystemModel system, TypeUse type, Set<TypeDeclaration> needed) {
    if (type instanceof TypeUse.Sequence sequence) {
      collect(system, sequence.element(), needed);
    } else if (type instanceof TypeUse.Named named) {
      final TypeDeclaration declaration = declaration(system, named).orElse(null);
      if (declaration == null || !needed.add(declaration)) {
        return;
      }
      if (declaration instanceof Aggregate aggregate) {
        aggregate.fields().forEach(f -> collect(system, f.type(), needed));
      } else if (declaration instanceof Alias alias) {
        collect(system, alias.type(), needed);
      }
    }
  }
}
