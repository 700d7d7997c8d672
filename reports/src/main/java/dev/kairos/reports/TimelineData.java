package dev.kairos.reports;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.kairos.ir.Platform;
import dev.kairos.ir.Tmos;
import dev.kairos.reports.runlog.RunLog;
import dev.kairos.reports.runlog.RunLog.MeasuredActivation;
import dev.kairos.timing.BusyIntervals;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.ReleaseTableAnalysis;
import dev.kairos.timing.ReleaseTableAnalysis.Activation;
import dev.kairos.timing.ReleaseTableAnalysis.Execution;
import dev.kairos.timing.ReleaseTableAnalysis.Trace;
import dev.kairos.timing.ReleaseTableAnalysis.TracedSpm;
import dev.kairos.timing.TaskReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The data the report page's interactive timeline draws, as JSON: per node, per core, the traced
 * SpMs with every activation (release, start window, start, finish, execution slices, deadline,
 * outcome), the service methods with their BCC admission windows, and, when a run log was given,
 * the activations the node measured. Times are integer nanoseconds; the same report gives the same
 * bytes. Also the comparison of measured responses with the analysed bounds, which the page shows
 * as a table.
 */
public final class TimelineData {
  private TimelineData() {}

  /** Measured activations embedded per node at most; the comparison table counts them all. */
  public static final int MAX_DRAWN_MEASURED = 20_000;

  /**
   * What one node printed in a run, for the page.
   *
   * @param source the log it came from, as the user named it
   * @param summary the fields of its summary line (empty when the log has none)
   * @param boundsNs each SpM's bound as deployed (`instance.method`, from its start window's
   *     opening, -1 for none) where the run's CPUs were shared; empty: the node's own bounds
   */
  public record NodeRun(
      String source,
      List<MeasuredActivation> activations,
      Map<String, String> summary,
      Map<String, Long> boundsNs) {
    /** A run on cores of their own, held to the node's own bounds. */
    public NodeRun(
        String source, List<MeasuredActivation> activations, Map<String, String> summary) {
      this(source, activations, summary, Map.of());
    }

    /** Whether the bounds are those of a deployment whose cores share CPUs. */
    public boolean asDeployed() {
      return !boundsNs.isEmpty();
    }
  }

  /**
   * Measured against analysed, for one SpM.
   *
   * @param maxResponseNs the longest response measured (from the start window's opening), -1 when
   *     no activation ran
   * @param boundNs the analysed worst-case response, -1 when it grows past the deadline
   */
  public record Comparison(
      String name,
      int core,
      long activations,
      long ran,
      long maxResponseNs,
      long boundNs,
      long deadlineNs,
      long windowMisses,
      long deadlineMisses) {
    /** Whether a measured response exceeds the analysed bound. */
    public boolean aboveBound() {
      return maxResponseNs >= 0 && boundNs >= 0 && maxResponseNs > boundNs;
    }
  }

  /** Gson escapes {@code <}, {@code >} and {@code &}, so the JSON is safe inside a script tag. */
  private static final Gson GSON = new Gson();

  /** The JSON embedded in the page: {@code {"nodes": [...]}} in the report's node order. */
  public static String json(List<NodePlan> nodes, Map<String, NodeRun> measured) {
    final JsonObject root = new JsonObject();
    final JsonArray array = new JsonArray();
    for (int i = 0; i < nodes.size(); i++) {
      array.add(node(i, nodes.get(i), measured.get(nodes.get(i).node().name())));
    }
    root.add("nodes", array);
    return GSON.toJson(root);
  }

  /** One node's timeline data; {@code run} may be null. */
  static JsonObject node(int index, NodePlan node, NodeRun run) {
    final JsonObject json = new JsonObject();
    json.addProperty("index", index);
    json.addProperty("name", node.node().name());
    final JsonArray cores = new JsonArray();
    long end = 1;
    if (node.multicore()) {
      for (NodePlan.CorePlan core : node.cores()) {
        cores.add(core(node, core.core(), core.instances(), core.playout()));
        end = Math.max(end, endOf(core.playout()));
      }
    } else {
      final List<String> instances =
          node.node().deployments().stream().map(Platform.Deployment::instance).toList();
      cores.add(core(node, 0, instances, node.playout()));
      end = Math.max(end, endOf(node.playout()));
    }
    json.addProperty("endNs", end);
    json.add("cores", cores);
    if (run != null) {
      json.add("measured", measured(node, run));
    }
    return json;
  }

