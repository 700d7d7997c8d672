package dev.kairos.generator.emit;

import dev.kairos.generator.ir.Tmos.Spm;
import dev.kairos.generator.ir.Tmos.Svm;
import dev.kairos.generator.ir.Tmos.TmoClass;
import java.util.List;

/**
 * Starting points for hand-written code: {@code <Tmo>.hpp} and {@code <Tmo>.cpp} with the user
 * class and empty method bodies. Written only where no such file exists yet; the generator never
 * overwrites them.
 */
final class UserCodeEmitter {
  private UserCodeEmitter() {}

  static String headerName(TmoClass tmo) {
    return FileLayout.userHeader(tmo);
  }

  static String sourceName(TmoClass tmo) {
    return FileLayout.userSource(tmo);
  }

  static List<GeneratedFile> emit(TmoClass tmo) {
    return List.of(header(tmo), source(tmo));
  }

  private static GeneratedFile header(TmoClass tmo) {
    final CodeWriter w = new CodeWriter();
    w.comment(
        "$file$ — method bodies of TMO $tmo$ ($source$).",
        "file",
        headerName(tmo),
        "tmo",
        tmo.name(),
        "source",
        tmo.source());
    w.line("// Written once by kairos as a starting point; yours to edit. Never overwritten.");
    w.line("#pragma once").blank();
    w.line("#include \"$base$\"", "base", ServantEmitter.fileName(tmo)).blank();
    final NamespaceScope scope = new NamespaceScope(w);
    scope.enter(tmo.namespace());
    w.open(
        "class $tmo$ final : public $base$ {",
        "tmo",
        tmo.name(),
        "base",
        ServantEmitter.baseClass(tmo));
    w.outdented(" public:");
    for (Spm spm : tmo.spms()) {
      w.line("void $name$() override;", "name", spm.name());
    }
    for (Svm svm : tmo.svms()) {
      w.line("$signature$ override;", "signature", ServantEmitter.signature(svm));
    }
    w.close("};");
    scope.leave();
    return new GeneratedFile(headerName(tmo), w.text(), GeneratedFile.Kind.USER_STARTER);
  }

  private static GeneratedFile source(TmoClass tmo) {
    final CodeWriter w = new CodeWriter();
    w.comment("$file$ — method bodies of TMO $tmo$.", "file", sourceName(tmo), "tmo", tmo.name());
    w.line("#include \"$header$\"", "header", headerName(tmo)).blank();
    final NamespaceScope scope = new NamespaceScope(w);
    scope.enter(tmo.namespace());
    for (Spm spm : tmo.spms()) {
      w.comment("$description$", "description", Describe.spm(spm));
      w.open("void $tmo$::$name$() {", "tmo", tmo.name(), "name", spm.name());
      w.line("// Runs once per release; must finish within its WCET.");
      w.close("}").blank();
    }
    for (Svm svm : tmo.svms()) {
      w.comment("$description$", "description", Describe.svm(svm));
      final String signature = ServantEmitter.signature(svm, true);
      final int nameAt = signature.indexOf(svm.name() + "(");
      final String definition = signature.substring(0, nameAt) + tmo.name() + "::";
      if (signature.startsWith("void ")) {
        // An empty body stays on the definition's line, as clang-format puts it.
        w.line(
                "$definition$$rest$ {}",
                "definition",
                definition,
                "rest",
                signature.substring(nameAt))
            .blank();
      } else {
        w.open(
            "$definition$$rest$ {", "definition", definition, "rest", signature.substring(nameAt));
        w.line("return {};");
        w.close("}").blank();
      }
    }
    scope.leave();
    return new GeneratedFile(sourceName(tmo), w.text(), GeneratedFile.Kind.USER_STARTER);
  }
}
