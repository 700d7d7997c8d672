package dev.kairos.generator.emit;

import dev.kairos.ir.Tmos.Gate;
import dev.kairos.ir.Tmos.TmoClass;
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
    w.outdented(" private:");
    w.comment(
        "Called by the engine through $base$'s private entry points, which lend each method the"
            + " segments it uses.",
        "base",
        ServantEmitter.baseClass(tmo));
    for (MethodAccess method : MethodAccess.of(tmo)) {
      w.parenthesized(
          method.result() + " " + method.name() + "(", method.parameters(false), ") override;");
    }
    w.close("};");
    scope.leave();
    return new GeneratedFile(headerName(tmo), w.text(), GeneratedFile.Kind.USER_STARTER);
  }

  /** How a call through each of the gates a method calls behaves, as one sentence. */
  private static String howGatesCall(TmoClass tmo, List<String> calls) {
    final java.util.Set<String> forms = new java.util.LinkedHashSet<>();
    for (Gate gate : tmo.gates()) {
      if (!calls.contains(gate.name())) {
        continue;
      }
      if (gate.oneway()) {
        forms.add("a oneway call returns once it is sent (no reply)");
      } else if (gate.nonBlocking()) {
        forms.add(
            "a non-blocking call returns at once, and `poll` collects its reply later, never"
                + " waiting");
      } else {
        forms.add("a blocking call waits for its reply at most the gate's deadline");
      }
    }
    final String joined = String.join("; ", forms) + ".";
    return Character.toUpperCase(joined.charAt(0)) + joined.substring(1);
  }

  private static GeneratedFile source(TmoClass tmo) {
    final CodeWriter w = new CodeWriter();
    w.comment("$file$ — method bodies of TMO $tmo$.", "file", sourceName(tmo), "tmo", tmo.name());
    w.line("#include \"$header$\"", "header", headerName(tmo)).blank();
    final NamespaceScope scope = new NamespaceScope(w);
    scope.enter(tmo.namespace());
    for (MethodAccess method : MethodAccess.of(tmo)) {
      w.comment("$description$", "description", method.description());
      final String hint =
          method.kind().equals("spm")
              ? "// Runs once per release; must finish within its WCET."
              : "// Serves one request; must finish within its GCT.";
      w.openParenthesized(
          method.result() + " " + tmo.name() + "::" + method.name() + "(",
          method.parameters(true),
          ") {");
      w.line(hint);
      if (method.hasView()) {
        w.comment(
            "Its segments come in `ods` ($uses$): name the parameter to use them.",
            "uses",
            method.usesClause());
      }
      if (method.hasGates()) {
        w.comment(
            "Its gates come in `gates` (calls $calls$), e.g. `gates.$gate$...`: $how$",
            "calls",
            String.join(", ", method.calls()),
            "gate",
            method.calls().get(0),
            "how",
            howGatesCall(tmo, method.calls()));
      }
      if (method.hasChannels()) {
        w.comment(
            "Its channels come in `channels` ($clause$): `publish(value)` never waits,"
                + " `take(sample)` and `latest(sample)` give the samples that arrived, each with"
                + " its publish time.",
            "clause",
            method.channelsClause());
      }
      if (!method.result().equals("void")) {
        w.line("return {};");
      }
      w.close("}").blank();
    }
    scope.leave();
    return new GeneratedFile(sourceName(tmo), w.text(), GeneratedFile.Kind.USER_STARTER);
  }
}
