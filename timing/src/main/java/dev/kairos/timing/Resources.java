package dev.kairos.timing;

import dev.kairos.ir.Tmos.SegmentAccess;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How every analysis names what a node's methods hold and charges its processor: the ODS segments a
 * method uses (named per instance, unique on the node) and a WCET on hardware of another speed. The
 * response-time analysis, the release-table play, the core placement and the hub's wait all take
 * them from here, so that none of them reaches into another for them.
 */
public final class Resources {
  private Resources() {}

  /** The segments {@code uses} names, as {@code instance.segment}. */
  static Set<String> segmentsOf(String instance, List<SegmentAccess> uses) {
    final Set<String> segments = new HashSet<>();
    uses.forEach(u -> segments.add(instance + "." + u.segment()));
    return segments;
  }

  /** WCET on this hardware: the reference WCET divided by the relative speed, rounded up. */
  public static long scale(long wcetNs, BigDecimal speed) {
    if (speed.compareTo(BigDecimal.ONE) == 0) {
      return wcetNs;
    }
    try {
      return BigDecimal.valueOf(wcetNs).divide(speed, 0, RoundingMode.CEILING).longValueExact();
    } catch (ArithmeticException beyond64Bits) {
      return Long.MAX_VALUE;
    }
  }
}
