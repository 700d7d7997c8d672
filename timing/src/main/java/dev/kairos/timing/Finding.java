package dev.kairos.timing;

/**
 * Something the analysis of a node found beside the per-task verdicts: data, which the reports put
 * into words (emit/Findings.java).
 */
public sealed interface Finding {
  /** A service method without max-rate: its load is not bounded, so not analysed. */
  record UnboundedServiceLoad(String method) implements Finding {}

  /** The EDF demand test fell back to the density bound: the hyperperiod is too long. */
  record EdfDensityBound() implements Finding {}

  /**
   * The EDF processor demand (worst-case arrivals; preemptive with SRP blocking, or the
   * non-preemptive band) exceeds the time available at {@code atNs}; strictly periodic SpMs are
   * judged by the release table instead.
   */
  record EdfDemandExceeded(long atNs, boolean preemptive) implements Finding {}

  /**
   * The release table was not unrolled (its grid beyond 64 bits, or its settling time and two
   * cycles beyond 64 bits or holding more activations than an analysis plays); start windows were
   * checked by response-time analysis only.
   */
  record TableNotUnrolled(ReleaseGrid grid) implements Finding {}

  /** An SpM missed start windows or deadlines in the release table (two hyperperiods played). */
  record TableMisses(String method, long windowMisses, long deadlineMisses) implements Finding {}

  /** An SpM that meets its windows alone may miss once service requests delay it by delayNs. */
  record ServiceDelay(String method, long delayNs) implements Finding {}

  /**
   * A method that calls gates: it may wait {@code waitNs} (the sum of their deadlines) for their
   * replies, holding its lane and its segments, and the analysis counts that wait as execution.
   */
  record GateWait(String method, java.util.List<String> gates, long waitNs) implements Finding {}

  /** A finding of one core of a multicore node. */
  record OnCore(int core, Finding finding) implements Finding {}
}
