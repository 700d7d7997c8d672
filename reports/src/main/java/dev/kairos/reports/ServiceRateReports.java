package dev.kairos.reports;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.kairos.timing.ServiceRates;
import dev.kairos.timing.TimingPlan;
import java.util.Locale;

/**
 * The rates at which service methods are called, against their max-rate, in the forms of `kairos
 * check`: a text section, the JSON `service_rates` array and a JUnit test suite (docs/analysis.md).
 */
final class ServiceRateReports {
  private ServiceRateReports() {}

  /** The `service rates` section of the text report; nothing when no limited SvM is called. */
  static void text(StringBuilder out, TimingPlan report) {
    if (report.rates().isEmpty()) {
      return;
    }
    out.append("service rates (the callers' calls per second <= max-rate; n callers: requests")
        .append(" up to (n - 1) / max-rate early):")
        .append(System.lineSeparator());
    for (ServiceRates.Report rate : report.rates()) {
      out.append(
          String.format(
              Locale.ROOT,
              "  %s (%s): max-rate %s, called at up to %s by %s%s: %s%n",
              rate.callee(),
              rate.node(),
              Verdicts.hertz(rate.maxRateHz()),
              Verdicts.callRate(rate),
              Verdicts.callers(rate),
              rate.burstJitterNs() > 0
                  ? "; release jitter " + Figures.duration(rate.burstJitterNs())
                  : "",
              rate.meets() ? "ok" : "EXCEEDS MAX-RATE"));
    }
    out.append(System.lineSeparator());
  }

  /** One object per called service method with a max-rate. */
  static JsonArray json(TimingPlan report) {
    final JsonArray rates = new JsonArray();
    for (ServiceRates.Report rate : report.rates()) {
      final JsonObject r = new JsonObject();
      r.addProperty("service", rate.callee());
      r.addProperty("node", rate.node());
      r.addProperty("min_inter_arrival_ns", rate.minInterArrivalNs());
      if (Double.isInfinite(rate.callsPerSecond())) {
        r.addProperty("calls_per_second", "unbounded");
      } else {
        r.addProperty("calls_per_second", rate.callsPerSecond());
      }
      r.addProperty("burst_jitter_ns", rate.burstJitterNs());
      final JsonArray callers = new JsonArray();
      for (ServiceRates.Caller caller : rate.callers()) {
        final JsonObject c = new JsonObject();
        c.addProperty("caller", caller.caller());
        c.addProperty("gate", caller.gate());
        c.addProperty("interval_ns", caller.intervalNs());
        c.addProperty("source", caller.source().toString());
        callers.add(c);
      }
      r.add("callers", callers);
      r.addProperty("schedulable", rate.meets());
      r.addProperty("source", rate.source().toString());
      rates.add(r);
    }
    return rates;
  }

  /** The `Service rates` section of the HTML report: a row per called service method. */
  static void html(StringBuilder out, TimingPlan report) {
    if (report.rates().isEmpty()) {
      return;
    }
    out.append("<section class=\"rates\" id=\"service-rates\">\n<h2>Service rates</h2>\n")
        .append("<p class=\"note\">the calls per second of the model's callers (each calls once")
        .append(" per activation) &#8804; max-rate; the node refuses requests beyond it, and n")
        .append(" callers may call up to (n &#8722; 1) / max-rate early (release jitter)</p>\n")
        .append("<table>\n<tr><th>service method</th><th>node</th>")
        .append("<th class=\"num\">max-rate</th><th class=\"num\">called at</th>")
        .append("<th>callers</th><th class=\"num\">release jitter</th><th>verdict</th>")
        .append("<th>source</th></tr>\n");
    for (ServiceRates.Report rate : report.rates()) {
      out.append("<tr class=\"rate")
          .append(rate.meets() ? "" : " miss")
          .append("\"><td><code>")
          .append(ChainReports.Xml.escape(rate.callee()))
          .append("</code></td><td>")
          .append(ChainReports.Xml.escape(rate.node()))
          .append("</td><td class=\"num\">")
          .append(Verdicts.hertz(rate.maxRateHz()))
          .append("</td><td class=\"num\">")
          .append(Verdicts.callRate(rate))
          .append("</td><td>")
          .append(ChainReports.Xml.escape(Verdicts.callers(rate)))
          .append("</td><td class=\"num\">")
          .append(Figures.duration(rate.burstJitterNs()))
          .append("</td><td class=\"verdict-cell\">")
          .append(rate.meets() ? "ok" : "EXCEEDS MAX-RATE")
          .append("</td><td><code>")
          .append(ChainReports.Xml.escape(rate.source().toString()))
          .append("</code></td></tr>\n");
    }
    out.append("</table>\n</section>\n");
  }

  /** A `service rates` test suite, a test case per called service method. */
  static void junit(StringBuilder out, TimingPlan report) {
    if (report.rates().isEmpty()) {
      return;
    }
    final long failures = report.rates().stream().filter(r -> !r.meets()).count();
    out.append("  <testsuite name=\"service rates\" tests=\"")
        .append(report.rates().size())
        .append("\" failures=\"")
        .append(failures)
        .append("\">\n");
    for (ServiceRates.Report rate : report.rates()) {
      out.append("    <testcase classname=\"service rates\" name=\"")
          .append(ChainReports.Xml.escape(rate.callee()))
          .append("\">\n");
      if (!rate.meets()) {
        out.append("      <failure message=\"")
            .append(ChainReports.Xml.escape(rate.source() + ": " + Verdicts.rateMessage(rate)))
            .append("\"/>\n");
      }
      out.append("    </testcase>\n");
    }
    out.append("  </testsuite>\n");
  }
}
