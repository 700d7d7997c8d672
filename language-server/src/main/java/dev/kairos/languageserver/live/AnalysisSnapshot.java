package dev.kairos.languageserver.live;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.eclipse.emf.common.util.URI;

/**
 * What one run of the live analysis found for one project (one system): the IR and the report the
 * CLI's `kairos check` would produce for the same files, indexed for the editor's questions (the
 * figures of a method, the verdict of a node, the layout of a type), the diagnostics per document
 * and the `kairos/report` notification. A run that did not analyse (the model has errors) has no IR
 * and no report, only the reason.
 */
public final class AnalysisSnapshot {
  /** A method as analysed on its node: its row, and its rank among the tasks of its core. */
  public record MethodFigures(NodePlan node, TaskReport task, int rank, int ofTasks) {}

  private final URI project;
  private final SystemModel system;
  private final TimingPlan report;
  private final String reason;
  private final Map<String, List<MethodFigures>> methods;
  private final Map<String, NodePlan> nodes;
  private final Map<URI, List<SchedulabilityDiagnostic>> diagnostics;
  private final JsonObject header;
  private final Supplier<String> reportJson;
  private final Supplier<String> reportHtml;
  private final Supplier<String> architectureSvg;
  private JsonObject notification;
  private final Map<String, OptionalLong> requiredDeadlines = new ConcurrentHashMap<>();
  private WireLayout layouts;

  AnalysisSnapshot(
      URI project,
      SystemModel system,
      TimingPlan report,
      String reason,
      Map<String, List<MethodFigures>> methods,
      Map<String, NodePlan> nodes,
      Map<URI, List<SchedulabilityDiagnostic>> diagnostics,
      JsonObject header,
      Supplier<String> reportJson,
      Supplier<String> reportHtml,
      Supplier<String> architectureSvg) {
    this.project = project;
    this.system = system;
    this.report = report;
    this.reason = reason;
    this.methods = methods;
    this.nodes = nodes;
    this.diagnostics = diagnostics;
    this.header = header;
    this.reportJson = reportJson;
    this.reportHtml = reportHtml;
    this.architectureSvg = architectureSvg;
  }

  /** The base directory of the project whose files were analysed as one system. */
  public URI project() {
    return project;
  }

  /** Whether the analysis ran (false: the model has errors, or no model files). */
  public boolean analysed() {
    return report != null;
  }

  /** Why the analysis did not run, or null when it did. */
  public String reason() {
    return reason;
  }

  public TimingPlan report() {
    return report;
  }

  public SystemModel system() {
    return system;
  }

  /** The analysed rows of a method (key: {@link ModelElements#methodKey}); empty if undeployed. */
  public List<MethodFigures> method(String key) {
    return methods.getOrDefault(key, List.of());
  }

  public Optional<NodePlan> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }

  public Map<URI, List<SchedulabilityDiagnostic>> diagnostics() {
    return diagnostics;
  }

  /**
   * The `kairos/report` notification of this run. Its report (the JSON of `kairos check`, large for
   * a large model) is written when first asked for, after the diagnostics have gone out; so is the
   * page of `kairos check --html` and the architecture diagram for clients that asked for them.
   */
  public synchronized JsonObject notification() {
    if (notification == null) {
      final long start = System.nanoTime();
      final JsonObject built = header.deepCopy();
      built.add("report", JsonParser.parseString(reportJson.get()));
      if (reportHtml != null) {
        built.addProperty("html", reportHtml.get());
      }
      if (architectureSvg != null) {
        built.addProperty("architectureSvg", architectureSvg.get());
      }
      if (built.get("timings") instanceof JsonObject timings) {
        timings.addProperty("report_ms", (System.nanoTime() - start) / 1_000_000);
      }
      notification = built;
    }
    return notification;
  }

  /** The notification's fields other than the report (the report is added when sent). */
  JsonObject header() {
    return header;
  }

  /** The wire layouts of the system's types (computed when first asked). */
  public synchronized Optional<WireLayout> layouts() {
    if (system == null) {
      return Optional.empty();
    }
    if (layouts == null) {
      layouts = new WireLayout(system);
    }
    return Optional.of(layouts);
  }

  /**
   * The deadline (relative to the method's readiness, as the report gives it) that a method which
   * misses would need: its analysed response time. Where the analysis stopped once the response
   * passed the deadline, the method's node is analysed again with the deadline moved out to the
   * period, the longest the model allows. Empty when no deadline within the period would do.
   */
  public OptionalLong requiredDeadline(String methodKey) {
    if (system == null) {
      return OptionalLong.empty();
    }
    return requiredDeadlines.computeIfAbsent(
        methodKey,
        key -> {
          final List<MethodFigures> rows = method(key);
          return rows.isEmpty() ? OptionalLong.empty() : WhatIf.requiredDeadline(rows.get(0));
        });
  }
}
