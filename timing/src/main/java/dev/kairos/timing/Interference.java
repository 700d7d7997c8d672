package dev.kairos.timing;

import java.util.Comparator;
import java.util.List;

/**
 * Worst-case response times from readiness to completion (-1 once past the deadline), with the
 * interference on each band prepared once per node: the periodic load of all bands at or above it
 * summed per distinct period (ceil(R/T) is the same for every task of a period), and the one-shot
 * load. Tasks with equal timing share one response time. With few distinct periods and bands, as
 * real systems have, the analysis of n tasks is close to linear. Interference comes from every
 * other task of the same or a higher band: periodic ones once per period, one-shot SpMs once.
 */
final class Interference {
  private final java.util.Map<Integer, long[][]> periodicByBand = new java.util.HashMap<>();
  private final java.util.Map<Integer, Long> oneShotByBand = new java.util.HashMap<>();
  private final java.util.Map<List<Long>, Long> memo = new java.util.HashMap<>();
  private final List<TaskDraft> all;

  Interference(List<TaskDraft> all) {
    this.all = all;
  }

  long responseTime(TaskDraft task) {
    final List<Long> key =
        List.of(
            (long) task.band,
            task.wcetNs,
            task.blockingNs,
            task.periodNs,
            task.deadlineNs,
            (long) task.kind.ordinal(),
            task.jitterNs);
    final Long known = memo.get(key);
    if (known != null) {
      return known;
    }
    long response;
    try {
      response = iterate(task);
    } catch (ArithmeticException beyond64Bits) {
      response = -1;
    }
    memo.put(key, response);
    return response;
  }

  /**
   * {period, release jitter, total WCET} of the periodic tasks at or above `band`, the task itself
   * included.
   */
  private long[][] periodic(int band) {
    return periodicByBand.computeIfAbsent(
        band,
        b -> {
          final java.util.TreeMap<List<Long>, Long> load =
              new java.util.TreeMap<>(
                  Comparator.comparing((List<Long> k) -> k.get(0)).thenComparing(k -> k.get(1)));
          for (TaskDraft other : all) {
            if (other.band >= b && other.periodNs > 0) {
              load.merge(List.of(other.periodNs, other.jitterNs), other.wcetNs, Math::addExact);
            }
          }
          final long[][] rows = new long[load.size()][];
          int i = 0;
          for (var entry : load.entrySet()) {
            rows[i++] = new long[] {entry.getKey().get(0), entry.getKey().get(1), entry.getValue()};
          }
          return rows;
        });
  }

  private long oneShot(int band) {
    return oneShotByBand.computeIfAbsent(
        band,
        b -> {
          long sum = 0;
          for (TaskDraft other : all) {
            if (other.band >= b && other.periodNs == 0 && other.kind == TaskReport.Kind.SPM) {
              sum = Math.addExact(sum, other.wcetNs);
            }
          }
          return sum;
        });
  }

  private long iterate(TaskDraft task) {
    final long own = Math.addExact(task.wcetNs, task.blockingNs);
    // The task's own load is in the band's sums: take it out once.
    final long oneShots =
        oneShot(task.band)
            - (task.periodNs == 0 && task.kind == TaskReport.Kind.SPM ? task.wcetNs : 0);
    final long[][] rows = periodic(task.band);
    long response = own;
    for (int iteration = 0; iteration < 10_000; iteration++) {
      long next = Math.addExact(own, oneShots);
      for (long[] row : rows) {
        long wcet = row[2];
        if (row[0] == task.periodNs && row[1] == task.jitterNs) {
          wcet -= task.wcetNs;
        }
        // A task released up to J late may fall ceil((w + J) / T) times into a window w.
        next =
            Math.addExact(
                next, Math.multiplyExact(ceilDiv(Math.addExact(response, row[1]), row[0]), wcet));
      }
      if (next == response) {
        return response;
      }
      if (task.deadlineNs >= 0 && next > task.deadlineNs && task.periodNs > 0) {
        return -1;
      }
      response = next;
    }
    return -1;
  }

  /** How many releases of period {@code b} fall in a window of {@code a}: a / b, rounded up. */
  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
