package dev.kairos.reports.calibrate;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.reports.calibrate.TimingRun.Figures;
import dev.kairos.timing.HolisticAnalysis;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.Resources;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Measured execution times against declared WCETs: every method a node measured in a run is
 * compared with its WCET, and the scheduling analysis of {@code kairos check} runs once more on the
 * same model with each measured method's WCET replaced by its measured maximum plus a margin. The
 * analysis itself is not repeated here: it is given the IR with other WCETs.
 */
public final class Calibration {
  private Calibration() {}

  /** What calibration says of one method, worst first. */
  public enum Verdict {
    /** Not schedulable once measured figures replace the declared ones. */
    UNSCHEDULABLE,
    /** It ran longer than its declared WCET. */
    WCET_EXCEEDED,
    /** Within its WCET, and schedulable with the measured figures. */
    OK,
    /** No run measured it (its node did not run, or it never executed). */
    NOT_MEASURED
  }

  /**
   * One method of one node. WCETs are on the node's hardware (the model's divided by its speed), as
   * the node runs them; responses are {@code -1} where the analysis finds none within the deadline.
   *
   * @param calibratedWcetNs the WCET the second analysis used: the measured maximum plus the
   *     margin, or the declared one for a method not measured
   */
  public record Row(
      String node,
      String instance,
      String method,
      TaskReport.Kind kind,
      Criticality criticality,
      SourceRef source,
      long declaredWcetNs,
      long calibratedWcetNs,
      long deadlineNs,
      Figures execution,
      Figures response,
      long wcetOverruns,
      long responseDeclaredNs,
      long responseMeasuredNs,
      boolean schedulableMeasured) {
    public String name() {
      return instance + "." + method;
    }

    public boolean measured() {
      return execution.count() > 0;
    }

    /**
     * Whether a run took longer than the WCET the model declares now. The maximum is exact, so this
     * is what the node's overrun count says when it ran with the same WCET (the model may have
     * changed since: the count is against the WCET the node was built with).
     */
    public boolean wcetExceeded() {
      return measured() && execution.maxNs() > declaredWcetNs;
    }

    /** Deadline minus the response analysed with measured figures; empty when it has none. */
    public Optional<Long> slackNs() {
      return responseMeasuredNs >= 0
          ? Optional.of(deadlineNs - responseMeasuredNs)
          : Optional.empty();
    }

    public Verdict verdict() {
      if (!schedulableMeasured) {
        return Verdict.UNSCHEDULABLE;
      }
      if (wcetExceeded()) {
        return Verdict.WCET_EXCEEDED;
      }
      return measured() ? Verdict.OK : Verdict.NOT_MEASURED;
    }
  }

  /**
   * A WCET of the model that the measurements exceed (with the margin): the declared value and the
   * one {@code --update} writes, both for the reference machine as the model states them.
   */
  public record Update(
      String tmo,
      String method,
      SourceRef source,
      long declaredNs,
      long calibratedNs,
      String from) {}

  /**
   * @param measured the analysis with measured WCETs
   * @param updates the WCETs the measurements exceed, in model order
   */
  public record Result(
      BigDecimal margin,
      List<TimingRun> runs,
      List<Row> rows,
      TimingPlan declared,
      TimingPlan measured,
      List<Update> updates) {
    /** True when no method exceeded its WCET and the system is schedulable with the measured. */
    public boolean allWithinBounds() {
      return measured.schedulable()
          && rows.stream()
              .noneMatch(
                  r ->
                      r.verdict() == Verdict.UNSCHEDULABLE || r.verdict() == Verdict.WCET_EXCEEDED);
    }
  }

  /** A run that does not belong to the model, at the line of the file that shows it. */
  public static final class Mismatch extends Exception {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final int line;

    Mismatch(String file, int line, String message) {
      super(message);
      this.file = file;
      this.line = line;
    }

    public String file() {
      return file;
    }

    public int line() {
      return line;
    }
  }

