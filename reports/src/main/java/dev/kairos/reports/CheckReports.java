package dev.kairos.reports;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.kairos.ir.Durations;
import dev.kairos.ir.Platform;
import dev.kairos.ir.wire.Frames;
import dev.kairos.timing.EndToEndAnalysis;
import dev.kairos.timing.Finding;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.PlatformOverheads;
import dev.kairos.timing.TaskReport;
import dev.kairos.timing.TimingPlan;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The verdicts of `kairos check`, for people (a table per node) and for machines (JSON). */
public final class CheckReports {
  private CheckReports() {}

  /**
   * What the platform file the node's hardware names says of the machine, and what the analysis
   * charges for it (PlatformOverheads).
   */
  private static String platformLine(Platform.PlatformFile file, Platform.Overheads o) {
    return String.format(
        Locale.ROOT,
        "  platform %s: measured %s by %s on %s (%s); charged: SpM release jitter %s (max),"
            + " %d context switches of %s per job, %s per segment lock (p99.9), %s; %s%n",
        file.path(),
        o.measuredAt(),
        o.measuredBy(),
        o.cpuModel().isEmpty() ? "an unnamed CPU" : o.cpuModel(),
        o.scheduling(),
        Durations.format(o.releaseLatenessNs()),
        PlatformOverheads.SWITCHES_PER_JOB,
        Durations.format(o.contextSwitchP999Ns()),
        Durations.format(o.ceilingLockP999Ns()),
        o.dispatchHandoffNs() == 0 && o.orbCallP999Ns() == 0
            ? "no dispatch handoff or ORB call (the file's probe did not measure them)"
            : String.format(
                Locale.ROOT,
                "service request jitter %s (max dispatch handoff), %s per ORB call (p99.9)",
                Durations.format(o.dispatchHandoffNs()),
                Durations.format(o.orbCallP999Ns())),
        o.channelTransportP999Ns() == 0
            ? "no channel transport (the file's probe did not measure Cyclone DDS)"
            : String.format(
                Locale.ROOT,
                "%s per channel sample from another Linux node (channel transport, p99.9)",
                Durations.format(o.channelTransportP999Ns())));
  }

  /**
   * How the node's header says where its overheads come from: a real platform without a platform
   * file is analysed as an ideal processor, and the report says so (a simulated one has none).
   */
  private static String overheadsClause(Platform.Node node) {
    return node.os() != Platform.OperatingSystem.SIM && PlatformOverheads.measured(node).isEmpty()
        ? ", zero platform overheads assumed"
        : "";
  }

  /**
   * Where the node's overheads come from, in one sentence for the HTML report: its platform file's
   * origin and what the analysis charged, that a real platform without one is analysed as an ideal
   * processor, or empty for a simulated node (its processor is modelled).
   */
  static String platformSummary(Platform.Node node) {
    final Optional<Platform.PlatformFile> file =
        node.hardware().platform().filter(f -> f.overheads().isPresent());
    if (file.isPresent()) {
      return platformLine(file.get(), file.get().overheads().get()).strip();
    }
    return node.os() == Platform.OperatingSystem.SIM
        ? ""
        : "zero platform overheads assumed: the hardware names no platform file (kairos probe"
            + " measures one), so the analysis assumes an ideal processor";
  }

  private static JsonObject platformJson(String path, Platform.Overheads o) {
    final JsonObject p = new JsonObject();
    p.addProperty("file", path);
    p.addProperty("measured_at", o.measuredAt());
    p.addProperty("measured_by", o.measuredBy());
    p.addProperty("cpu_model", o.cpuModel());
    p.addProperty("scheduling", o.scheduling());
    p.addProperty("release_lateness_ns", o.releaseLatenessNs());
    p.addProperty("context_switch_ns", o.contextSwitchNs());
    p.addProperty("ceiling_lock_ns", o.ceilingLockNs());
    p.addProperty("dispatch_handoff_ns", o.dispatchHandoffNs());
    p.addProperty("orb_call_ns", o.orbCallNs());
    p.addProperty("channel_transport_ns", o.channelTransportNs());
    // What the analysis charged for them (PlatformOverheads).
    final JsonObject charged = new JsonObject();
    charged.addProperty("spm_release_jitter_ns", o.releaseLatenessNs());
    charged.addProperty("context_switches_per_job", PlatformOverheads.SWITCHES_PER_JOB);
    charged.addProperty("context_switch_ns", o.contextSwitchP999Ns());
    charged.addProperty("ceiling_lock_ns_per_segment", o.ceilingLockP999Ns());
    charged.addProperty("svm_release_jitter_ns", o.dispatchHandoffNs());
    charged.addProperty("orb_call_ns_per_message", o.orbCallP999Ns());
    charged.addProperty("channel_transport_ns_per_sample", o.channelTransportP999Ns());
    p.add("charged", charged);
    return p;
  }

