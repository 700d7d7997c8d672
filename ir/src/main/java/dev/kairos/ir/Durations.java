package dev.kairos.ir;

/** Writes nanosecond counts the way a model spells them. */
public final class Durations {
  private Durations() {}

  private static final long[] SCALES = {60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
  private static final String[] UNITS = {"min", "s", "ms", "us"};

  /** The largest unit that keeps the value whole: 2500000 -> "2500 us", 0 -> "0 s". */
  public static String format(long nanos) {
    if (nanos == 0) {
      return "0 s";
    }
    for (int i = 0; i < SCALES.length; i++) {
      if (nanos % SCALES[i] == 0) {
        return nanos / SCALES[i] + " " + UNITS[i];
      }
    }
    return nanos + " ns";
  }

  /** Hertz of a period, for people: 25000000 -> "40 Hz". */
  public static String rate(long periodNanos) {
    final double hertz = 1e9 / periodNanos;
    return (hertz == Math.rint(hertz) ? String.valueOf((long) hertz) : String.format("%.3f", hertz))
        + " Hz";
  }
}