  private static long endOf(ReleaseTableAnalysis.Playout playout) {
    return playout.trace().map(Trace::endNs).orElse(0L);
  }

  private static JsonObject core(
      NodePlan node, int core, List<String> instances, ReleaseTableAnalysis.Playout playout) {
    final JsonObject json = new JsonObject();
    json.addProperty("core", core);
    final JsonArray names = new JsonArray();
    instances.forEach(names::add);
    json.add("instances", names);
    final JsonArray spms = new JsonArray();
    final Optional<Trace> trace = playout.trace();
    if (trace.isPresent()) {
      json.addProperty("endNs", trace.get().endNs());
      json.addProperty("extent", trace.get().extent().name().toLowerCase(Locale.ROOT));
      json.addProperty("untracedSpms", trace.get().untracedSpms());
      json.addProperty("activations", trace.get().activations());
      for (TracedSpm spm : trace.get().spms()) {
        spms.add(spm(node, spm));
      }
    }
    json.addProperty("hyperperiodNs", playout.hyperperiodNs());
    json.addProperty("beyond64Bits", playout.grid().beyond64Bits());
    json.add("spms", spms);
    final JsonArray svms = new JsonArray();
    for (NodePlan.ServiceAdmission bcc : node.admissions()) {
      final Optional<TaskReport> task = task(node, bcc.instance(), bcc.svm());
      if (task.isPresent() && task.get().core() == core) {
        svms.add(svm(bcc, task.get()));
      }
    }
    json.add("svms", svms);
    return json;
  }