  public static String text(TimingPlan report) {
    final StringBuilder out = new StringBuilder();
    for (NodePlan node : report.nodes()) {
      out.append(
          String.format(
              Locale.ROOT,
              "node %s (%s): os %s, scheduling %s, hardware %s x%s%s%s%n",
              node.node().name(),
              node.node().source(),
              node.node().os().name().toLowerCase(Locale.ROOT),
              strategy(node),
              node.node().hardware().name(),
              node.node().hardware().speed().toPlainString(),
              node.multicore() ? ", " + node.cores().size() + " cores, partitioned" : "",
              overheadsClause(node.node())));
      node.node()
          .hardware()
          .platform()
          .ifPresent(file -> file.overheads().ifPresent(o -> out.append(platformLine(file, o))));
      final String row = "  %-28s %-4s %-4s %10s %10s %10s %4s %10s %10s  %s%n";
      out.append(
          String.format(
              Locale.ROOT,
              row,
              "task",
              "kind",
              "crit",
              "period",
              "wcet",
              "deadline",
              "band",
              "response",
              "slack",
              "verdict"));
      for (TaskReport task : node.tasks()) {
        out.append(
            String.format(
                Locale.ROOT,
                row,
                task.name(),
                task.kind().name().toLowerCase(Locale.ROOT),
                task.criticality().name().toLowerCase(Locale.ROOT),
                task.periodNs() > 0 ? Durations.format(task.periodNs()) : "-",
                Durations.format(task.wcetNs()),
                Durations.format(task.deadlineNs()),
                task.band(),
                task.responseTimeNs() >= 0 ? Durations.format(task.responseTimeNs()) : "> deadline",
                task.responseTimeNs() >= 0
                    ? Durations.format(task.deadlineNs() - task.responseTimeNs())
                    : "-",
                verdict(node, task)));
      }
      if (node.multicore()) {
        // Partitioned: each core is a processor of its own; the task rows above are by core.
        for (NodePlan.CorePlan core : node.cores()) {
          out.append(
              String.format(
                  Locale.ROOT,
                  "  core %d (%s): utilization %.1f%% (%s %.1f%%): %s%n",
                  core.core(),
                  core.instances().isEmpty() ? "idle" : String.join(", ", core.instances()),
                  core.utilization() * 100,
                  Figures.utilizationBound(node.node().strategy()),
                  core.liuLaylandBound() * 100,
                  core.schedulable() ? "schedulable" : "NOT schedulable"));
        }
        final List<String> placed = new java.util.ArrayList<>();
        for (NodePlan.Placement placement : node.placements()) {
          placed.add(
              String.format(
                  Locale.ROOT,
                  "%s -> core %d (%s, %.1f%%)",
                  placement.instance(),
                  placement.core(),
                  placement.byModel() ? "model" : "first-fit decreasing",
                  placement.utilization() * 100));
        }
        out.append("  placement: ")
            .append(String.join("; ", placed))
            .append(System.lineSeparator());
        out.append(
            String.format(
                Locale.ROOT,
                "  %d cores: %s%n",
                node.cores().size(),
                node.schedulable() ? "schedulable" : "NOT schedulable"));
      } else {
        out.append(
            String.format(
                Locale.ROOT,
                "  utilization %.1f%% (%s %.1f%%): %s%n",
                node.utilization() * 100,
                Figures.utilizationBound(node.node().strategy()),
                node.liuLaylandBound() * 100,
                node.schedulable() ? "schedulable" : "NOT schedulable"));
      }
      for (NodePlan.ServiceAdmission bcc : node.admissions()) {
        if (!bcc.conflicts()) {
          continue;
        }
        out.append(
            String.format(
                Locale.ROOT,
                "  bcc: %s.%s %s (slot %s): response %s, GCT %s%n",
                bcc.instance(),
                bcc.svm(),
                bcc.admission().bounded()
                    ? "waits at most "
                        + Durations.format(bcc.admission().longestWaitNs())
                        + " for admission"
                    : "may never be admitted",
                Durations.format(bcc.admission().slotNs()),
                bcc.responseNs() >= 0 ? Durations.format(bcc.responseNs()) : "unbounded",
                Durations.format(bcc.gctNs())));
      }
      for (Finding note : node.notes()) {
        out.append("  note: ").append(Findings.text(note)).append(System.lineSeparator());
      }
      out.append(System.lineSeparator());
    }
    if (!report.gates().isEmpty()) {
      out.append("remote calls (deadline >= 2 x (latency + jitter) + serialisation + callee GCT):")
          .append(System.lineSeparator());
      for (EndToEndAnalysis.GateReport gate : report.gates()) {
        out.append(
            String.format(
                Locale.ROOT,
                "  %s.%s -> %s: deadline %s, network %s%s, GCT %s, callee response %s: %s%n",
                gate.caller(),
                gate.gate(),
                gate.callee(),
                Durations.format(gate.deadlineNs()),
                gate.networkNs() < 0 ? "no path" : Durations.format(gate.networkNs()),
                serialisation(gate),
                gate.calleeGctNs() < 0 ? "?" : Durations.format(gate.calleeGctNs()),
                gate.calleeResponseNs() < 0
                    ? "unbounded"
                    : Durations.format(gate.calleeResponseNs()),
                gate.meets() ? "ok" : "MISSES ITS DEADLINE"));
      }
      out.append(System.lineSeparator());
    }
    ServiceRateReports.text(out, report);
    ChainReports.text(out, report);
    out.append(report.schedulable() ? "all nodes schedulable" : "not schedulable")
        .append(System.lineSeparator());
    return out.toString();
  }

