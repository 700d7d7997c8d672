package dev.kairos.timing;

import java.util.Set;

/**
 * A method of one processor as the response-time analysis works on it, before its report: its
 * timing scaled to the hardware, with the overheads it is charged, and the band, blocking and
 * jitter the analysis assigns it.
 */
final class TaskDraft {
  final String instance;
  final String method;
  final TaskReport.Kind kind;
  final dev.kairos.ir.Tmos.Criticality criticality;
  final long periodNs;

  /** The WCET the model gives (scaled to the hardware, with its gates' waits): reported. */
  final long declaredWcetNs;

  /** What the analysis charges a job: the declared WCET plus the platform's overheads. */
  final long wcetNs;

  final long deadlineNs;
  final dev.kairos.ir.SourceRef source;
  final Set<String> segments;

  /** The part of the declared WCET that is waiting for replies of blocking gates. */
  long replyWaitNs;

  int band;
  long blockingNs;

  /**
   * Release jitter: how much later than its nominal arrival a request may come (a chain's, for
   * service methods), or an SpM be released (the platform's release lateness).
   */
  long jitterNs;

  TaskDraft(
      String instance,
      String method,
      TaskReport.Kind kind,
      dev.kairos.ir.Tmos.Criticality criticality,
      long periodNs,
      long declaredWcetNs,
      long chargedWcetNs,
      long deadlineNs,
      dev.kairos.ir.SourceRef source,
      Set<String> segments) {
    this.instance = instance;
    this.method = method;
    this.kind = kind;
    this.criticality = criticality;
    this.periodNs = periodNs;
    this.declaredWcetNs = declaredWcetNs;
    this.wcetNs = chargedWcetNs;
    this.deadlineNs = deadlineNs;
    this.source = source;
    this.segments = segments;
  }
}
