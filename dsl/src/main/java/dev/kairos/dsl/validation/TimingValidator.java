package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Duration;
import dev.kairos.dsl.kairos.Hardware;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.OneShotAac;
import dev.kairos.dsl.kairos.PeriodicAac;
import dev.kairos.dsl.kairos.Rate;
import dev.kairos.dsl.kairos.Spm;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.TimePoint;
import dev.kairos.dsl.kairos.Window;
import dev.kairos.dsl.units.Quantities;
import dev.kairos.dsl.units.Quantities.QuantityException;
import java.util.OptionalLong;
import org.eclipse.xtext.validation.Check;

/**
 * Quantities and the timing of methods: exact durations, activation conditions whose windows make
 * sense, and execution times that fit inside their deadlines or guaranteed completion times. A
 * quantity that is itself malformed is reported once, where it is written, and the checks that
 * depend on it stay silent.
 */
public class TimingValidator extends ConcernValidator {

  @Check
  public void checkDuration(Duration duration) {
    try {
      final long nanos = Quantities.nanoseconds(duration);
      if (nanos < 0) {
        error("a duration cannot be negative", duration, null, IssueCodes.INVALID_DURATION);
      }
    } catch (QuantityException e) {
      error(e.getMessage(), duration, null, IssueCodes.INVALID_DURATION);
    }
  }

  @Check
  public void checkRate(Rate rate) {
    try {
      Quantities.periodOf(rate);
    } catch (QuantityException e) {
      error(e.getMessage(), rate, null, IssueCodes.INVALID_RATE);
    }
  }

  @Check
  public void checkHardwareSpeed(Hardware hardware) {
    if (hardware.getSpeed() == null) {
      return;
    }
    try {
      if (Quantities.decimal(hardware.getSpeed()).signum() <= 0) {
        error(
            "speed must be greater than 0 (1.0 is the reference machine)",
            Literals.HARDWARE__SPEED,
            IssueCodes.INVALID_SPEED);
      }
    } catch (QuantityException e) {
      error(e.getMessage(), Literals.HARDWARE__SPEED, IssueCodes.INVALID_SPEED);
    }
  }

  @Check
  public void checkPeriodicSpm(PeriodicAac aac) {
    final String variable = aac.getVariable();
    final Window window = aac.getWindow();
    for (TimePoint point : new TimePoint[] {window.getEarliest(), window.getLatest()}) {
      checkRelative(point, variable);
    }
    checkRelative(window.getDeadline(), variable);

    final OptionalLong period = nanos(aac.getPeriod());
    if (period.isPresent() && period.getAsLong() <= 0) {
      error(
          "the period must be greater than 0",
          aac,
          Literals.PERIODIC_AAC__PERIOD,
          IssueCodes.NON_POSITIVE_PERIOD);
    }
    final OptionalLong from = nanos(aac.getFrom());
    final OptionalLong to = aac.isForever() ? OptionalLong.empty() : nanos(aac.getTo());
    if (from.isPresent() && to.isPresent() && to.getAsLong() < from.getAsLong()) {
      error(
          "the activation condition ends ("
              + Quantities.formatNanos(to.getAsLong())
              + ") before it starts ("
              + Quantities.formatNanos(from.getAsLong())
              + ")",
          aac,
          Literals.PERIODIC_AAC__TO,
          IssueCodes.AAC_ENDS_BEFORE_START);
    }
    final WindowTimes times = windowTimes(window);
    if (times == null) {
      return;
    }
    checkWindowOrder(window, times);
    if (period.isPresent() && period.getAsLong() > 0) {
      final long p = period.getAsLong();
      if (times.latest > p) {
        error(
            "the start window closes at t + "
                + Quantities.formatNanos(times.latest)
                + ", after the next release at t + "
                + Quantities.formatNanos(p),
            window,
            Literals.WINDOW__LATEST,
            IssueCodes.WINDOW_OUTSIDE_PERIOD);
      } else if (times.deadline > p) {
        error(
            "finish-by t + "
                + Quantities.formatNanos(times.deadline)
                + " lies beyond the period ("
                + Quantities.formatNanos(p)
                + "): an activation must complete before the next one is released",
            window,
            Literals.WINDOW__DEADLINE,
            IssueCodes.DEADLINE_EXCEEDS_PERIOD);
      }
    }
    checkWcetFits(aac.eContainer(), times);
  }

