package dev.kairos.generator.emit;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Segment;
import dev.kairos.ir.Tmos.SegmentAccess;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code <Tmo>.base.hpp}: the servant base class of a TMO. It holds the object data store,
 * privately, and declares every method with the view of the segments it uses (see {@link
 * MethodAccess}); the user's class of the same name derives from it and writes the bodies, so
 * regenerating never touches hand-written code, and a body reaches only what it declared.
 */
final class ServantEmitter {
  private ServantEmitter() {}

  /** The one virtual of the base besides the model's methods that a user's class may override. */
  static final String DEADLINE_HANDLER = "on_deadline_miss";

  /**
   * The member struct of the base, declared there and defined only by the node programs, through
   * which their tables reach the private entry points and skeletons.
   */
  static final String ENTRY_POINTS = "EntryPoints";

  static String fileName(TmoClass tmo) {
    return FileLayout.servantBase(tmo);
  }

  static String baseClass(TmoClass tmo) {
    return tmo.name() + "Base";
  }

  static GeneratedFile emit(SystemModel system, TmoClass tmo) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName(tmo), List.of(tmo.source().file())));
    w.line("#pragma once").blank();
    w.line("#include <kairos/engine.hpp>");
    if (!tmo.gates().isEmpty()) {
      w.line("#include <kairos/orb/gate.hpp>");
    }
    if (!tmo.svms().isEmpty()) {
      w.line("#include <kairos/orb/service.hpp>");
    }
    ChannelEmitter.includes(w, tmo);
    w.blank();
    final Set<String> headers = new TreeSet<>(RemoteEmitter.includes(system, tmo));
    headers.add(TypesEmitter.FILE);
    for (String header : headers) {
      w.line("#include \"$header$\"", "header", header);
    }
    w.blank();

    final NamespaceScope scope = new NamespaceScope(w);
    scope.enter(tmo.namespace());
    ods(w, system, tmo);
    w.blank();
    final List<MethodAccess> methods = MethodAccess.of(tmo);
    final String base = baseClass(tmo);
    w.line(Banner.origin(tmo.source()));
    w.line(
        "/// Base of the hand-written class `$user$` (TMO $tmo$).",
        "user",
        CppNames.qualified(tmo.namespace(), tmo.name()),
        "tmo",
        tmo.name());
    w.line("/// Each method's body is lent the segments it `uses`, const where it only reads; the");
    w.line("/// object data store itself is private.");
    w.open("class $base$ {", "base", base);
    w.outdented(" public:");
    for (MethodAccess method : methods) {
      if (method.hasView()) {
        view(w, tmo, method);
      }
    }
    RemoteEmitter.gates(w, system, tmo);
    ChannelEmitter.views(w, tmo);
    w.line("$base$() = default;", "base", base);
    w.line("$base$(const $base$&) = delete;", "base", base);
    w.line("$base$& operator=(const $base$&) = delete;", "base", base);
    w.line("virtual ~$base$() = default;", "base", base);
    w.blank();
    w.line("/// Runs on the method's lane when an activation misses its start window or deadline.");
    w.line("/// The engine has already counted the miss; override to react (degrade, alarm).");
    w.line(
        "virtual void $handler$(const ::kairos::MissReport& /*miss*/) noexcept {}",
        "handler",
        DEADLINE_HANDLER);
    if (!methods.isEmpty()) {
      w.blank();
      w.docComment(
          "The engine's way in to the methods, for the tables of the node programs that deploy"
              + " $tmo$: defined there (the same in each) and nowhere else, so a body cannot call"
              + " another method's entry point and reach past its own segments.",
          "tmo",
          tmo.name());
      w.line("struct $entries$;", "entries", ENTRY_POINTS);
    }
    w.blank();
    w.outdented(" private:");
    if (!methods.isEmpty()) {
      w.comment(
          "The engine's entry points, called with the method's segment locks held: each lends its"
              + " method exactly the segments the model says it uses.");
      for (MethodAccess method : methods) {
        entryPoint(w, method);
      }
      w.blank();
    }
    RemoteEmitter.skeletons(w, system, tmo);
    for (MethodAccess method : methods) {
      w.comment(
          "$description$ ($source$)",
          "description",
          method.description(),
          "source",
          method.source());
      w.parenthesized(
          "virtual " + method.result() + " " + method.name() + "(",
          method.parameters(false),
          ") = 0;");
      w.blank();
    }
    w.line("$ods$ $member${};", "ods", odsType(tmo), "member", MethodAccess.ODS_MEMBER);
    if (!tmo.gates().isEmpty()) {
      w.line("Gates $member${};", "member", MethodAccess.GATES_MEMBER);
    }
    ChannelEmitter.ports(w, tmo);
    w.close("};");
    scope.leave();
    return new GeneratedFile(fileName(tmo), w.text(), GeneratedFile.Kind.CPP_FORMATTED);
  }

  /** The view type of one method: a reference per segment it uses. */
  private static void view(CodeWriter w, TmoClass tmo, MethodAccess method) {
    w.line(Banner.origin(method.source()));
    w.docComment(
        "$kind$ $name$ $uses$: all of the object data store its body can reach.",
        "kind",
        method.kind(),
        "name",
        method.name(),
        "uses",
        method.usesClause());
    w.open("struct $type$ {", "type", method.viewType());
    for (SegmentAccess use : method.uses()) {
      w.line(MethodAccess.viewMember(tmo, use));
    }
    w.close("};").blank();
  }

  /** run_<method>: on one line where it fits, as clang-format puts short inline functions. */
  private static void entryPoint(CodeWriter w, MethodAccess method) {
    final String head = method.result() + " " + method.entryPoint() + "(";
    final String call = method.entryStatement() + method.name() + "(";
    final String oneLine =
        head
            + String.join(", ", method.entryParameters())
            + ") { "
            + call
            + String.join(", ", method.entryArguments())
            + "); }";
    if ("  ".length() + oneLine.length() <= CodeWriter.COLUMN_LIMIT) {
      w.line("$entry$", "entry", oneLine);
    } else {
      w.openParenthesized(head, method.entryParameters(), ") {");
      w.parenthesized(call, method.entryArguments(), ");");
      w.close("}");
    }
  }

  /**
   * A segment's members: each starts with its initial value where the model gives one (the model's
   * line above it), value-initialised (zero) otherwise.
   */
  private static void fields(CodeWriter w, SystemModel system, List<Field> fields) {
    for (Field field : fields) {
      final String type = CppNames.type(field.type(), field.arraySize());
      if (field.initial().isEmpty()) {
        w.line("$type$ $name${};", "type", type, "name", field.name());
        continue;
      }
      w.line(Banner.origin(field.source()));
      w.line(
          "$type$ $name${$value$};",
          "type",
          type,
          "name",
          field.name(),
          "value",
          CppNames.value(field.initial().get(), resolved(system, field.type())));
    }
  }

  /** What a type stands for, through aliases: the type a value is spelt for. */
  private static TypeUse resolved(SystemModel system, TypeUse type) {
    for (int depth = 0; depth < 32 && type instanceof TypeUse.Named named; depth++) {
      TypeUse aliased = null;
      for (TypeDeclaration declaration : system.types()) {
        if (declaration instanceof Alias alias
            && alias.arraySize() == 0
            && alias.namespace().equals(named.namespace())
            && alias.name().equals(named.name())) {
          aliased = alias.type();
        }
      }
      if (aliased == null) {
        return type;
      }
      type = aliased;
    }
    return type;
  }

  static String odsType(TmoClass tmo) {
    return tmo.name() + "Ods";
  }

  private static void ods(CodeWriter w, SystemModel system, TmoClass tmo) {
    w.line(
        "/// Object data store of TMO $tmo$: one member per segment, the unit of locking.",
        "tmo",
        tmo.name());
    w.open("struct $ods$ {", "ods", odsType(tmo));
    for (Segment segment : tmo.segments()) {
      w.line(Banner.origin(segment.source()));
      w.open("struct $type$ {", "type", CppNames.typeName(segment.name()));
      fields(w, system, segment.fields());
      w.close("};");
      w.line("$type$ $name${};", "type", CppNames.typeName(segment.name()), "name", segment.name());
    }
    w.close("};");
  }
}
