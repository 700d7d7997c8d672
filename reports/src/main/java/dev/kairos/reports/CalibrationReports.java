package dev.kairos.reports;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import dev.kairos.ir.Durations;
import dev.kairos.reports.calibrate.Calibration;
import dev.kairos.reports.calibrate.Calibration.Row;
import dev.kairos.reports.calibrate.Calibration.Update;
import dev.kairos.reports.calibrate.Calibration.Verdict;
import dev.kairos.reports.calibrate.TimingRun;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * What `kairos calibrate` found, for people (a table per node) and for machines (JSON with integer
 * nanoseconds, docs/cli.md).
 */
public final class CalibrationReports {
  /**
   * Runs a method must have made before one run alone above its WCET is called out as possibly the
   * machine's: a body measured by its thread's CPU clock is charged for time a hypervisor spends on
   * the vCPU's physical CPU (host interrupts, exits) while the guest cannot see it as steal; a
   * spinning SCHED_FIFO thread on the virtual machines the project is tested on saw 100-225 us of
   * such time about once a second and, rarely, 1-2 ms.
   */
  private static final long LONE_RUN_MIN_RUNS = 100;

  private CalibrationReports() {}

  /** The margin as people write it: 0.2 -> "20%". */
  public static String percent(BigDecimal margin) {
    return margin.movePointRight(2).stripTrailingZeros().toPlainString() + "%";
  }

  /** The verdict as the text report says it. */
  public static String words(Verdict verdict) {
    return switch (verdict) {
      case OK -> "ok";
      case WCET_EXCEEDED -> "WCET exceeded";
      case UNSCHEDULABLE -> "unschedulable with measured";
      case NOT_MEASURED -> "not measured";
    };
  }

  /** The verdict's stable JSON name. */
  public static String code(Verdict verdict) {
    return switch (verdict) {
      case OK -> "ok";
      case WCET_EXCEEDED -> "wcet-exceeded";
      case UNSCHEDULABLE -> "unschedulable";
      case NOT_MEASURED -> "not-measured";
    };
  }

