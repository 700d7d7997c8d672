package dev.kairos.timing;

import dev.kairos.ir.Platform.Strategy;
import dev.kairos.ir.Tmos.Criticality;
import dev.kairos.timing.ReleaseTableAnalysis.Job;
import dev.kairos.timing.ReleaseTableAnalysis.Row;
import java.util.List;

/**
 * Kokyu's dispatch rule as the analysis plays it, the same rule the engine applies
 * (runtime-cpp/include/kairos/dispatch_rule.hpp): which discipline orders a band under each
 * strategy, the ready key it orders by, and when one job takes the processor from another.
 */
final class DispatchRule {
  private DispatchRule() {}

  /**
   * The queue discipline of a band holding methods of this criticality: the engine's {@code
   * discipline_for} (runtime-cpp/include/kairos/dispatch_rule.hpp).
   */
  enum QueueDiscipline {
    FIFO,
    DEADLINE,
    LAXITY,
    LAXITY_THEN_IMPORTANCE;

    static QueueDiscipline of(Strategy strategy, Criticality criticality) {
      return switch (strategy) {
        case RMS -> FIFO;
        case EDF, NP_EDF -> DEADLINE;
        case MLF -> LAXITY;
        case MUF -> LAXITY_THEN_IMPORTANCE;
        case RMS_MLF -> criticality == Criticality.HARD ? FIFO : LAXITY;
      };
    }
  }

  /**
   * The ready key of an activation inside its band, smaller first, as {@code Engine::key_of}
   * computes it: deadline for EDF, laxity (deadline minus WCET) for MLF and RMS+MLF's soft band,
   * laxity then importance (higher first) for MUF; only MUF looks at importance.
   */
  static long[] readyKey(Strategy strategy, Row row, Job job) {
    final long deadline = job.release + row.spm().deadlineNs();
    return switch (QueueDiscipline.of(strategy, row.spm().criticality())) {
      case FIFO -> new long[] {0, 0};
      case DEADLINE -> new long[] {deadline, 0};
      case LAXITY -> new long[] {deadline - row.wcet(), 0};
      case LAXITY_THEN_IMPORTANCE -> new long[] {deadline - row.wcet(), -row.spm().importance()};
    };
  }

  /**
   * Whether `challenger` takes the processor from `holder` (running, or preempted and next to
   * resume): a higher band always; under preemptive EDF also a strictly earlier absolute deadline
   * in the same band (a tie keeps the holder, as the engine's lanes do).
   */
  static boolean outranks(Strategy strategy, List<Row> rows, Job challenger, Job holder) {
    final Row challengerRow = rows.get(challenger.spm);
    final Row holderRow = rows.get(holder.spm);
    if (challengerRow.band() != holderRow.band()) {
      return challengerRow.band() > holderRow.band();
    }
    return strategy.preemptsByDeadline()
        && challenger.release + challengerRow.spm().deadlineNs()
            < holder.release + holderRow.spm().deadlineNs();
  }
}
