package dev.kairos.generator.emit;

import dev.kairos.generator.analysis.NodeReport;
import dev.kairos.generator.analysis.TaskReport;
import dev.kairos.generator.ir.Platform.Deployment;
import dev.kairos.generator.ir.Platform.Node;
import dev.kairos.generator.ir.Tmos;
import dev.kairos.generator.ir.Tmos.Spm;
import java.util.List;

/**
 * {@code <node>.schedule.hpp}: the node's static tables as {@code constexpr} data, exactly as
 * {@code kairos check} analysed them. The runtime enforces these rows; it never computes them.
 */
final class ScheduleEmitter {
  private ScheduleEmitter() {}

  static String fileName(Node node) {
    return node.name() + ".schedule.hpp";
  }

  static String namespace(Node node) {
    return node.name() + "_node";
  }

  static GeneratedFile emit(Node node, NodeReport report) {
    final CodeWriter w = new CodeWriter();
    w.line(Banner.cpp(fileName(node), List.of(node.source().file())));
    w.line("#pragma once").blank();
    w.line("#include <array>");
    w.line("#include <chrono>").blank();
    w.line("#include <kairos/schedule.hpp>").blank();
    w.line("namespace $ns$ {", "ns", namespace(node)).blank();
    w.line(
        "// Node $node$ ($source$): $strategy$ on $hardware$ (speed $speed$).",
        "node",
        node.name(),
        "source",
        node.source(),
        "strategy",
        node.strategy().name().toLowerCase(java.util.Locale.ROOT).replace('_', '+'),
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
        });
    w.line(
        "inline constexpr bool kSimulated = $simulated$;",
        "simulated",
        node.os() == dev.kairos.generator.ir.Platform.OperatingSystem.SIM);
    w.blank();
    w.line("// ODS segments, locked with the immediate priority-ceiling protocol.");
    w.open(
        "inline constexpr ::std::array<::kairos::SegmentEntry, $count$> kSegments{{",
        "count",
        report.segments().size());
    for (NodeReport.SegmentCeiling segment : report.segments()) {
      w.line(
          "{.instance = $instance$, .segment = $segment$, .ceiling = $ceiling$},",
          "instance",
          CppNames.literal(segment.instance()),
          "segment",
          CppNames.literal(segment.segment()),
          "ceiling",
          segment.ceiling());
    }
    w.close("}};");
    w.blank();
    final long rows = node.deployments().stream().mapToLong(d -> d.tmo().spms().size()).sum();
    w.open(
        "inline constexpr ::std::array<::kairos::SpmEntry, $rows$> kSpontaneousMethods{{",
        "rows",
        rows);
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        final TaskReport task = task(report, deployment.instance(), spm.name());
        w.line(
            "// $description$ ($source$)",
            "description",
            Describe.spm(spm),
            "source",
            spm.source());
        w.open("{");
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
        w.line(".wcet = nanoseconds{$v$},", "v", task.wcetNs());
        w.line(
            ".criticality = ::kairos::Criticality::$v$,",
            "v",
            spm.criticality() == Tmos.Criticality.HARD ? "kHard" : "kSoft");
        w.line(".band = $v$,", "v", task.band());
        w.line(".importance = $v$,", "v", Math.max(0, Math.min(255, spm.importance())));
        long mask = 0;
        for (dev.kairos.generator.ir.Tmos.SegmentAccess use : spm.uses()) {
          mask |= 1L << report.segmentIndex(deployment.instance(), use.segment());
        }
        w.line(".segments = 0x$v$ULL,", "v", Long.toHexString(mask));
        w.close("},");
      }
    }
    w.close("}};");
    w.blank();
    w.line("}  // namespace $ns$", "ns", namespace(node));
    return new GeneratedFile(fileName(node), w.text(), GeneratedFile.Kind.CPP);
  }

  static TaskReport task(NodeReport report, String instance, String method) {
    return report.tasks().stream()
        .filter(t -> t.instance().equals(instance) && t.method().equals(method))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no analysis for " + instance + "." + method));
  }
}