  /** The stable JSON form: times are integer nanoseconds. */
  public static String json(TimingPlan report, List<Diagnostic> problems) {
    return json(report, problems, List.of());
  }

  /** The JSON form with the model's warnings too (`warnings`, beside `errors`). */
  public static String json(
      TimingPlan report, List<Diagnostic> problems, List<Diagnostic> warnings) {
    final JsonObject root = new JsonObject();
    root.addProperty("schedulable", report != null && report.schedulable() && problems.isEmpty());
    final JsonArray nodes = new JsonArray();
    if (report != null) {
      for (NodePlan node : report.nodes()) {
        final JsonObject n = new JsonObject();
        n.addProperty("node", node.node().name());
        n.addProperty("strategy", strategy(node));
        // A multicore node's utilization is summed over its cores; each core has its own bound
        // (`cores`), which a sum is not to be compared with.
        n.addProperty("utilization", node.utilization());
        if (!node.multicore()) {
          n.addProperty("liu_layland_bound", node.liuLaylandBound());
        }
        node.node()
            .hardware()
            .platform()
            .ifPresent(
                file ->
                    file.overheads()
                        .ifPresent(o -> n.add("platform", platformJson(file.path(), o))));
        // Where the analysis's overheads come from: `measured` (the platform object), `none` (a
        // simulated node has none) or `assumed-zero` (a real one without a platform file).
        n.addProperty(
            "overheads",
            PlatformOverheads.measured(node.node()).isPresent()
                ? "measured"
                : node.node().os() == Platform.OperatingSystem.SIM ? "none" : "assumed-zero");
        n.addProperty("schedulable", node.schedulable());
        final JsonArray tasks = new JsonArray();
        for (TaskReport task : node.tasks()) {
          final JsonObject t = new JsonObject();
          t.addProperty("name", task.name());
          t.addProperty("kind", task.kind().name().toLowerCase(Locale.ROOT));
          t.addProperty("criticality", task.criticality().name().toLowerCase(Locale.ROOT));
          t.addProperty("period_ns", task.periodNs());
          t.addProperty("wcet_ns", task.wcetNs());
          t.addProperty("deadline_ns", task.deadlineNs());
          t.addProperty("priority", task.band());
          t.addProperty("core", task.core());
          t.addProperty("response_time_ns", task.responseTimeNs());
          if (task.kind() == TaskReport.Kind.SPM && node.playout().unrolled()) {
            // As played in the release table: exact for the SpMs alone, from release t.
            node.playout().timings().stream()
                .filter(
                    timing ->
                        timing.instance().equals(task.instance())
                            && timing.method().equals(task.method()))
                .findFirst()
                .ifPresent(
                    timing -> t.addProperty("table_worst_response_ns", timing.worstResponseNs()));
          }
          t.addProperty("schedulable", task.schedulable());
          t.addProperty("source", task.source().toString());
          tasks.add(t);
        }
        n.add("tasks", tasks);
        final JsonArray bcc = new JsonArray();
        for (NodePlan.ServiceAdmission admission : node.admissions()) {
          final JsonObject b = new JsonObject();
          b.addProperty("svm", admission.instance() + "." + admission.svm());
          b.addProperty("conflicts", admission.conflicts());
          b.addProperty("slot_ns", admission.admission().slotNs());
          b.addProperty("longest_wait_ns", admission.admission().longestWaitNs());
          b.addProperty("response_time_ns", admission.responseNs());
          b.addProperty("gct_ns", admission.gctNs());
          bcc.add(b);
        }
        n.add("bcc", bcc);
        final JsonArray cores = new JsonArray();
        for (NodePlan.CorePlan core : node.cores()) {
          final JsonObject c = new JsonObject();
          c.addProperty("core", core.core());
          final JsonArray instances = new JsonArray();
          core.instances().forEach(instances::add);
          c.add("instances", instances);
          c.addProperty("utilization", core.utilization());
          c.addProperty("liu_layland_bound", core.liuLaylandBound());
          c.addProperty("schedulable", core.schedulable());
          cores.add(c);
        }
        n.add("cores", cores);
        final JsonArray placements = new JsonArray();
        for (NodePlan.Placement placement : node.placements()) {
          final JsonObject p = new JsonObject();
          p.addProperty("instance", placement.instance());
          p.addProperty("core", placement.core());
          p.addProperty("placed_by", placement.byModel() ? "model" : "first-fit-decreasing");
          p.addProperty("utilization", placement.utilization());
          placements.add(p);
        }
        n.add("placement", placements);
        nodes.add(n);
      }
    }
    root.add("nodes", nodes);
    final JsonArray gates = new JsonArray();
    if (report != null) {
      for (EndToEndAnalysis.GateReport gate : report.gates()) {
        final JsonObject g = new JsonObject();
        g.addProperty("gate", gate.caller() + "." + gate.gate());
        g.addProperty("callee", gate.callee());
        g.addProperty("deadline_ns", gate.deadlineNs());
        g.addProperty("network_ns", gate.networkNs());
        g.addProperty("serialisation_ns", gate.serialisationNs());
        g.addProperty("request_max_bytes", gate.requestBytes());
        g.addProperty("reply_max_bytes", gate.answerBytes());
        g.addProperty("callee_gct_ns", gate.calleeGctNs());
        g.addProperty("callee_response_time_ns", gate.calleeResponseNs());
        g.addProperty("schedulable", gate.meets());
        g.addProperty("source", gate.source().toString());
        gates.add(g);
      }
    }
    root.add("gates", gates);
    if (report != null && !report.rates().isEmpty()) {
      // Only where limited service methods are called: other models keep their JSON as it was.
      root.add("service_rates", ServiceRateReports.json(report));
    }
    if (report != null && !report.chains().isEmpty()) {
      // Only where chains cross nodes: a model without them keeps its JSON as it was.
      root.add("chains", ChainReports.json(report));
      root.add("holistic", ChainReports.holistic(report));
    }
    root.add("errors", problems(problems));
    root.add("warnings", problems(warnings));
    return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(root)
        + System.lineSeparator();
  }

