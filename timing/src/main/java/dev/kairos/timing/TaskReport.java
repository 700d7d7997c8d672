package dev.kairos.timing;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.Tmos.Criticality;

/**
 * One schedulable entity of a node: a method of a deployed TMO, with its timing as the node's
 * hardware sees it (WCET scaled by speed) and the verdict of the analysis.
 *
 * @param periodNs period or minimum inter-arrival time; 0 for a one-shot SpM or an SvM without
 *     max-rate
 * @param deadlineNs relative to the moment the method becomes ready (for an SpM: the opening of its
 *     start window)
 * @param band priority band on the node (higher is more urgent)
 * @param responseTimeNs worst-case response time, or -1 where it diverges past the deadline
 * @param core the core of the node the method runs on (partitioned scheduling)
 * @param replyWaitNs the part of {@code wcetNs} that is waiting for the replies of the blocking
 *     gates the method calls (counted as execution by the analysis, but no processor time: the
 *     engine computes only {@code wcetNs - replyWaitNs})
 * @param jitterNs the release jitter the analysis counted: for a service method, how much closer
 *     together than {@code periodNs} its requests may come (its chains', its callers', the
 *     platform's handoff), which the engine's rate limit allows and no more
 */
public record TaskReport(
    String instance,
    String method,
    Kind kind,
    Criticality criticality,
    long periodNs,
    long wcetNs,
    long deadlineNs,
    int band,
    long responseTimeNs,
    boolean schedulable,
    SourceRef source,
    int core,
    long replyWaitNs,
    long jitterNs) {

  public enum Kind {
    SPM,
    SVM
  }

  public String name() {
    return instance + "." + method;
  }

  /** The same task with another response time and verdict (a later analysis refined it). */
  public TaskReport withVerdict(long response, boolean meets) {
    return copy(response, meets, core);
  }

  /** The same task on another core. */
  public TaskReport onCore(int other) {
    return copy(responseTimeNs, schedulable, other);
  }

  private TaskReport copy(long response, boolean meets, int onCore) {
    return new TaskReport(
        instance,
        method,
        kind,
        criticality,
        periodNs,
        wcetNs,
        deadlineNs,
        band,
        response,
        meets,
        source,
        onCore,
        replyWaitNs,
        jitterNs);
  }

  /** What the method computes per job on the node's hardware: its WCET less its reply waits. */
  public long computeNs() {
    return wcetNs - replyWaitNs;
  }

  public double utilization() {
    return periodNs > 0 ? (double) wcetNs / periodNs : 0.0;
  }

  /** Tasks by `instance.method` (the first where two cores report the same one). */
  public static java.util.Map<String, TaskReport> byName(java.util.List<TaskReport> tasks) {
    final java.util.Map<String, TaskReport> byName = new java.util.HashMap<>();
    tasks.forEach(t -> byName.putIfAbsent(t.name(), t));
    return byName;
  }
}
