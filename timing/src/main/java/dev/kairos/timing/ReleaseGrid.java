package dev.kairos.timing;

import java.util.stream.LongStream;

/**
 * The cycle a set of periodic releases repeats in, and whether an analysis may unroll it: the one
 * place that derives a hyperperiod, with one cap on the releases any analysis examines and one way
 * of saying that a cycle is too big. The BCC's free windows, the EDF demand points, the release
 * table the analysis plays and the one the time trigger walks all start from a grid.
 *
 * @param hyperperiodNs the least common multiple of the periods; 0 when there is no periodic
 *     release or when it is beyond 64 bits
 * @param releasesPerCycle releases of every period in one hyperperiod (saturating at {@link
 *     Long#MAX_VALUE}); 0 without a hyperperiod
 * @param size what the grid is
 */
public record ReleaseGrid(long hyperperiodNs, long releasesPerCycle, Size size) {
  /**
   * Releases per cycle an analysis unrolls at most (busy intervals, the EDF demand points with the
   * first of the next cycle, the activations the release table plays over its settling time and two
   * cycles); beyond this a cycle is not unrolled and each analysis says what it decides instead.
   */
  public static final int MAX_RELEASES = 200_000;

  /** What the periods make. */
  public enum Size {
    /** No periodic release (none at all, or one-shots only): nothing repeats. */
    NONE,
    /** A hyperperiod within 64 bits. */
    CYCLE,
    /** Periods whose least common multiple is beyond 64 bits. */
    BEYOND_64_BITS
  }

  private static final ReleaseGrid NONE = new ReleaseGrid(0, 0, Size.NONE);
  private static final ReleaseGrid BEYOND = new ReleaseGrid(0, 0, Size.BEYOND_64_BITS);

  /** The grid of some periods; zeros (one-shot methods) are left out. */
  public static ReleaseGrid of(LongStream periods) {
    final long[] positive = periods.filter(p -> p > 0).toArray();
    long hyperperiod = 0;
    for (long period : positive) {
      hyperperiod = hyperperiod == 0 ? period : lcm(hyperperiod, period);
      if (hyperperiod < 0) {
        return BEYOND;
      }
    }
    if (hyperperiod == 0) {
      return NONE;
    }
    long releases = 0;
    for (long period : positive) {
      releases = saturatingAdd(releases, hyperperiod / period);
    }
    return new ReleaseGrid(hyperperiod, releases, Size.CYCLE);
  }

  /**
   * The grid several grids make together (a node's cores): the common cycle of theirs, holding each
   * one's releases as many times as it repeats there; beyond 64 bits if any one is.
   */
  public static ReleaseGrid combined(java.util.List<ReleaseGrid> grids) {
    if (grids.stream().anyMatch(ReleaseGrid::beyond64Bits)) {
      return BEYOND;
    }
    final ReleaseGrid cycles = of(grids.stream().mapToLong(ReleaseGrid::hyperperiodNs));
    if (!cycles.cyclic()) {
      return cycles;
    }
    long releases = 0;
    for (ReleaseGrid grid : grids) {
      if (grid.cyclic()) {
        final long repeats = cycles.hyperperiodNs / grid.hyperperiodNs;
        releases =
            repeats > Long.MAX_VALUE / Math.max(1, grid.releasesPerCycle)
                ? Long.MAX_VALUE
                : saturatingAdd(releases, repeats * grid.releasesPerCycle);
      }
    }
    return new ReleaseGrid(cycles.hyperperiodNs, releases, Size.CYCLE);
  }

  /** Whether anything repeats: a hyperperiod within 64 bits. */
  public boolean cyclic() {
    return size == Size.CYCLE;
  }

  public boolean beyond64Bits() {
    return size == Size.BEYOND_64_BITS;
  }

  /** Whether {@code cycles} hyperperiods of releases stay within {@link #MAX_RELEASES}. */
  public boolean unrollable(int cycles) {
    return cyclic() && releasesPerCycle <= MAX_RELEASES / cycles;
  }

  /**
   * Least common multiple of two periods, or -1 on overflow; -1 stays -1, so a cycle beyond 64 bits
   * never turns back into a short one when a later period follows.
   */
  static long lcm(long a, long b) {
    if (a < 0 || b < 0) {
      return -1;
    }
    try {
      return Math.multiplyExact(a / gcd(a, b), b);
    } catch (ArithmeticException e) {
      return -1;
    }
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      final long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  private static long saturatingAdd(long a, long b) {
    final long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
