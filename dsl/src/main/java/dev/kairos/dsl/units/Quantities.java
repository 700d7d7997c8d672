package dev.kairos.dsl.units;

import dev.kairos.dsl.kairos.Bandwidth;
import dev.kairos.dsl.kairos.BandwidthUnit;
import dev.kairos.dsl.kairos.Duration;
import dev.kairos.dsl.kairos.Rate;
import dev.kairos.dsl.kairos.TimeUnit;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Converts the model's quantities to integers in nanoseconds. Every conversion is exact or fails: a
 * duration that is not a whole number of nanoseconds, or that does not fit in 64 bits, is an error
 * in the model, never a silently rounded or wrapped number.
 */
public final class Quantities {
  private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);

  private Quantities() {}

  /** Thrown when a quantity cannot be represented exactly in nanoseconds. */
  public static final class QuantityException extends Exception {
    private static final long serialVersionUID = 1L;

    QuantityException(String message) {
      super(message);
    }
  }

  public static long scaleOf(TimeUnit unit) {
    return switch (unit) {
      case NS -> 1L;
      case US -> 1_000L;
      case MS -> 1_000_000L;
      case S -> 1_000_000_000L;
      case MIN -> 60_000_000_000L;
    };
  }

  /** The duration in nanoseconds. */
  public static long nanoseconds(Duration duration) throws QuantityException {
    final BigDecimal value = decimal(duration.getValue());
    final BigDecimal nanos = value.multiply(BigDecimal.valueOf(scaleOf(duration.getUnit())));
    try {
      return nanos.longValueExact();
    } catch (ArithmeticException e) {
      if (nanos.stripTrailingZeros().scale() > 0) {
        throw new QuantityException(
            "duration "
                + text(duration)
                + " is not a whole number of nanoseconds; use a smaller unit");
      }
      throw new QuantityException(
          "duration " + text(duration) + " does not fit in 64-bit nanoseconds (about 292 years)");
    }
  }

  /**
   * The minimum inter-arrival time of a rate, in nanoseconds, rounded down so that the load it
   * stands for is never underestimated.
   */
  public static long periodOf(Rate rate) throws QuantityException {
    final BigDecimal hertz = decimal(rate.getValue());
    if (hertz.signum() == 0) {
      throw new QuantityException("a rate of 0 Hz has no period");
    }
    final BigDecimal nanos = NANOS_PER_SECOND.divide(hertz, 0, RoundingMode.FLOOR);
    if (nanos.signum() == 0) {
      throw new QuantityException("rate " + rate.getValue() + " Hz is above 1 GHz");
    }
    return nanos.longValueExact();
  }

  public static long scaleOf(BandwidthUnit unit) {
    return switch (unit) {
      case BPS -> 1L;
      case KBPS -> 1_000L;
      case MBPS -> 1_000_000L;
      case GBPS -> 1_000_000_000L;
    };
  }

  /** The bandwidth in bits per second: a whole, positive number that fits in 64 bits. */
  public static long bitsPerSecond(Bandwidth bandwidth) throws QuantityException {
    final BigDecimal bits =
        decimal(bandwidth.getValue()).multiply(BigDecimal.valueOf(scaleOf(bandwidth.getUnit())));
    final String text = bandwidth.getValue() + " " + bandwidth.getUnit().getLiteral();
    if (bits.signum() <= 0) {
      throw new QuantityException("bandwidth " + text + " carries nothing; give a positive rate");
    }
    try {
      return bits.longValueExact();
    } catch (ArithmeticException e) {
      if (bits.stripTrailingZeros().scale() > 0) {
        throw new QuantityException(
            "bandwidth " + text + " is not a whole number of bits per second; use a smaller unit");
      }
      throw new QuantityException("bandwidth " + text + " does not fit in 64 bits per second");
    }
  }

  /** A decimal literal of the grammar (digits, optionally a dot and digits). */
  public static BigDecimal decimal(String literal) throws QuantityException {
    if (literal == null || literal.isEmpty()) {
      throw new QuantityException("missing number");
    }
    try {
      return new BigDecimal(literal);
    } catch (NumberFormatException e) {
      throw new QuantityException("'" + literal + "' is not a number");
    }
  }

  /** Writes a duration the way the model spells it, e.g. "1.5 ms". */
  public static String text(Duration duration) {
    return duration.getValue() + " " + duration.getUnit().getLiteral();
  }

  /** Writes nanoseconds in the largest unit that keeps the value whole, e.g. "2500 us". */
  public static String formatNanos(long nanos) {
    final TimeUnit[] units = {TimeUnit.MIN, TimeUnit.S, TimeUnit.MS, TimeUnit.US};
    for (TimeUnit unit : units) {
      final long scale = scaleOf(unit);
      if (nanos != 0 && nanos % scale == 0) {
        return nanos / scale + " " + unit.getLiteral();
      }
    }
    return nanos + " ns";
  }
}