  /**
   * Compares the runs with the model and analyses it again with measured WCETs: each measured
   * method's maximum execution time times {@code 1 + margin}, converted to the reference machine by
   * its node's speed, rounded up to a whole duration ({@link #roundUp}); several nodes or instances
   * running one TMO class give it the largest of their figures.
   */
  public static Result calibrate(SystemModel system, List<TimingRun> runs, BigDecimal margin)
      throws Mismatch {
    final Map<String, Node> nodes = new LinkedHashMap<>();
    system.nodes().forEach(n -> nodes.put(n.name(), n));
    // node -> instance.method -> measurements of all runs of that node
    final Map<String, Map<String, Measured>> measured = new LinkedHashMap<>();
    for (TimingRun run : runs) {
      final Node node = nodes.get(run.node());
      if (node == null) {
        throw new Mismatch(
            run.file(),
            run.nodeLine(),
            "node "
                + run.node()
                + " is not a node of the model (nodes: "
                + String.join(", ", nodes.keySet())
                + ")");
      }
      final Map<String, Measured> ofNode =
          measured.computeIfAbsent(node.name(), k -> new LinkedHashMap<>());
      for (TimingRun.Method method : run.methods()) {
        if (!hasMethod(node, method)) {
          throw new Mismatch(
              run.file(),
              method.line(),
              method.name()
                  + " is not "
                  + (method.kind().equals("spm") ? "a spontaneous" : "a service")
                  + " method of node "
                  + node.name()
                  + " in the model (was the node built from another version of it?)");
        }
        ofNode.merge(
            method.name(),
            new Measured(method.execution(), method.response(), method.wcetOverruns()),
            Measured::merge);
      }
    }

    // The largest reference WCET each measured TMO class method needs, and where it came from.
    final Map<String, Long> calibratedReference = new LinkedHashMap<>();
    final Map<String, String> calibratedFrom = new LinkedHashMap<>();
    for (Node node : system.nodes()) {
      for (Deployment deployment : node.deployments()) {
        for (String method : methodNames(deployment.tmo())) {
          final Measured m =
              measured
                  .getOrDefault(node.name(), Map.of())
                  .get(deployment.instance() + "." + method);
          if (m == null || m.execution.count() == 0) {
            continue;
          }
          final long reference =
              roundUp(toReference(m.execution.maxNs(), margin, node.hardware().speed()));
          final String key = key(deployment.tmo(), method);
          if (reference > calibratedReference.getOrDefault(key, -1L)) {
            calibratedReference.put(key, reference);
            calibratedFrom.put(key, node.name() + ":" + deployment.instance() + "." + method);
          }
        }
      }
    }

    final SystemModel calibrated = system.withTmos(tmo -> withWcets(tmo, calibratedReference));
    final TimingPlan declaredReport = HolisticAnalysis.analyse(system);
    final TimingPlan measuredReport = HolisticAnalysis.analyse(calibrated);

    final List<Row> rows = new ArrayList<>();
    for (int n = 0; n < system.nodes().size(); n++) {
      final Node node = system.nodes().get(n);
      final NodePlan declaredNode = declaredReport.nodes().get(n);
      final Map<String, TaskReport> measuredTasks =
          TaskReport.byName(measuredReport.nodes().get(n).tasks());
      final Map<String, Deployment> deployments =
          node.deployments().stream()
              .collect(Collectors.toMap(Deployment::instance, d -> d, (a, b) -> a));
      for (TaskReport task : declaredNode.tasks()) {
        final Deployment deployment = deployments.get(task.instance());
        final long declaredReference = declaredWcet(deployment.tmo(), task.method());
        final long declaredOnNode = Resources.scale(declaredReference, node.hardware().speed());
        final long calibratedOnNode =
            Resources.scale(
                calibratedReference.getOrDefault(
                    key(deployment.tmo(), task.method()), declaredReference),
                node.hardware().speed());
        final Measured m =
            measured.getOrDefault(node.name(), Map.of()).getOrDefault(task.name(), Measured.NONE);
        final TaskReport withMeasured = measuredTasks.get(task.name());
        rows.add(
            new Row(
                node.name(),
                task.instance(),
                task.method(),
                task.kind(),
                task.criticality(),
                task.source(),
                declaredOnNode,
                calibratedOnNode,
                task.deadlineNs(),
                m.execution,
                m.response,
                m.overruns,
                task.responseTimeNs(),
                withMeasured.responseTimeNs(),
                withMeasured.schedulable()));
      }
    }

    final List<Update> updates = new ArrayList<>();
    for (TmoClass tmo : system.tmos()) {
      for (Spm spm : tmo.spms()) {
        update(tmo, spm.name(), spm.wcetNs(), spm.source(), calibratedReference, calibratedFrom)
            .ifPresent(updates::add);
      }
      for (Svm svm : tmo.svms()) {
        update(tmo, svm.name(), svm.wcetNs(), svm.source(), calibratedReference, calibratedFrom)
            .ifPresent(updates::add);
      }
    }
    return new Result(
        margin, List.copyOf(runs), List.copyOf(rows), declaredReport, measuredReport, updates);
  }

