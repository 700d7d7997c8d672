package dev.kairos.timing;

import java.util.ArrayList;
import java.util.List;

/**
 * Free time between the busy intervals of time-triggered methods over one hyperperiod: the windows
 * in which the basic concurrency constraint (BCC) lets a service method run. Pure arithmetic on
 * nanoseconds, shared by validation and the generator's analyses.
 */
public final class BusyIntervals {
  private BusyIntervals() {}

  /** A periodic busy interval: [offset, offset + length) once per period, from 0. */
  public record Periodic(long periodNs, long offsetNs, long lengthNs) {}

  /**
   * A free window [startNs, endNs) of one hyperperiod; the last one may wrap past its end ({@code
   * endNs > hyperperiodNs}) into the next.
   */
  public record Window(long startNs, long endNs) {
    public long lengthNs() {
      return endNs - startNs;
    }
  }

  /** Every free window of one hyperperiod, in order; not exhaustive when too long to unroll. */
  public record Free(long hyperperiodNs, List<Window> windows, boolean exhaustive) {}

  /** Releases examined at most; beyond this the hyperperiod is not unrolled. */
  public static final int MAX_RELEASES = 200_000;

  /** The windows of one hyperperiod that no busy interval covers (none for no busy intervals). */
  public static Free freeWindows(List<Periodic> busy) {
    if (busy.isEmpty()) {
      return new Free(0, List.of(), true);
    }
    final long hyperperiod = hyperperiod(busy.stream().mapToLong(Periodic::periodNs));
    if (hyperperiod < 0) {
      return new Free(-1, List.of(), false);
    }
    long releases = 0;
    for (Periodic p : busy) {
      releases += hyperperiod / p.periodNs();
      if (releases > MAX_RELEASES) {
        return new Free(hyperperiod, List.of(), false);
      }
    }
    final List<long[]> intervals = new ArrayList<>();
    for (Periodic p : busy) {
      for (long t = 0; t < hyperperiod; t += p.periodNs()) {
        final long start = t + p.offsetNs();
        final long end = start + Math.max(0, p.lengthNs());
        intervals.add(new long[] {start, end});
      }
    }
    intervals.sort((a, b) -> Long.compare(a[0], b[0]));
    // Merge, then take the gaps between merged intervals, wrapping around the hyperperiod.
    final List<long[]> merged = new ArrayList<>();
    for (long[] interval : intervals) {
      if (!merged.isEmpty() && interval[0] <= merged.get(merged.size() - 1)[1]) {
        final long[] last = merged.get(merged.size() - 1);
        last[1] = Math.max(last[1], interval[1]);
      } else {
        merged.add(new long[] {interval[0], interval[1]});
      }
    }
    final List<Window> windows = new ArrayList<>();
    for (int i = 1; i < merged.size(); i++) {
      if (merged.get(i)[0] > merged.get(i - 1)[1]) {
        windows.add(new Window(merged.get(i - 1)[1], merged.get(i)[0]));
      }
    }
    final long[] first = merged.get(0);
    final long[] last = merged.get(merged.size() - 1);
    if (first[0] + hyperperiod > last[1]) {
      windows.add(new Window(last[1], first[0] + hyperperiod));
    }
    // Offsets into the hyperperiod: a window starting past its end belongs to the next one.
    final List<Window> normalised = new ArrayList<>();
    for (Window window : windows) {
      final long shift = Math.floorDiv(window.startNs(), hyperperiod) * hyperperiod;
      normalised.add(new Window(window.startNs() - shift, window.endNs() - shift));
    }
    normalised.sort((a, b) -> Long.compare(a.startNs(), b.startNs()));
    return new Free(hyperperiod, List.copyOf(normalised), true);
  }

  static long gcd(long a, long b) {
    while (b != 0) {
      final long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  /**
   * The hyperperiod of some periods (zeros, one-shot methods, are left out): their least common
   * multiple, 0 when there are none, -1 beyond 64 bits. The one definition every analysis uses.
   */
  public static long hyperperiod(java.util.stream.LongStream periods) {
    long hyperperiod = 0;
    for (long period : (Iterable<Long>) periods.filter(p -> p > 0).boxed()::iterator) {
      hyperperiod = hyperperiod == 0 ? period : lcm(hyperperiod, period);
      if (hyperperiod < 0) {
        return -1;
      }
    }
    return hyperperiod;
  }

  /**
   * Least common multiple of two periods, or -1 on overflow; -1 stays -1, so a hyperperiod beyond
   * 64 bits never turns back into a short one when a later period follows.
   */
  public static long lcm(long a, long b) {
    if (a < 0 || b < 0) {
      return -1;
    }
    try {
      return Math.multiplyExact(a / gcd(a, b), b);
    } catch (ArithmeticException e) {
      return -1;
    }
  }
}
