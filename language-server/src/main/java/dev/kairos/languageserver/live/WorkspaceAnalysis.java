package dev.kairos.languageserver.live;

import com.google.gson.JsonObject;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.generator.lowering.LoweredChecks;
import dev.kairos.generator.pipeline.CheckPipeline;
import dev.kairos.generator.verdicts.LocatedVerdicts;
import dev.kairos.generator.verdicts.ModelElements;
import dev.kairos.ir.Platform;
import dev.kairos.ir.SystemModel;
import dev.kairos.reports.CheckReports;
import dev.kairos.reports.Diagnostic;
import dev.kairos.reports.HtmlReport;
import dev.kairos.reports.diagram.ArchitectureDiagrams;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.SchedulingAnalysis;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.xtext.diagnostics.Severity;
import org.eclipse.xtext.ide.server.ProjectManager;
import org.eclipse.xtext.ide.server.UriExtensions;
import org.eclipse.xtext.resource.IResourceDescription;
import org.eclipse.xtext.util.CancelIndicator;
import org.eclipse.xtext.validation.Issue;

/**
 * One run of the live analysis over a project: its .tmo files are one system, as the files given to
 * `kairos check` are, and go through the CLI's own pipeline ({@link CheckPipeline}): a model with
 * validation errors, or with errors only its lowered form shows, is not analysed (the report lists
 * the errors instead); otherwise it is analysed, and the report is the CLI's JSON report.
 *
 * <p>Nodes are analysed one by one, and a node equal to one of the previous run (the IR is made of
 * records, compared by value) takes its previous report: the analysis of a node without jitter
 * depends on nothing else, so an edit re-analyses only the nodes it changed. Where chains cross
 * nodes, the holistic analysis then analyses the nodes again with the jitter the chains pass on.
 */
public final class WorkspaceAnalysis {
  private static final String MODEL_EXTENSION = "tmo";

  private final UriExtensions uris = new UriExtensions();
  private final boolean withHtml;
  private final boolean withArchitecture;

  /** The node reports of the previous run, per project. */
  private final Map<URI, Map<Platform.Node, NodePlan>> previous = new HashMap<>();

  /**
   * @param withHtml whether notifications also carry the page of `kairos check --html`
   * @param withArchitecture whether notifications of analysed models also carry the architecture
   *     diagram (SVG)
   */
  public WorkspaceAnalysis(boolean withHtml, boolean withArchitecture) {
    this.withHtml = withHtml;
    this.withArchitecture = withArchitecture;
  }

  /**
   * The outcome of one run for a project: empty if it was cancelled (a newer edit came) or the
   * project is not a workspace folder.
   */
  public synchronized Optional<AnalysisSnapshot> analyse(
      ProjectManager project,
      Map<URI, List<Issue>> validation,
      Map<URI, Integer> openVersions,
      CancelIndicator cancel) {
    final URI base = project.getBaseDir();
    if (base == null) {
      // Xtext's project for files outside every workspace folder: not a system of its own.
      return Optional.empty();
    }
    final List<URI> files = new ArrayList<>();
    for (IResourceDescription description :
        project.getIndexState().getResourceDescriptions().getAllResourceDescriptions()) {
      if (MODEL_EXTENSION.equals(description.getURI().fileExtension())) {
        files.add(description.getURI());
      }
    }
    files.sort(Comparator.comparing(URI::toString));
    final Map<URI, String> portable = new HashMap<>();
    for (URI file : files) {
      portable.put(file, portableName(base, file));
    }
    final JsonObject versions = versions(openVersions, portable.keySet());

    final List<Diagnostic> diagnostics = new ArrayList<>();
    for (URI file : files) {
      for (Issue issue : validation.getOrDefault(file, List.of())) {
        diagnostics.add(CheckPipeline.diagnostic(portable.get(file), issue));
      }
    }
    if (files.isEmpty()) {
      return Optional.of(
          skipped(
              base, versions, "not analysed: no model files (*.tmo) in the workspace", null, ""));
    }

    final Laps laps = new Laps();
    final List<Model> models = new ArrayList<>();
    for (URI file : files) {
      if (cancel.isCanceled()) {
        return Optional.empty();
      }
      final Resource resource = project.getResource(file);
      if (!resource.getContents().isEmpty() && resource.getContents().get(0) instanceof Model m) {
        models.add(m);
      }
    }
    laps.lap("load_ms");
    // The steps `kairos check` takes, in its order: validation's errors, then the lowered
    // model's, stop it. Nodes equal to the previous run's take their reports (no jitter); the
    // holistic analysis then analyses again only what the chains' jitter changes.
    final Map<Platform.Node, NodePlan> before = previous.getOrDefault(base, Map.of());
    final Map<Platform.Node, NodePlan> reused = new HashMap<>();
    final CheckPipeline.Outcome outcome;
    try {
      outcome =
          CheckPipeline.check(
              systemName(base),
              models,
              file -> portable.getOrDefault(file, file.lastSegment()),
              diagnostics,
              reused::get,
              lowered -> {
                laps.lap("lower_ms");
                for (Platform.Node node : lowered.nodes()) {
                  if (cancel.isCanceled()) {
                    throw new CancellationException();
                  }
                  final NodePlan kept = before.get(node);
                  reused.put(node, kept != null ? kept : SchedulingAnalysis.analyse(node));
                }
              });
    } catch (CancellationException cancelled) {
      return Optional.empty();
    }
    if (outcome instanceof CheckPipeline.Invalid invalid) {
      return Optional.of(
          skipped(
              base,
              versions,
              notAnalysed(invalid.errors().size()),
              invalid.errors(),
              title(files, portable)));
    }
    if (outcome instanceof CheckPipeline.Refused refused) {
      previous.remove(base);
      return Optional.of(
          loweredErrors(base, versions, refused.lowered(), models, title(files, portable)));
    }
    previous.put(base, reused);
    final SystemModel system = ((CheckPipeline.Analysed) outcome).system();
    final TimingPlan report = ((CheckPipeline.Analysed) outcome).report();
    if (cancel.isCanceled()) {
      return Optional.empty();
    }
    laps.lap("analyse_ms");
    final AnalysisSnapshot snapshot =
        analysed(base, versions, system, report, new ModelElements(models), title(files, portable));
    laps.lap("diagnostics_ms");
    snapshot.header().add("timings", laps.json());
    return Optional.of(snapshot);
  }

