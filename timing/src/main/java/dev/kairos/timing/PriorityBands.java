package dev.kairos.timing;

import dev.kairos.ir.Platform.Strategy;
import dev.kairos.ir.Tmos.Criticality;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * A processor's priority bands and blocking terms, before its response times: bands by the node's
 * strategy (by rate under RMS, by criticality under MUF and RMS+MLF, one band otherwise), each
 * segment's ceiling the highest band of its users, and each method's blocking the longest
 * lower-band method that holds a segment whose ceiling reaches its band.
 */
final class PriorityBands {
  private PriorityBands() {}

  /** Each segment's priority ceiling: the highest band of the methods that use it. */
  static java.util.Map<String, Integer> segmentCeilings(List<TaskDraft> drafts) {
    final java.util.Map<String, Integer> ceilings = new java.util.HashMap<>();
    for (TaskDraft d : drafts) {
      for (String segment : d.segments) {
        ceilings.merge(segment, d.band, Math::max);
      }
    }
    return ceilings;
  }

  /**
   * Blocking under the immediate priority-ceiling protocol: a method can be delayed, once per
   * activation, by at most one method of a lower band that holds a segment whose ceiling is at
   * least its own band. A method holds its segments for its whole execution, so the blocking term
   * is the longest such method's WCET.
   */
  static void assignBlocking(List<TaskDraft> drafts) {
    final java.util.Map<String, Integer> ceilings = segmentCeilings(drafts);
    final int highestBand = drafts.stream().mapToInt(d -> d.band).max().orElse(0);
    // A method of band b can block every band in (b, highest ceiling of its segments]; per band,
    // the longest such method is the blocking term. Bands are few: linear in the methods.
    final long[] blockingOfBand = new long[highestBand + 2];
    for (TaskDraft other : drafts) {
      int ceiling = 0;
      for (String segment : other.segments) {
        ceiling = Math.max(ceiling, ceilings.get(segment));
      }
      for (int band = other.band + 1; band <= ceiling; band++) {
        blockingOfBand[band] = Math.max(blockingOfBand[band], other.wcetNs);
      }
    }
    for (TaskDraft task : drafts) {
      task.blockingNs = blockingOfBand[task.band];
    }
  }

  /**
   * The priority assignment of the node's strategy, as in Kokyu: RMS ranks every method by rate
   * (one band per distinct period, the shortest highest); EDF and MLF put all methods in one band,
   * ordered there by deadline or laxity; MUF gives hard methods the upper band and soft ones the
   * lower; RMS+MLF ranks hard methods by rate above one band of soft methods.
   */
  static void assignBands(Strategy strategy, List<TaskDraft> drafts, int maxBands) {
    switch (strategy) {
      case EDF, NP_EDF, MLF -> drafts.forEach(d -> d.band = 1);
      case MUF -> drafts.forEach(d -> d.band = d.criticality == Criticality.HARD ? 2 : 1);
      case RMS -> byRate(drafts, 1, maxBands);
      case RMS_MLF -> {
        final List<TaskDraft> hard =
            drafts.stream().filter(d -> d.criticality == Criticality.HARD).toList();
        drafts.stream().filter(d -> d.criticality != Criticality.HARD).forEach(d -> d.band = 1);
        byRate(hard, 2, maxBands);
      }
    }
  }

  /** One band per distinct period from `lowest` up, the shortest period highest. */
  private static void byRate(List<TaskDraft> drafts, int lowest, int maxBands) {
    final TreeSet<Long> periods = new TreeSet<>(Comparator.reverseOrder());
    for (TaskDraft d : drafts) {
      periods.add(d.periodNs == 0 ? Long.MAX_VALUE : d.periodNs);
    }
    final List<Long> descending = new ArrayList<>(periods);
    final int overflow = Math.max(0, descending.size() - (maxBands - lowest + 1));
    for (TaskDraft d : drafts) {
      final long key = d.periodNs == 0 ? Long.MAX_VALUE : d.periodNs;
      final int rank = descending.indexOf(key); // 0 = longest period
      d.band = lowest + Math.max(0, rank - overflow);
    }
  }
}
