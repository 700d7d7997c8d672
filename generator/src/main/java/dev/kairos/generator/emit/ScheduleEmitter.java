package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.ReleaseTable;
import dev.kairos.timing.TaskReport;
import java.util.List;
import java.util.Map;

/**
 * {@code <node>.schedule.hpp}: the node's static tables as {@code constexpr} data, exactly as
 * {@code kairos check} analysed them. The runtime enforces these rows; it never computes them.
 */
final class ScheduleEmitter {
  private ScheduleEmitter() {}

  static String fileName(Node node) {
    return FileLayout.schedule(node);
  }

  static String namespace(Node node) {
    return node.name() + "_node";
  }

  static GeneratedFile emit(Node node, NodePlan report) {
    final Map<String, TaskReport> tasks = TaskReport.byName(report.tasks());
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName(node), List.of(node.source().file())));
    w.line("#pragma once").blank();
    w.line("#include <array>");
    w.line("#include <chrono>").blank();
    w.line("#include <kairos/schedule.hpp>").blank();
    w.line("namespace $ns$ {", "ns", namespace(node)).blank();
    w.comment(
        "Node $node$ ($source$): $strategy$ on $hardware$ (speed $speed$).",
        "node",
        node.name(),
        "source",
        node.source(),
        "strategy",
        node.strategy().keyword(),
        "hardware",
        node.hardware().name(),
        "speed",
        node.hardware().speed().toPlainString());
    w.line("// Offsets are relative to each release t; WCETs are scaled to this hardware.");
    w.line("using ::std::chrono::nanoseconds;").blank();
    w.line(
        "inline constexpr ::kairos::Strategy kStrategy = ::kairos::Strategy::$strategy$;",
        "strategy",
        switch (node.strategy()) {
          case RMS -> "kRms";
          case EDF -> "kEdf";
          case MLF -> "kMlf";
          case MUF -> "kMuf";
          case RMS_MLF -> "kRmsMlf";
          case NP_EDF -> "kNpEdf";
        });
    w.line(
        "inline constexpr bool kSimulated = $simulated$;",
        "simulated",
        node.os() == dev.kairos.ir.Platform.OperatingSystem.SIM);
    if (report.multicore()) {
      // Partitioned scheduling: every row carries the core its TMO runs on.
      w.line("inline constexpr ::std::uint8_t kCores = $cores$;", "cores", report.cores().size());
      for (NodePlan.Placement placement : report.placements()) {
        w.comment(
            "$instance$ on core $core$ ($how$)",
            "instance",
            placement.instance(),
            "core",
            placement.core(),
            "how",
            placement.byModel() ? "as the model says" : "placed first-fit decreasing");
      }
    }
    w.blank();
    w.line("// ODS segments, locked with the immediate priority-ceiling protocol.");
    final boolean openSegments =
        openTable(w, "::kairos::SegmentEntry", "kSegments", report.segments().size());
    for (NodePlan.SegmentCeiling segment : report.segments()) {
      final String instance = CppNames.literal(segment.instance());
      final String name = CppNames.literal(segment.segment());
      final String row =
          "{.instance = " + instance + ", .segment = " + name + ", .ceiling = " + segment.ceiling();
      if (4 + row.length() + 2 <= CodeWriter.COLUMN_LIMIT) {
        w.line("$row$},", "row", row);
      } else {
        w.openList("{");
        w.line(".instance = $v$,", "v", instance);
        w.line(".segment = $v$,", "v", name);
        w.line(".ceiling = $v$,", "v", segment.ceiling());
        w.closeList("},");
      }
    }
    if (openSegments) {
      w.closeList("}};");
    }
    w.blank();
    final long rows = node.deployments().stream().mapToLong(d -> d.tmo().spms().size()).sum();
    final boolean openSpms = openTable(w, "::kairos::SpmEntry", "kSpontaneousMethods", rows);
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        final TaskReport task = task(tasks, deployment.instance(), spm.name());
        w.comment(
            "$description$ ($source$)", "description", Describe.spm(spm), "source", spm.source());
        w.openList("{");
        w.line(".instance = $v$,", "v", CppNames.literal(deployment.instance()));
        w.line(".method = $v$,", "v", CppNames.literal(spm.name()));
        w.line(".source = $v$,", "v", CppNames.literal(spm.source().toString()));
        w.line(".first_release = nanoseconds{$v$},", "v", spm.firstReleaseNs());
        w.line(
            ".last_release = $v$,",
            "v",
            spm.lastReleaseNs() == Tmos.FOREVER
                ? "::kairos::kForever"
                : "nanoseconds{" + spm.lastReleaseNs() + "}");
        w.line(".period = nanoseconds{$v$},", "v", spm.periodNs());
        w.line(".window_open = nanoseconds{$v$},", "v", spm.windowOpenNs());
        w.line(".window_close = nanoseconds{$v$},", "v", spm.windowCloseNs());
        w.line(".deadline = nanoseconds{$v$},", "v", spm.deadlineNs());
        wcetField(w, task);
        priorityFields(w, spm.criticality(), task.band(), spm.importance());
        w.line(
            ".segments = 0x$v$ULL,",
            "v",
            Long.toHexString(segmentMask(report, deployment.instance(), spm.uses())));
        coreField(w, report, task);
        replyWaitField(w, task);
        w.closeList("},");
      }
    }
    if (openSpms) {
      w.closeList("}};");
    }
    w.blank();
    releaseTable(w, report.releaseTable(), spmNames(node));
    serviceMethods(w, node, report, tasks);
    w.line("}  // namespace $ns$", "ns", namespace(node));
    return new GeneratedFile(fileName(node), w.text(), GeneratedFile.Kind.CPP_FORMATTED);
  }

  /** The release table the time trigger walks, checked against the rows at compile time. */
  private static void releaseTable(CodeWriter w, ReleaseTable table, List<String> spmNames) {
    if (!table.tabulated()) {
      w.line(
          "// No release table: the hyperperiod holds more than $max$ releases (or none are",
          "max",
          ReleaseTable.MAX_RELEASES);
      w.line("// periodic); the time trigger derives every release from its row's AAC.");
      w.line("inline constexpr nanoseconds kHyperperiod{0};");
      w.line("inline constexpr ::std::array<::kairos::ReleaseEntry, 0> kReleaseTable{};");
      w.blank();
      return;
    }
    w.line("// The release table: every start-window opening of one hyperperiod, in the order the");
    w.line(
        "// time trigger dispatches them (offsets into the hyperperiod; rows of the table above).");
    w.line("inline constexpr nanoseconds kHyperperiod{$ns$};", "ns", table.hyperperiodNs());
    final boolean openReleases =
        openTable(w, "::kairos::ReleaseEntry", "kReleaseTable", table.releases().size());
    // One release per line, named in an aligned trailing comment (as clang-format aligns them).
    final List<String> rows = new java.util.ArrayList<>();
    int width = 0;
    for (ReleaseTable.Release release : table.releases()) {
      rows.add("{nanoseconds{" + release.openNs() + "}, " + release.spmRow() + "},");
      width = Math.max(width, rows.get(rows.size() - 1).length());
    }
    for (int i = 0; i < rows.size(); i++) {
      w.line(
          "$row$  // $name$",
          "row",
          String.format("%-" + width + "s", rows.get(i)),
          "name",
          spmNames.get(table.releases().get(i).spmRow()));
    }
    if (openReleases) {
      w.closeList("}};");
    }
    w.line(
        "static_assert(::kairos::release_table_matches(kSpontaneousMethods, kReleaseTable,"
            + " kHyperperiod));");
    w.blank();
  }

  /** The service methods, with the SpM rows each conflicts with under BCC. */
  private static void serviceMethods(
      CodeWriter w, Node node, NodePlan report, Map<String, TaskReport> tasks) {
    final long rows = node.deployments().stream().mapToLong(d -> d.tmo().svms().size()).sum();
    final boolean openSvms = openTable(w, "::kairos::SvmEntry", "kServiceMethods", rows);
    for (Deployment deployment : node.deployments()) {
      for (Tmos.Svm svm : deployment.tmo().svms()) {
        final TaskReport task = task(tasks, deployment.instance(), svm.name());
        w.comment(
            "$description$ ($source$)", "description", Describe.svm(svm), "source", svm.source());
        w.openList("{");
        w.line(".instance = $v$,", "v", CppNames.literal(deployment.instance()));
        w.line(".method = $v$,", "v", CppNames.literal(svm.name()));
        w.line(".source = $v$,", "v", CppNames.literal(svm.source().toString()));
        w.line(".gct = nanoseconds{$v$},", "v", svm.gctNs());
        wcetField(w, task);
        priorityFields(w, svm.criticality(), task.band(), svm.importance());
        final NodePlan.ServiceAdmission bcc = admission(report, deployment.instance(), svm.name());
        w.line(".conflicts = 0x$v$ULL,", "v", Long.toHexString(bcc.conflictRows()));
        w.line(".admission_slot = nanoseconds{$v$},", "v", bcc.admission().slotNs());
        w.line(
            ".segments = 0x$v$ULL,",
            "v",
            Long.toHexString(segmentMask(report, deployment.instance(), svm.uses())));
        coreField(w, report, task);
        replyWaitField(w, task);
        if (task.periodNs() > 0) {
          // The engine refuses requests that come faster than the analysis let them.
          w.line(".min_inter_arrival = nanoseconds{$v$},", "v", task.periodNs());
          w.line(".arrival_jitter = nanoseconds{$v$},", "v", task.jitterNs());
        }
        w.closeList("},");
      }
    }
    if (openSvms) {
      w.closeList("}};");
    }
    w.blank();
  }

  /** The core of a row, on multicore nodes only (single-core rows keep the default, 0). */
  /**
   * What the engine computes for a job: its WCET on the node's hardware, without the waits for
   * replies that the analysis counts as execution too (replyWaitField).
   */
  private static void wcetField(CodeWriter w, TaskReport task) {
    w.line(".wcet = nanoseconds{$v$},", "v", task.computeNs());
  }

  /** For a method that calls blocking gates, how long it may wait for their replies. */
  private static void replyWaitField(CodeWriter w, TaskReport task) {
    if (task.replyWaitNs() > 0) {
      w.line(".reply_wait = nanoseconds{$v$},", "v", task.replyWaitNs());
    }
  }

  private static void coreField(CodeWriter w, NodePlan report, TaskReport task) {
    if (report.multicore()) {
      w.line(".core = $v$,", "v", task.core());
    }
  }

  private static NodePlan.ServiceAdmission admission(NodePlan report, String instance, String svm) {
    return report.admissions().stream()
        .filter(a -> a.instance().equals(instance) && a.svm().equals(svm))
        .findFirst()
        .orElseThrow();
  }

  /**
   * Opens the constant array {@code name} of {@code count} rows; an empty one is written whole
   * (false: nothing to close).
   */
  private static boolean openTable(CodeWriter w, String type, String name, long count) {
    if (count == 0) {
      w.line("inline constexpr ::std::array<$type$, 0> $name${};", "type", type, "name", name);
      return false;
    }
    w.openList(
        "inline constexpr ::std::array<$type$, $count$> $name${{",
        "type",
        type,
        "count",
        count,
        "name",
        name);
    return true;
  }

  /** The fields SpM and SvM rows share: what the lanes order them by. */
  private static void priorityFields(
      CodeWriter w, Tmos.Criticality criticality, int band, int importance) {
    w.line(
        ".criticality = ::kairos::Criticality::$v$,",
        "v",
        criticality == Tmos.Criticality.HARD ? "kHard" : "kSoft");
    w.line(".band = $v$,", "v", band);
    w.line(".importance = $v$,", "v", Math.max(0, Math.min(255, importance)));
  }

  /** {@code instance.method} of every row of the SpM table, in order. */
  private static List<String> spmNames(Node node) {
    final List<String> names = new java.util.ArrayList<>();
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        names.add(deployment.instance() + "." + spm.name());
      }
    }
    return names;
  }

  private static long segmentMask(NodePlan report, String instance, List<Tmos.SegmentAccess> uses) {
    long mask = 0;
    for (Tmos.SegmentAccess use : uses) {
      mask |= 1L << report.segmentIndex(instance, use.segment());
    }
    return mask;
  }

  static TaskReport task(Map<String, TaskReport> tasks, String instance, String method) {
    final TaskReport task = tasks.get(instance + "." + method);
    if (task == null) {
      throw new IllegalStateException("no analysis for " + instance + "." + method);
    }
    return task;
  }
}