  /**
   * Messages the ORB cannot carry and platform files that cannot be read are model errors, as in
   * `kairos check`: not analysed, the report lists them, and each is a diagnostic on its operation
   * or on the hardware that names the file.
   */
  private AnalysisSnapshot loweredErrors(
      URI base,
      JsonObject versions,
      CheckPipeline.Lowered lowered,
      List<Model> models,
      String title) {
    final ModelElements elements = new ModelElements(models);
    final Map<URI, List<SchedulabilityDiagnostic>> diagnostics = new HashMap<>();
    for (LoweredChecks.Problem problem : lowered.problems()) {
      for (EObject element : elementsOf(problem.element(), elements, models)) {
        LocatedVerdicts.at(
                element, problem.code(), Severity.ERROR, problem.message(), problem.data())
            .ifPresent(found -> add(diagnostics, found));
      }
    }
    diagnostics.values().forEach(list -> list.sort(Comparator.comparingInt(d -> d.offset())));
    return skipped(
        base,
        versions,
        notAnalysed(lowered.problems().size()),
        lowered.errors(),
        title,
        diagnostics);
  }

  private static String notAnalysed(int errors) {
    return "not analysed: the model has " + errors + (errors == 1 ? " error" : " errors");
  }

  /** The model elements a problem of the lowered model concerns, to put it on. */
  private static List<EObject> elementsOf(
      LoweredChecks.Element element, ModelElements elements, List<Model> models) {
    if (element instanceof LoweredChecks.OperationElement operation) {
      return elements
          .operation(operation.namespace(), operation.iface(), operation.operation())
          .<EObject>map(found -> found)
          .stream()
          .toList();
    }
    final String path = ((LoweredChecks.PlatformElement) element).path();
    final List<EObject> found = new ArrayList<>();
    for (Model model : models) {
      for (EObject candidate : model.getElements()) {
        if (candidate instanceof dev.kairos.dsl.kairos.Hardware hardware
            && path.equals(hardware.getPlatform())) {
          found.add(hardware);
        }
      }
    }
    return found;
  }

  /** A run that failed inside the analysis: the report says so instead of showing figures. */
  public synchronized AnalysisSnapshot failed(
      ProjectManager project, Map<URI, Integer> openVersions, RuntimeException failure) {
    previous.remove(project.getBaseDir());
    return skipped(
        project.getBaseDir(),
        versions(openVersions, openVersions.keySet()),
        "not analysed: the analysis failed ("
            + (failure.getMessage() == null
                ? failure.getClass().getSimpleName()
                : failure.getMessage())
            + ")",
        null,
        "");
  }

  /** The versions of the open documents among `files`, by URI as the editor spells it. */
  private JsonObject versions(Map<URI, Integer> openVersions, Set<URI> files) {
    final Map<String, Integer> sorted = new TreeMap<>();
    openVersions.forEach(
        (uri, version) -> {
          if (files.contains(uri)) {
            sorted.put(uris.toUriString(uri), version);
          }
        });
    final JsonObject versions = new JsonObject();
    sorted.forEach(versions::addProperty);
    return versions;
  }

  /** How long the phases of a run took: informative figures in the notification. */
  private static final class Laps {
    private final JsonObject laps = new JsonObject();
    private long start = System.nanoTime();

    void lap(String phase) {
      final long now = System.nanoTime();
      laps.addProperty(phase, (now - start) / 1_000_000);
      start = now;
    }

    JsonObject json() {
      return laps;
    }
  }

  private AnalysisSnapshot skipped(
      URI base, JsonObject versions, String reason, List<Diagnostic> problems, String title) {
    return skipped(base, versions, reason, problems, title, Map.of());
  }