  @Check
  public void checkOneShotSpm(OneShotAac aac) {
    final Window window = aac.getWindow();
    for (TimePoint point :
        new TimePoint[] {window.getEarliest(), window.getLatest(), window.getDeadline()}) {
      if (point.getAnchor() != null) {
        error(
            "a one-shot activation condition has no time variable; write an absolute time such"
                + " as 10 ms",
            point,
            Literals.TIME_POINT__ANCHOR,
            IssueCodes.UNKNOWN_TIME_VARIABLE);
      }
    }
    final WindowTimes times = windowTimes(window);
    if (times != null) {
      checkWindowOrder(window, times);
      checkWcetFits(aac.eContainer(), times);
    }
  }

  @Check
  public void checkSvm(Svm svm) {
    final OptionalLong wcet = nanos(svm.getWcet());
    final OptionalLong gct = nanos(svm.getGct());
    if (wcet.isPresent() && wcet.getAsLong() <= 0) {
      error("the WCET must be greater than 0", Literals.METHOD__WCET, IssueCodes.NON_POSITIVE_WCET);
    } else if (wcet.isPresent() && gct.isPresent() && wcet.getAsLong() > gct.getAsLong()) {
      error(
          "WCET "
              + Quantities.text(svm.getWcet())
              + " exceeds the guaranteed completion time "
              + Quantities.text(svm.getGct())
              + ": the service method can never keep its guarantee",
          Literals.METHOD__WCET,
          IssueCodes.WCET_EXCEEDS_GCT);
    }
  }

  private void checkRelative(TimePoint point, String variable) {
    if (point.getAnchor() == null) {
      error(
          "times in a periodic activation condition are relative to "
              + variable
              + "; write "
              + variable
              + " + "
              + (point.getOffset() == null ? "..." : Quantities.text(point.getOffset())),
          point,
          null,
          IssueCodes.WINDOW_NOT_RELATIVE);
    } else if (!point.getAnchor().equals(variable)) {
      error(
          "unknown time variable '"
              + point.getAnchor()
              + "'; this activation condition calls it '"
              + variable
              + "'",
          point,
          Literals.TIME_POINT__ANCHOR,
          IssueCodes.UNKNOWN_TIME_VARIABLE);
    }
  }

  private void checkWindowOrder(Window window, WindowTimes times) {
    if (times.latest < times.earliest) {
      error(
          "the start window closes before it opens",
          window,
          Literals.WINDOW__LATEST,
          IssueCodes.WINDOW_INVERTED);
    } else if (times.deadline < times.latest) {
      error(
          "finish-by comes before the end of the start window",
          window,
          Literals.WINDOW__DEADLINE,
          IssueCodes.DEADLINE_BEFORE_WINDOW_END);
    }
  }

  private void checkWcetFits(org.eclipse.emf.ecore.EObject container, WindowTimes times) {
    if (!(container instanceof Spm spm)) {
      return;
    }
    final OptionalLong wcet = nanos(spm.getWcet());
    if (wcet.isEmpty()) {
      return;
    }
    if (wcet.getAsLong() <= 0) {
      error(
          "the WCET must be greater than 0",
          spm,
          Literals.METHOD__WCET,
          IssueCodes.NON_POSITIVE_WCET);
    } else if (times.earliest + wcet.getAsLong() > times.deadline) {
      error(
          "WCET "
              + Quantities.text(spm.getWcet())
              + " does not fit between the earliest start and finish-by ("
              + Quantities.formatNanos(times.deadline - times.earliest)
              + ")",
          spm,
          Literals.METHOD__WCET,
          IssueCodes.WCET_EXCEEDS_DEADLINE);
    }
  }

  /** Offsets of a window in nanoseconds, or null when one of them is malformed. */
  private record WindowTimes(long earliest, long latest, long deadline) {}

  private static WindowTimes windowTimes(Window window) {
    final OptionalLong earliest = offset(window.getEarliest());
    final OptionalLong latest = offset(window.getLatest());
    final OptionalLong deadline = offset(window.getDeadline());
    if (earliest.isEmpty() || latest.isEmpty() || deadline.isEmpty()) {
      return null;
    }
    return new WindowTimes(earliest.getAsLong(), latest.getAsLong(), deadline.getAsLong());
  }

  /** A window time's offset in nanoseconds (0 for a bare `t`), empty if malformed. */
  static OptionalLong offset(TimePoint point) {
    if (point == null) {
      return OptionalLong.empty();
    }
    return point.getOffset() == null ? OptionalLong.of(0) : nanos(point.getOffset());
  }

  static OptionalLong nanos(Duration duration) {
    if (duration == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Quantities.nanoseconds(duration));
    } catch (QuantityException e) {
      return OptionalLong.empty();
    }
  }
}