  public static String text(Calibration.Result result) {
    final StringBuilder out = new StringBuilder();
    for (TimingRun run : result.runs()) {
      out.append(
          String.format(
              Locale.ROOT,
              "run %s: node %s, %s, execution times by %s%n",
              run.file(),
              run.node(),
              run.complete() ? "complete" : "a snapshot during the run",
              run.executionClock().equals("modelled")
                  ? "the simulation's model"
                  : "thread CPU time"));
    }
    final String row = "  %-26s %-4s %-4s %9s %7s %9s %9s %10s %10s %10s %9s %9s  %s%n";
    String node = null;
    for (Row r : result.rows()) {
      if (!r.node().equals(node)) {
        node = r.node();
        out.append(String.format(Locale.ROOT, "node %s%n", node));
        out.append(
            String.format(
                Locale.ROOT,
                row,
                "method",
                "kind",
                "crit",
                "wcet",
                "runs",
                "max",
                "p99.9",
                "+" + percent(result.margin()),
                "resp/decl",
                "resp/meas",
                "deadline",
                "slack",
                "verdict"));
      }
      out.append(
          String.format(
              Locale.ROOT,
              row,
              r.name(),
              r.kind().name().toLowerCase(Locale.ROOT),
              r.criticality().name().toLowerCase(Locale.ROOT),
              Durations.format(r.declaredWcetNs()),
              r.execution().count(),
              r.measured() ? figure(r.execution().maxNs()) : "-",
              r.measured() ? figure(r.execution().p999Ns()) : "-",
              r.measured() ? figure(r.calibratedWcetNs()) : "-",
              response(r.responseDeclaredNs()),
              response(r.responseMeasuredNs()),
              Durations.format(r.deadlineNs()),
              r.slackNs().map(CalibrationReports::figure).orElse("-"),
              words(r.verdict())));
    }
    for (Row r : result.rows()) {
      if (r.wcetExceeded()) {
        out.append(
            String.format(
                Locale.ROOT,
                "%s: %s on node %s ran up to %s, beyond its WCET of %s%s%n",
                r.source(),
                r.name(),
                r.node(),
                figure(r.execution().maxNs()),
                Durations.format(r.declaredWcetNs()),
                r.wcetOverruns() == 0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        " (the node counted %d run%s over its WCET)",
                        r.wcetOverruns(),
                        r.wcetOverruns() == 1 ? "" : "s")));
        if (r.wcetOverruns() == 1 && r.execution().count() >= LONE_RUN_MIN_RUNS) {
          out.append(
              String.format(
                  Locale.ROOT,
                  "%s: %s: 1 run of %d above its WCET: on a virtual machine a lone run can hold"
                      + " time the host took while the body ran, which the thread's CPU clock"
                      + " counts; run again before raising the WCET%n",
                  r.source(),
                  r.name(),
                  r.execution().count()));
        }
      }
    }
    for (Update update : result.updates()) {
      out.append(
          String.format(
              Locale.ROOT,
              "%s: %s.%s needs wcet %s (declared %s), from %s%n",
              update.source(),
              update.tmo(),
              update.method(),
              Calibration.spell(update.calibratedNs()),
              Calibration.spell(update.declaredNs()),
              update.from()));
    }
    final long exceeded = result.rows().stream().filter(Row::wcetExceeded).count();
    out.append(
        String.format(
            Locale.ROOT,
            "%s; %s with measured WCETs + %s%n",
            exceeded == 0
                ? "every measured method within its WCET"
                : exceeded + " method" + (exceeded == 1 ? "" : "s") + " exceeded the WCET",
            result.measured().schedulable() ? "schedulable" : "NOT schedulable",
            percent(result.margin())));
    return out.toString();
  }

  /** JSON of the result; {@code updated} says whether the model was rewritten (--update). */
  public static String json(Calibration.Result result, boolean updated) {
    final JsonObject root = new JsonObject();
    root.addProperty("margin", result.margin());
    final JsonArray runs = new JsonArray();
    for (TimingRun run : result.runs()) {
      final JsonObject o = new JsonObject();
      o.addProperty("file", run.file());
      o.addProperty("node", run.node());
      o.addProperty("complete", run.complete());
      o.addProperty("execution_clock", run.executionClock());
      runs.add(o);
    }
    root.add("runs", runs);
    root.addProperty("schedulable_declared", result.declared().schedulable());
    root.addProperty("schedulable_measured", result.measured().schedulable());
    root.addProperty("within_bounds", result.allWithinBounds());
    final JsonArray methods = new JsonArray();
    for (Row r : result.rows()) {
      final JsonObject o = new JsonObject();
      o.addProperty("node", r.node());
      o.addProperty("instance", r.instance());
      o.addProperty("method", r.method());
      o.addProperty("kind", r.kind().name().toLowerCase(Locale.ROOT));
      o.addProperty("criticality", r.criticality().name().toLowerCase(Locale.ROOT));
      o.addProperty("file", r.source().file());
      o.addProperty("line", r.source().line());
      o.addProperty("declared_wcet_ns", r.declaredWcetNs());
      o.addProperty("calibrated_wcet_ns", r.calibratedWcetNs());
      o.addProperty("deadline_ns", r.deadlineNs());
      o.add("execution", figures(r.execution()));
      o.add("response", figures(r.response()));
      o.addProperty("wcet_overruns", r.wcetOverruns());
      o.add("response_declared_ns", bound(r.responseDeclaredNs()));
      o.add("response_measured_ns", bound(r.responseMeasuredNs()));
      o.add(
          "slack_ns",
          r.slackNs()
              .<com.google.gson.JsonElement>map(com.google.gson.JsonPrimitive::new)
              .orElse(JsonNull.INSTANCE));
      o.addProperty("wcet_exceeded", r.wcetExceeded());
      o.addProperty("schedulable_measured", r.schedulableMeasured());
      o.addProperty("verdict", code(r.verdict()));
      methods.add(o);
    }
    root.add("methods", methods);
    final JsonArray updates = new JsonArray();
    for (Update update : result.updates()) {
      final JsonObject o = new JsonObject();
      o.addProperty("tmo", update.tmo());
      o.addProperty("method", update.method());
      o.addProperty("file", update.source().file());
      o.addProperty("line", update.source().line());
      o.addProperty("declared_wcet_ns", update.declaredNs());
      o.addProperty("new_wcet_ns", update.calibratedNs());
      o.addProperty("measured_on", update.from());
      updates.add(o);
    }
    root.add("updates", updates);
    root.addProperty("updated", updated);
    return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(root) + "\n";
  }

  private static JsonObject figures(TimingRun.Figures figures) {
    final JsonObject o = new JsonObject();
    o.addProperty("count", figures.count());
    o.addProperty("max_ns", figures.maxNs());
    o.addProperty("p99_ns", figures.p99Ns());
    o.addProperty("p999_ns", figures.p999Ns());
    return o;
  }

  private static com.google.gson.JsonElement bound(long nanos) {
    return nanos >= 0 ? new com.google.gson.JsonPrimitive(nanos) : JsonNull.INSTANCE;
  }

  private static String response(long nanos) {
    return nanos >= 0 ? figure(nanos) : "> deadline";
  }

  /** A measured figure, to three significant places or so: 12345 ns -> "12.3 us". */
  static String figure(long nanos) {
    if (nanos < 0) {
      return "-" + figure(-nanos);
    }
    if (nanos < 1_000) {
      return nanos + " ns";
    }
    if (nanos < 1_000_000) {
      return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
    }
    if (nanos < 1_000_000_000) {
      return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
  }
}