  private static JsonArray problems(List<Diagnostic> problems) {
    final JsonArray array = new JsonArray();
    for (Diagnostic problem : problems) {
      final JsonObject e = new JsonObject();
      e.addProperty("file", problem.file());
      e.addProperty("line", problem.line());
      e.addProperty("column", problem.column());
      e.addProperty("code", problem.code());
      e.addProperty("severity", problem.severity().jsonName());
      e.addProperty("message", problem.message());
      array.add(e);
    }
    return array;
  }

  /**
   * JUnit XML for CI systems: one test suite per node, one test case per method; a method that
   * misses its deadline (or a model error) is a failure.
   */
  public static String junit(TimingPlan report, List<Diagnostic> problems) {
    final StringBuilder out = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.append("<testsuites name=\"kairos check\">\n");
    if (!problems.isEmpty()) {
      out.append("  <testsuite name=\"model\" tests=\"")
          .append(problems.size())
          .append("\" failures=\"")
          .append(problems.size())
          .append("\">\n");
      for (Diagnostic problem : problems) {
        final String where = problem.file() + ":" + problem.line() + ":" + problem.column();
        out.append("    <testcase classname=\"model\" name=\"")
            .append(xml(where))
            .append("\">\n      <failure message=\"")
            .append(xml(problem.message()))
            .append("\"/>\n    </testcase>\n");
      }
      out.append("  </testsuite>\n");
    }
    if (report != null) {
      for (NodePlan node : report.nodes()) {
        final long failures = node.tasks().stream().filter(t -> failed(node, t)).count();
        out.append("  <testsuite name=\"")
            .append(xml(node.node().name()))
            .append("\" tests=\"")
            .append(node.tasks().size())
            .append("\" failures=\"")
            .append(failures)
            .append("\">\n");
        for (TaskReport task : node.tasks()) {
          out.append("    <testcase classname=\"")
              .append(xml(node.node().name()))
              .append("\" name=\"")
              .append(xml(task.name()))
              .append("\">\n");
          if (failed(node, task)) {
            out.append("      <failure message=\"")
                .append(
                    xml(
                        task.name()
                            + " ("
                            + task.source()
                            + "): worst-case response "
                            + (task.responseTimeNs() < 0
                                ? "beyond"
                                : Durations.format(task.responseTimeNs()) + " beyond")
                            + " its deadline of "
                            + Durations.format(task.deadlineNs())))
                .append("\"/>\n");
          } else if (!task.schedulable()) {
            out.append("      <system-out>soft: may miss under overload</system-out>\n");
          }
          out.append("    </testcase>\n");
        }
        out.append("  </testsuite>\n");
      }
      remoteCalls(out, report.gates());
      ServiceRateReports.junit(out, report);
      ChainReports.junit(out, report);
    }
    return out.append("</testsuites>\n").toString();
  }

