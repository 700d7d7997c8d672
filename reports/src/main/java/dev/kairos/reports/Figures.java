package dev.kairos.reports;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/** Figures as an editor shows them beside the model: short, in the unit a reader expects. */
public final class Figures {
  private Figures() {}

  private static final long[] SCALES = {
    3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L
  };
  private static final String[] UNITS = {"h", "min", "s", "ms", "us"};

  /**
   * A duration in the largest unit it reaches (h, min, s, ms, us, ns), with at most three decimals:
   * 2700000 -> "2.7 ms", 300000 -> "300 us", 1234 -> "1.234 us", 999 -> "999 ns", 90 s -> "1.5
   * min". The one formatter of durations for people: check's text, the editor, the page and the
   * diagrams all use it. For exact values in the model's own spelling use {@link
   * dev.kairos.ir.Durations#format}.
   */
  public static String duration(long nanos) {
    for (int i = 0; i < SCALES.length; i++) {
      if (Math.abs(nanos) >= SCALES[i]) {
        final BigDecimal value =
            BigDecimal.valueOf(nanos)
                .divide(BigDecimal.valueOf(SCALES[i]), 3, RoundingMode.HALF_UP)
                .stripTrailingZeros();
        return value.toPlainString() + " " + UNITS[i];
      }
    }
    return nanos + " ns";
  }

  /** A fraction as a percentage with one decimal: 0.174 -> "17.4%". */
  public static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
  }

  /**
   * The name of the utilization bound a node's analysis compares with: under EDF a utilization up
   * to 100% is schedulable (for implicit deadlines), under fixed priorities Liu and Layland's n
   * (2^(1/n) - 1) is sufficient.
   */
  public static String utilizationBound(dev.kairos.ir.Platform.Strategy strategy) {
    return strategy.earliestDeadlineFirst() ? "EDF bound" : "Liu-Layland bound";
  }
}
