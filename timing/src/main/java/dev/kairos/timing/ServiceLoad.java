package dev.kairos.timing;

import static dev.kairos.timing.Interference.ceilDiv;
import static dev.kairos.timing.PriorityBands.segmentCeilings;

import dev.kairos.ir.Platform.Deployment;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.Tmos.Spm;
import java.util.ArrayList;
import java.util.List;

/**
 * Service requests as they can delay SpMs on one processor. The release table plays SpMs only;
 * within a window of length L an SvM of max-rate period T of the same or a higher band can run
 * ceil(L / T) + 1 times (the +1 for a request already running or queued ahead in the band, whose
 * lane does not preempt), and one lower-band SvM holding a segment with a ceiling at or above the
 * SpM's band can block it once. L is the SpM's whole span from opening to deadline, which bounds
 * both its start and its finish. SvMs without max-rate are not part of the analysis. Prepared once
 * per processor: each SpM then costs one pass over the SvMs.
 */
final class ServiceLoad {
  private final List<TaskDraft> services = new ArrayList<>();
  private final List<Integer> raisesTo = new ArrayList<>();
  private final java.util.Map<String, TaskDraft> spms = new java.util.HashMap<>();
  private final java.util.Map<String, Spm> models = new java.util.HashMap<>();

  ServiceLoad(Node node, List<TaskDraft> drafts) {
    final java.util.Map<String, Integer> ceilings = segmentCeilings(drafts);
    for (TaskDraft d : drafts) {
      if (d.kind == TaskReport.Kind.SPM) {
        spms.putIfAbsent(d.instance + "." + d.method, d);
      } else if (d.periodNs > 0) {
        services.add(d);
        raisesTo.add(d.segments.stream().mapToInt(ceilings::get).max().orElse(d.band));
      }
    }
    for (Deployment deployment : node.deployments()) {
      for (Spm spm : deployment.tmo().spms()) {
        models.putIfAbsent(deployment.instance() + "." + spm.name(), spm);
      }
    }
  }

  /** The SpM's timing in the table with the service requests' delay added. */
  ReleaseTableAnalysis.SpmTiming delay(ReleaseTableAnalysis.SpmTiming timing) {
    final String name = timing.instance() + "." + timing.method();
    final TaskDraft spm = spms.get(name);
    if (spm == null || timing.activations() == 0 || services.isEmpty()) {
      return timing;
    }
    long delay = 0;
    long blocking = 0;
    try {
      for (int i = 0; i < services.size(); i++) {
        final TaskDraft svm = services.get(i);
        if (svm.band >= spm.band) {
          final long runs = ceilDiv(Math.addExact(spm.deadlineNs, svm.jitterNs), svm.periodNs) + 1;
          delay = Math.addExact(delay, Math.multiplyExact(runs, svm.wcetNs));
        } else if (raisesTo.get(i) >= spm.band) {
          blocking = Math.max(blocking, svm.wcetNs);
        }
      }
      delay = Math.addExact(delay, blocking);
    } catch (ArithmeticException beyond64Bits) {
      delay = Long.MAX_VALUE / 4;
    }
    if (delay == 0) {
      return timing;
    }
    final Spm model = models.get(name);
    final long window = model.windowCloseNs() - model.windowOpenNs();
    final boolean lateStart = timing.worstStartLatencyNs() + delay > window;
    final boolean lateFinish = timing.worstResponseNs() + delay > model.deadlineNs();
    return new ReleaseTableAnalysis.SpmTiming(
        timing.instance(),
        timing.method(),
        timing.activations(),
        timing.worstStartLatencyNs() + delay,
        timing.worstResponseNs() + delay,
        Math.max(timing.windowMisses(), lateStart ? 1 : 0),
        Math.max(timing.deadlineMisses(), lateFinish ? 1 : 0));
  }
}