  /** A task counts as failed unless it meets its deadline or is soft on a node that holds. */
  static boolean failed(NodePlan node, TaskReport task) {
    return !task.schedulable()
        && !(task.criticality() == dev.kairos.ir.Tmos.Criticality.SOFT && node.schedulable());
  }

  /** The verdict column of the task table: ok, may miss (soft) or MISSES DEADLINE. */
  static String verdict(NodePlan node, TaskReport task) {
    if (task.schedulable()) {
      return "ok";
    }
    return failed(node, task) ? "MISSES DEADLINE" : "may miss (soft)";
  }

  /** One test case per gate: a remote call whose result-return deadline cannot hold fails. */
  private static void remoteCalls(StringBuilder out, List<EndToEndAnalysis.GateReport> gates) {
    if (gates.isEmpty()) {
      return;
    }
    out.append("  <testsuite name=\"remote calls\" tests=\"")
        .append(gates.size())
        .append("\" failures=\"")
        .append(gates.stream().filter(g -> !g.meets()).count())
        .append("\">\n");
    for (EndToEndAnalysis.GateReport gate : gates) {
      final String name = gate.caller() + "." + gate.gate() + " -> " + gate.callee();
      out.append("    <testcase classname=\"remote calls\" name=\"")
          .append(xml(name))
          .append("\">\n");
      if (!gate.meets()) {
        out.append("      <failure message=\"")
            .append(
                xml(
                    name
                        + " ("
                        + gate.source()
                        + "): result-return deadline "
                        + Durations.format(gate.deadlineNs())
                        + " < network "
                        + Durations.format(gate.networkNs())
                        + serialisation(gate)
                        + " + callee GCT "
                        + Durations.format(gate.calleeGctNs())
                        + (gate.calleeResponseNs() < 0
                            ? ", callee response unbounded"
                            : ", callee response " + Durations.format(gate.calleeResponseNs()))))
            .append("\"/>\n");
      }
      out.append("    </testcase>\n");
    }
    out.append("  </testsuite>\n");
  }

  /**
   * ", serialisation 5760 ns (request 4 B, reply 8 B, + 32 B header each)" where a link's bandwidth
   * makes the messages take time onto the wire; nothing where it does not.
   */
  static String serialisation(EndToEndAnalysis.GateReport gate) {
    if (gate.serialisationNs() <= 0) {
      return "";
    }
    return ", serialisation "
        + Durations.format(gate.serialisationNs())
        + " (request "
        + gate.requestBytes()
        + " B, "
        + (gate.answerBytes() == EndToEndAnalysis.NO_ANSWER
            ? "oneway"
            : "reply " + gate.answerBytes() + " B")
        + ", + "
        + Frames.HEADER_BYTES
        + " B header each)";
  }

  private static String xml(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  static String strategy(NodePlan node) {
    return node.node().strategy().keyword();
  }
}