  /** A run that did not analyse, with the diagnostics it found on the way. */
  private AnalysisSnapshot skipped(
      URI base,
      JsonObject versions,
      String reason,
      List<Diagnostic> problems,
      String title,
      Map<URI, List<SchedulabilityDiagnostic>> diagnostics) {
    final List<Diagnostic> errors = problems == null ? List.of() : problems;
    return new AnalysisSnapshot(
        base,
        null,
        null,
        reason,
        Map.of(),
        Map.of(),
        diagnostics,
        header(base, versions, false, reason),
        () -> CheckReports.json(null, errors),
        withHtml ? () -> HtmlReport.render(title, null, errors) : null,
        null);
  }

  private AnalysisSnapshot analysed(
      URI base,
      JsonObject versions,
      SystemModel system,
      TimingPlan report,
      ModelElements elements,
      String title) {
    final Map<String, List<AnalysisSnapshot.MethodFigures>> methods = new HashMap<>();
    final Map<String, NodePlan> nodes = new LinkedHashMap<>();
    final Map<URI, List<SchedulabilityDiagnostic>> diagnostics = new HashMap<>();
    final Map<String, String> classOfInstance = new HashMap<>();
    for (NodePlan node : report.nodes()) {
      nodes.put(node.node().name(), node);
      for (Platform.Deployment deployment : node.node().deployments()) {
        classOfInstance.put(deployment.instance(), deployment.tmo().qualifiedName());
      }
      final Map<Integer, Integer> tasksOnCore = new HashMap<>();
      node.tasks().forEach(t -> tasksOnCore.merge(t.core(), 1, Integer::sum));
      final Map<Integer, Integer> rankOnCore = new HashMap<>();
      for (TaskReport task : node.tasks()) {
        final int rank = rankOnCore.merge(task.core(), 1, Integer::sum);
        final String tmo = classOfInstance.get(task.instance());
        if (tmo == null) {
          continue;
        }
        final String key = ModelElements.methodKey(tmo, task.method());
        methods
            .computeIfAbsent(key, k -> new ArrayList<>())
            .add(
                new AnalysisSnapshot.MethodFigures(node, task, rank, tasksOnCore.get(task.core())));
      }
    }
    LocatedVerdicts.of(report, elements).forEach(verdict -> add(diagnostics, verdict));
    diagnostics.values().forEach(list -> list.sort(Comparator.comparingInt(d -> d.offset())));
    // Laid out once, when the notification is first built, for the page and the field alike.
    final Supplier<String> architecture = memoized(() -> ArchitectureDiagrams.svg(system, report));
    return new AnalysisSnapshot(
        base,
        system,
        report,
        null,
        methods,
        nodes,
        diagnostics,
        header(base, versions, true, null),
        () -> CheckReports.json(report, List.of()),
        withHtml
            ? () -> HtmlReport.render(title, report, List.of(), Map.of(), architecture.get())
            : null,
        withArchitecture ? architecture : null);
  }

  private static Supplier<String> memoized(Supplier<String> supplier) {
    return new Supplier<>() {
      private String value;

      @Override
      public synchronized String get() {
        if (value == null) {
          value = supplier.get();
        }
        return value;
      }
    };
  }

  /** A located finding as a diagnostic of the file that holds its element. */
  private static void add(
      Map<URI, List<SchedulabilityDiagnostic>> diagnostics, LocatedVerdicts.Located found) {
    diagnostics
        .computeIfAbsent(found.element().eResource().getURI(), uri -> new ArrayList<>())
        .add(
            new SchedulabilityDiagnostic(
                found.code(),
                found.severity(),
                found.message(),
                found.region().offset(),
                found.region().length(),
                found.region().line(),
                found.region().column(),
                found.region().endLine(),
                found.region().endColumn(),
                found.data()));
  }

  private JsonObject header(URI base, JsonObject versions, boolean analysed, String reason) {
    final JsonObject notification = new JsonObject();
    notification.addProperty("workspace", uris.toUriString(base));
    notification.addProperty("analysed", analysed);
    if (reason != null) {
      notification.addProperty("reason", reason);
    }
    notification.add("versions", versions);
    return notification;
  }

  /** What the page names the models by, as `kairos check --html` does: their files. */
  private static String title(List<URI> files, Map<URI, String> portable) {
    return String.join(", ", files.stream().map(portable::get).toList());
  }

  /**
   * A file as the reports name it: relative to the workspace, as `kairos check` run there would.
   */
  static String portableName(URI base, URI file) {
    if (base != null && file.isFile() && base.isFile()) {
      final String root = base.toFileString();
      final String path = file.toFileString();
      final String prefix = root.endsWith("/") ? root : root + "/";
      if (path.startsWith(prefix)) {
        return path.substring(prefix.length());
      }
    }
    return file.lastSegment();
  }

  private static String systemName(URI base) {
    String name = "workspace";
    if (base != null) {
      for (String segment : base.segments()) {
        if (!segment.isEmpty()) {
          name = URI.decode(segment);
        }
      }
    }
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }
}
