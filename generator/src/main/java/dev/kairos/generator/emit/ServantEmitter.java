package dev.kairos.generator.emit;

import dev.kairos.generator.ir.Tmos.Segment;
import dev.kairos.generator.ir.Tmos.Spm;
import dev.kairos.generator.ir.Tmos.Svm;
import dev.kairos.generator.ir.Tmos.TmoClass;
import dev.kairos.generator.ir.Types.Operation;
import dev.kairos.generator.ir.Types.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code <Tmo>.base.hpp}: the servant base class of a TMO. It holds the object data store and
 * declares every method; the user's class of the same name derives from it and writes the bodies,
 * so regenerating never touches hand-written code.
 */
final class ServantEmitter {
  private ServantEmitter() {}

  static String fileName(TmoClass tmo) {
    return FileLayout.servantBase(tmo);
  }

  static String baseClass(TmoClass tmo) {
    return tmo.name() + "Base";
  }

  static GeneratedFile emit(TmoClass tmo) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName(tmo), List.of(tmo.source().file())));
    w.line("#pragma once").blank();
    w.line("#include <kairos/engine.hpp>").blank();
    w.line("#include \"$types$\"", "types", TypesEmitter.FILE).blank();

    final NamespaceScope scope = new NamespaceScope(w);
    scope.enter(tmo.namespace());
    ods(w, tmo);
    w.blank();
    w.line(Banner.origin(tmo.source()));
    w.line(
        "/// Base of the hand-written class `$user$` (TMO $tmo$).",
        "user",
        CppNames.qualified(tmo.namespace(), tmo.name()),
        "tmo",
        tmo.name());
    w.open("class $base$ {", "base", baseClass(tmo));
    w.outdented(" public:");
    w.line("$base$() = default;", "base", baseClass(tmo));
    w.line("$base$(const $base$&) = delete;", "base", baseClass(tmo));
    w.line("$base$& operator=(const $base$&) = delete;", "base", baseClass(tmo));
    w.line("virtual ~$base$() = default;", "base", baseClass(tmo));
    for (Spm spm : tmo.spms()) {
      w.blank();
      w.comment(
          "$description$ ($source$)", "description", Describe.spm(spm), "source", spm.source());
      w.line("virtual void $name$() = 0;", "name", spm.name());
    }
    for (Svm svm : tmo.svms()) {
      w.blank();
      w.comment(
          "$description$ ($source$)", "description", Describe.svm(svm), "source", svm.source());
      w.line("virtual $signature$ = 0;", "signature", signature(svm));
    }
    w.blank();
    w.line("/// Runs on the method's lane when an activation misses its start window or deadline.");
    w.line("/// The engine has already counted the miss; override to react (degrade, alarm).");
    w.line("virtual void on_deadline_miss(const ::kairos::MissReport& /*miss*/) noexcept {}");
    w.blank();
    w.outdented(" protected:");
    w.line("$ods$ ods_{};", "ods", odsType(tmo));
    w.close("};");
    scope.leave();
    return new GeneratedFile(fileName(tmo), w.text(), GeneratedFile.Kind.CPP_FORMATTED);
  }

  static String odsType(TmoClass tmo) {
    return tmo.name() + "Ods";
  }

  private static void ods(CodeWriter w, TmoClass tmo) {
    w.line(
        "/// Object data store of TMO $tmo$: one member per segment, the unit of locking.",
        "tmo",
        tmo.name());
    w.open("struct $ods$ {", "ods", odsType(tmo));
    for (Segment segment : tmo.segments()) {
      w.line(Banner.origin(segment.source()));
      w.open("struct $type$ {", "type", CppNames.typeName(segment.name()));
      TypesEmitter.fields(w, segment.fields());
      w.close("};");
      w.line("$type$ $name${};", "type", CppNames.typeName(segment.name()), "name", segment.name());
    }
    w.close("};");
  }

  /**
   * The C++ signature of a service method: the interface operation it serves, or a method without
   * parameters when it serves none.
   */
  static String signature(Svm svm) {
    return signature(svm, false);
  }

  /** As {@link #signature(Svm)}; with commentedNames the parameter names are comments. */
  static String signature(Svm svm, boolean commentedNames) {
    if (svm.signature().isEmpty()) {
      return "void " + svm.name() + "()";
    }
    final Operation op = svm.signature().get();
    final List<String> parameters = new ArrayList<>();
    for (Parameter parameter : op.parameters()) {
      final String name = commentedNames ? "/*" + parameter.name() + "*/" : parameter.name();
      parameters.add(CppNames.parameter(parameter.direction(), parameter.type()) + " " + name);
    }
    final String result = op.result() == null ? "void" : CppNames.type(op.result());
    return result + " " + svm.name() + "(" + String.join(", ", parameters) + ")";
  }
}
