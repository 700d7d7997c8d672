package dev.kairos.generator.emit;

import dev.kairos.generator.ir.Durations;
import dev.kairos.generator.ir.Tmos;
import dev.kairos.generator.ir.Tmos.Spm;
import dev.kairos.generator.ir.Tmos.Svm;
import java.util.Locale;

/** One-line summaries of methods' timing, for comments in generated code. */
final class Describe {
  private Describe() {}

  static String spm(Spm spm) {
    final String activation =
        spm.periodic()
            ? "every "
                + Durations.format(spm.periodNs())
                + " from "
                + Durations.format(spm.firstReleaseNs())
                + (spm.lastReleaseNs() == Tmos.FOREVER
                    ? ""
                    : " to " + Durations.format(spm.lastReleaseNs()))
            : "once";
    return "spm "
        + spm.name()
        + ": "
        + activation
        + ", start-during ("
        + at(spm.windowOpenNs())
        + ", "
        + at(spm.windowCloseNs())
        + "), finish-by "
        + at(spm.deadlineNs())
        + ", wcet "
        + Durations.format(spm.wcetNs())
        + ", "
        + spm.criticality().name().toLowerCase(Locale.ROOT);
  }

  /** A time relative to the release: "t" or "t + 5 ms". */
  private static String at(long offsetNs) {
    return offsetNs == 0 ? "t" : "t + " + Durations.format(offsetNs);
  }

  static String svm(Svm svm) {
    return "svm "
        + svm.name()
        + ": gct "
        + Durations.format(svm.gctNs())
        + ", wcet "
        + Durations.format(svm.wcetNs())
        + ", "
        + svm.criticality().name().toLowerCase(Locale.ROOT)
        + (svm.minInterArrivalNs() > 0
            ? ", max-rate " + Durations.rate(svm.minInterArrivalNs())
            : "");
  }
}
