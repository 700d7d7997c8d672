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

  /**
   * Every free window of one hyperperiod of the busy intervals' grid, in order; not exhaustive when
   * the grid is too big to unroll.
   */
  public record Free(ReleaseGrid grid, List<Window> windows, boolean exhaustive) {
    public long hyperperiodNs() {
      return grid.hyperperiodNs();
    }
  }

  /** The windows of one hyperperiod that no busy interval covers (none for no busy intervals). */
  public static Free freeWindows(List<Periodic> busy) {
    final ReleaseGrid grid = ReleaseGrid.of(busy.stream().mapToLong(Periodic::periodNs));
    if (busy.isEmpty()) {
      return new Free(grid, List.of(), true);
    }
    if (!grid.unrollable(1)) {
      return new Free(grid, List.of(), false);
    }
    final long hyperperiod = grid.hyperperiodNs();
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
    return new Free(grid, List.copyOf(normalised), true);
  }
}