  private static JsonObject spm(NodePlan node, TracedSpm spm) {
    final JsonObject json = new JsonObject();
    json.addProperty("name", spm.instance() + "." + spm.method());
    json.addProperty("criticality", spm.criticality().name().toLowerCase(Locale.ROOT));
    task(node, spm.instance(), spm.method())
        .ifPresent(
            task -> {
              json.addProperty("band", task.band());
              json.addProperty("periodNs", task.periodNs());
              json.addProperty("wcetNs", task.wcetNs());
              json.addProperty("responseNs", task.responseTimeNs());
              json.addProperty("source", task.source().toString());
            });
    final JsonArray activations = new JsonArray();
    for (int seq = 0; seq < spm.activations().size(); seq++) {
      final Activation a = spm.activations().get(seq);
      final JsonObject act = new JsonObject();
      act.addProperty("seq", seq);
      act.addProperty("releaseNs", a.releaseNs());
      act.addProperty("openNs", a.windowOpenNs());
      act.addProperty("closeNs", a.windowCloseNs());
      act.addProperty("deadlineNs", a.deadlineNs());
      act.addProperty("startNs", a.startNs());
      act.addProperty("finishNs", a.finishNs());
      act.addProperty("outcome", a.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-'));
      final JsonArray slices = new JsonArray();
      for (Execution slice : a.executions()) {
        final JsonArray pair = new JsonArray();
        pair.add(slice.startNs());
        pair.add(slice.endNs());
        slices.add(pair);
      }
      act.add("slices", slices);
      activations.add(act);
    }
    json.add("activations", activations);
    return json;
  }

  private static JsonObject svm(NodePlan.ServiceAdmission bcc, TaskReport task) {
    final JsonObject json = new JsonObject();
    json.addProperty("name", bcc.instance() + "." + bcc.svm());
    json.addProperty("criticality", task.criticality().name().toLowerCase(Locale.ROOT));
    json.addProperty("gctNs", bcc.gctNs());
    json.addProperty("slotNs", bcc.admission().slotNs());
    json.addProperty("responseNs", bcc.responseNs());
    json.addProperty("conflicts", bcc.conflicts());
    json.addProperty("longestWaitNs", bcc.admission().longestWaitNs());
    json.addProperty("cycleNs", bcc.admission().cycleNs());
    final JsonArray windows = new JsonArray();
    for (BusyIntervals.Window window : bcc.admission().admissionWindows()) {
      final JsonArray pair = new JsonArray();
      pair.add(window.startNs());
      pair.add(window.endNs());
      windows.add(pair);
    }
    json.add("windows", windows);
    return json;
  }

  private static JsonObject measured(NodePlan node, NodeRun run) {
    final JsonObject json = new JsonObject();
    json.addProperty("source", run.source());
    final JsonArray activations = new JsonArray();
    final Map<String, Tmos.Spm> spms = spms(node.node());
    int drawn = 0;
    for (MeasuredActivation m : run.activations()) {
      if (drawn == MAX_DRAWN_MEASURED) {
        break;
      }
      final Tmos.Spm spm = spms.get(m.name());
      final JsonObject act = new JsonObject();
      act.addProperty("name", m.name());
      act.addProperty("core", m.core());
      act.addProperty("seq", m.seq());
      act.addProperty("releaseNs", m.releaseNs());
      act.addProperty("openNs", m.windowOpenNs());
      act.addProperty("startNs", m.startNs());
      act.addProperty("finishNs", m.finishNs());
      act.addProperty("deadlineNs", spm == null ? -1 : m.releaseNs() + spm.deadlineNs());
      act.addProperty("window", m.window().name().toLowerCase(Locale.ROOT));
      act.addProperty("deadline", m.deadline().name().toLowerCase(Locale.ROOT).replace('_', '-'));
      act.addProperty("line", m.line());
      activations.add(act);
      drawn++;
    }
    json.addProperty("total", run.activations().size());
    json.add("activations", activations);
    return json;
  }

  /** The SpMs of a node by `instance.method`. */
  private static Map<String, Tmos.Spm> spms(Platform.Node node) {
    final Map<String, Tmos.Spm> spms = new LinkedHashMap<>();
    for (Platform.Deployment deployment : node.deployments()) {
      for (Tmos.Spm spm : deployment.tmo().spms()) {
        spms.put(deployment.instance() + "." + spm.name(), spm);
      }
    }
    return spms;
  }

  private static Optional<TaskReport> task(NodePlan node, String instance, String method) {
    return node.tasks().stream()
        .filter(t -> t.instance().equals(instance) && t.method().equals(method))
        .findFirst();
  }

  /**
   * The first measured activation that is not of an SpM of the node (a log of another model or
   * node), or empty when all are.
   */
  public static Optional<MeasuredActivation> foreign(
      NodePlan node, List<MeasuredActivation> activations) {
    final Map<String, Tmos.Spm> spms = spms(node.node());
    return activations.stream().filter(a -> !spms.containsKey(a.name())).findFirst();
  }

  /** Measured against analysed for every SpM of the node, in the node's task order. */
  public static List<Comparison> compare(NodePlan node, List<MeasuredActivation> activations) {
    return compare(node, activations, Map.of());
  }

  /**
   * The same, against the bounds as deployed where {@code boundsNs} has one (by `instance.method`).
   */
  public static List<Comparison> compare(
      NodePlan node, List<MeasuredActivation> activations, Map<String, Long> boundsNs) {
    final List<Comparison> rows = new ArrayList<>();
    for (TaskReport task : node.tasks()) {
      if (task.kind() != TaskReport.Kind.SPM) {
        continue;
      }
      long count = 0;
      long ran = 0;
      long worst = -1;
      long windowMisses = 0;
      long deadlineMisses = 0;
      for (MeasuredActivation m : activations) {
        if (!m.instance().equals(task.instance()) || !m.method().equals(task.method())) {
          continue;
        }
        count++;
        if (m.ran()) {
          ran++;
          worst = Math.max(worst, m.responseNs());
        } else {
          windowMisses++;
        }
        if (m.deadline() == RunLog.Deadline.MISSED) {
          deadlineMisses++;
        }
      }
      rows.add(
          new Comparison(
              task.name(),
              task.core(),
              count,
              ran,
              worst,
              boundsNs.getOrDefault(task.name(), task.responseTimeNs()),
              task.deadlineNs(),
              windowMisses,
              deadlineMisses));
    }
    return rows;
  }
}