  /**
   * A measured time on a node's hardware, plus the margin, as a WCET of the reference machine
   * (times the node's speed), rounded up to the nanosecond.
   */
  static long toReference(long measuredNs, BigDecimal margin, BigDecimal speed) {
    return BigDecimal.valueOf(measuredNs)
        .multiply(BigDecimal.ONE.add(margin))
        .multiply(speed)
        .setScale(0, RoundingMode.CEILING)
        .longValueExact();
  }

  /**
   * Rounds a duration up to three significant digits (adding less than 1%), so that a WCET written
   * into a model reads like one a person wrote: 614400 ns becomes 615 us ({@link #spell}).
   */
  public static long roundUp(long nanos) {
    long unit = 1;
    while (nanos / unit >= 1000) {
      unit *= 10;
    }
    return (nanos + unit - 1) / unit * unit;
  }

  /**
   * A duration as the model language writes it, in the largest unit of at least one: 615000 ns is
   * "615 us", 5390 ns "5.39 us", 2460000 ns "2.46 ms".
   */
  public static String spell(long nanos) {
    final long[] scales = {1_000_000_000L, 1_000_000L, 1_000L, 1L};
    final String[] units = {"s", "ms", "us", "ns"};
    for (int i = 0; i < scales.length; i++) {
      if (nanos >= scales[i] || i == scales.length - 1) {
        return BigDecimal.valueOf(nanos)
                .divide(BigDecimal.valueOf(scales[i]))
                .stripTrailingZeros()
                .toPlainString()
            + " "
            + units[i];
      }
    }
    return nanos + " ns";
  }

  private static Optional<Update> update(
      TmoClass tmo,
      String method,
      long declared,
      SourceRef source,
      Map<String, Long> calibrated,
      Map<String, String> from) {
    final Long value = calibrated.get(key(tmo, method));
    return value != null && value > declared
        ? Optional.of(
            new Update(
                tmo.qualifiedName(), method, source, declared, value, from.get(key(tmo, method))))
        : Optional.empty();
  }

  private static TmoClass withWcets(TmoClass tmo, Map<String, Long> calibrated) {
    return tmo.withMethods(
        tmo.spms().stream()
            .map(s -> s.withWcet(calibrated.getOrDefault(key(tmo, s.name()), s.wcetNs())))
            .toList(),
        tmo.svms().stream()
            .map(s -> s.withWcet(calibrated.getOrDefault(key(tmo, s.name()), s.wcetNs())))
            .toList());
  }

  private static long declaredWcet(TmoClass tmo, String method) {
    for (Spm spm : tmo.spms()) {
      if (spm.name().equals(method)) {
        return spm.wcetNs();
      }
    }
    return tmo.svm(method).map(Svm::wcetNs).orElse(0L);
  }

  private static List<String> methodNames(TmoClass tmo) {
    final List<String> names = new ArrayList<>();
    tmo.spms().forEach(s -> names.add(s.name()));
    tmo.svms().forEach(s -> names.add(s.name()));
    return names;
  }

  private static boolean hasMethod(Node node, TimingRun.Method method) {
    for (Deployment deployment : node.deployments()) {
      if (!deployment.instance().equals(method.instance())) {
        continue;
      }
      return method.kind().equals("spm")
          ? deployment.tmo().spms().stream().anyMatch(s -> s.name().equals(method.method()))
          : deployment.tmo().svm(method.method()).isPresent();
    }
    return false;
  }

  private static String key(TmoClass tmo, String method) {
    return tmo.qualifiedName() + "." + method;
  }

  /** One method's measurements, merged over the runs of its node. */
  private record Measured(Figures execution, Figures response, long overruns) {
    static final Measured NONE = new Measured(Figures.NONE, Figures.NONE, 0);

    Measured merge(Measured other) {
      return new Measured(
          execution.merge(other.execution),
          response.merge(other.response),
          overruns + other.overruns);
    }
  }
}
