package dev.kairos.cli;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.kairos.reports.Diagnostic;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A SARIF 2.1.0 log of one run of `kairos`: its diagnostics as results (model errors and warnings,
 * and the verdicts of the analysis that fail or warn), each with its rule (the diagnostic code,
 * described as docs/diagnostics.md describes it), level and region in the model, and the run's exit
 * code. Code-scanning services read it.
 */
final class SarifReport {
  static final String SCHEMA =
      "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

  /** Artifact URIs are relative to this base: the directory kairos ran in. */
  static final String SOURCE_ROOT = "SRCROOT";

  private SarifReport() {}

  static String render(String toolVersion, List<Diagnostic> diagnostics, int exitCode) {
    final Path workingDirectory = Path.of("").toAbsolutePath();
    final Map<String, Integer> ruleIndex = new LinkedHashMap<>();
    final JsonArray rules = new JsonArray();
    final JsonArray results = new JsonArray();
    for (Diagnostic diagnostic : diagnostics) {
      final Integer index =
          ruleIndex.computeIfAbsent(
              diagnostic.code(),
              code -> {
                rules.add(rule(code, diagnostic.severity()));
                return rules.size() - 1;
              });
      results.add(result(diagnostic, index, workingDirectory));
    }

    final JsonObject driver = new JsonObject();
    driver.addProperty("name", "kairos");
    driver.addProperty("version", toolVersion);
    driver.add("rules", rules);
    final JsonObject tool = new JsonObject();
    tool.add("driver", driver);

    final JsonObject invocation = new JsonObject();
    invocation.addProperty("exitCode", exitCode);
    // Findings are a successful run; only a usage or internal error is not.
    invocation.addProperty("executionSuccessful", exitCode != KairosCli.USAGE);
    final JsonArray invocations = new JsonArray();
    invocations.add(invocation);

    final JsonObject root = new JsonObject();
    root.addProperty("uri", workingDirectory.toUri().toString());
    final JsonObject baseIds = new JsonObject();
    baseIds.add(SOURCE_ROOT, root);

    final JsonObject run = new JsonObject();
    run.add("tool", tool);
    run.add("invocations", invocations);
    run.add("originalUriBaseIds", baseIds);
    run.addProperty("columnKind", "utf16CodeUnits");
    run.add("results", results);
    final JsonArray runs = new JsonArray();
    runs.add(run);

    final JsonObject log = new JsonObject();
    log.addProperty("$schema", SCHEMA);
    log.addProperty("version", "2.1.0");
    log.add("runs", runs);
    return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(log)
        + System.lineSeparator();
  }

  private static JsonObject rule(String code, Diagnostic.Severity seen) {
    final JsonObject rule = new JsonObject();
    rule.addProperty("id", code);
    final DiagnosticRules.Rule documented = DiagnosticRules.of(code).orElse(null);
    final String text =
        documented != null ? documented.text() : "a problem in the model (" + code + ")";
    rule.add("shortDescription", message(text));
    final JsonObject help = new JsonObject();
    if (documented != null) {
      help.addProperty("text", text + " (see " + documented.helpUri() + ")");
      help.addProperty("markdown", documented.markdown());
      rule.addProperty("helpUri", documented.helpUri());
    } else {
      help.addProperty("text", text);
    }
    rule.add("help", help);
    final JsonObject configuration = new JsonObject();
    configuration.addProperty(
        "level", documented != null ? (documented.warning() ? "warning" : "error") : level(seen));
    rule.add("defaultConfiguration", configuration);
    return rule;
  }

  private static JsonObject result(Diagnostic d, int ruleIndex, Path workingDirectory) {
    final JsonObject result = new JsonObject();
    result.addProperty("ruleId", d.code());
    result.addProperty("ruleIndex", ruleIndex);
    result.addProperty("level", level(d.severity()));
    result.add("message", message(d.message()));

    final JsonObject artifact = new JsonObject();
    final Path file = Path.of(d.file()).toAbsolutePath().normalize();
    if (file.startsWith(workingDirectory)) {
      artifact.addProperty("uri", relativeUri(workingDirectory.relativize(file)));
      artifact.addProperty("uriBaseId", SOURCE_ROOT);
    } else {
      artifact.addProperty("uri", file.toUri().toString());
    }
    final JsonObject region = new JsonObject();
    region.addProperty("startLine", d.line());
    region.addProperty("startColumn", d.column());
    final boolean ranged =
        d.endLine() > d.line() || (d.endLine() == d.line() && d.endColumn() > d.column());
    region.addProperty("endLine", ranged ? d.endLine() : d.line());
    region.addProperty("endColumn", ranged ? d.endColumn() : d.column() + 1);
    final JsonObject physical = new JsonObject();
    physical.add("artifactLocation", artifact);
    physical.add("region", region);
    final JsonObject location = new JsonObject();
    location.add("physicalLocation", physical);
    final JsonArray locations = new JsonArray();
    locations.add(location);
    result.add("locations", locations);
    return result;
  }

  /** A relative path as a URI reference: forward slashes, special characters escaped. */
  private static String relativeUri(Path relative) {
    try {
      return new URI(null, null, relative.toString().replace('\\', '/'), null).toASCIIString();
    } catch (URISyntaxException e) {
      return relative.toString().replace('\\', '/');
    }
  }

  private static String level(Diagnostic.Severity severity) {
    return switch (severity) {
      case ERROR -> "error";
      case WARNING -> "warning";
      case INFO -> "note";
    };
  }

  private static JsonObject message(String text) {
    final JsonObject message = new JsonObject();
    message.addProperty("text", text);
    return message;
  }
}
