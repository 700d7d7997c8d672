package dev.kairos.generator.emit;

import dev.kairos.ir.Durations;
import dev.kairos.ir.Platform.Network;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.Tmos.Spm;
import dev.kairos.ir.Tmos.Svm;
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

  /** A network's link: "latency 100 us, jitter 50 us, bandwidth 100 Mbps". */
  static String network(Network network) {
    return "latency "
        + Durations.format(network.latencyNs())
        + ", jitter "
        + Durations.format(network.jitterNs())
        + ", bandwidth "
        + (network.bitsPerSecond() == Network.UNLIMITED
            ? "unlimited"
            : bandwidth(network.bitsPerSecond()));
  }

  /** The largest unit that keeps the value whole: 100000000 -> "100 Mbps". */
  private static String bandwidth(long bitsPerSecond) {
    final long[] scales = {1_000_000_000L, 1_000_000L, 1_000L};
    final String[] units = {"Gbps", "Mbps", "kbps"};
    for (int i = 0; i < scales.length; i++) {
      if (bitsPerSecond % scales[i] == 0) {
        return bitsPerSecond / scales[i] + " " + units[i];
      }
    }
    return bitsPerSecond + " bps";
  }
}
