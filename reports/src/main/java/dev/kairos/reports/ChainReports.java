package dev.kairos.reports;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.kairos.timing.ChainReport;
import dev.kairos.timing.TimingPlan;
import java.util.List;
import java.util.Locale;

/**
 * The end-to-end chains of the holistic analysis in the forms of `kairos check`: a text section,
 * the JSON `chains` array and `holistic` object, and a JUnit test suite. Field names of the JSON
 * are stable (docs/analysis.md).
 */
final class ChainReports {
  private ChainReports() {}

  /** The `chains` section of the text report; nothing without chains. */
  static void text(StringBuilder out, TimingPlan report) {
    if (report.chains().isEmpty()) {
      return;
    }
    final String nl = System.lineSeparator();
    out.append("chains (holistic analysis: ")
        .append(iterations(report.holistic()))
        .append("; times from the source's release):")
        .append(nl);
    for (ChainReport chain : report.chains()) {
      out.append(
          String.format(
              Locale.ROOT,
              "  %s (%s, %s): bound %s: %s%n",
              chain.name(),
              chain.hard() ? "hard" : "soft",
              chain.periodNs() > 0 ? "every " + Figures.duration(chain.periodNs()) : "once",
              chain.boundNs() >= 0 ? Figures.duration(chain.boundNs()) : "unbounded",
              verdict(chain)));
      final String row = "    %-8s %-52s %-10s %12s %12s %12s%s%n";
      out.append(
          String.format(Locale.ROOT, row, "hop", "", "where", "earliest", "latest", "jitter", ""));
      for (ChainReport.Hop hop : chain.hops()) {
        out.append(
            String.format(
                Locale.ROOT,
                row,
                hop.kind().name().toLowerCase(Locale.ROOT),
                what(hop),
                hop.where(),
                Figures.duration(hop.earliestNs()),
                hop.latestNs() >= 0 ? Figures.duration(hop.latestNs()) : "unbounded",
                hop.latestNs() >= 0 ? Figures.duration(hop.jitterNs()) : "-",
                hop.kind() == ChainReport.HopKind.NETWORK && hop.transmissionNs() > 0
                    ? "  (transmission "
                        + Figures.duration(hop.transmissionNs())
                        + ", queueing "
                        + Figures.duration(hop.queueingNs())
                        + ")"
                    : ""));
      }
      for (ChainReport.Limit limit : chain.limits()) {
        out.append("    limit: ").append(limit(limit)).append(nl);
      }
    }
    out.append(nl);
  }

  /** "3 passes to a fixed point", or that the iteration diverged. */
  static String iterations(TimingPlan.Holistic holistic) {
    final String passes =
        holistic.iterations() + (holistic.iterations() == 1 ? " pass" : " passes");
    final String incomplete =
        holistic.complete()
            ? ""
            : "; INCOMPLETE: the model has more chains than the analysis follows, not all counted";
    return (holistic.converged()
            ? passes + " to a fixed point"
            : "DIVERGED: no fixed point after " + passes)
        + incomplete;
  }

  /** ok, may miss (soft) or MISSES. */
  static String verdict(ChainReport chain) {
    if (chain.meets()) {
      return "ok";
    }
    return chain.hard() ? "MISSES" : "may miss (soft)";
  }

  /** A limit in words: "round trip of gate planner.sensors 3610 us <= deadline 5 ms: ok". */
  static String limit(ChainReport.Limit limit) {
    final String bound = limit.boundNs() >= 0 ? Figures.duration(limit.boundNs()) : "unbounded";
    if (limit.kind() == ChainReport.LimitKind.GATE_DEADLINE) {
      return "round trip of gate "
          + limit.instance()
          + "."
          + limit.element()
          + " "
          + bound
          + (limit.meets() ? " <= " : " > ")
          + "deadline "
          + Figures.duration(limit.limitNs())
          + (limit.meets() ? ": ok" : ": MISSES");
    }
    final String where =
        "age of " + limit.channel() + " read by " + limit.instance() + "." + limit.element();
    if (limit.limitNs() == 0) {
      return where + " " + bound + " (no validity): " + (limit.meets() ? "ok" : "MISSES");
    }
    return where
        + " "
        + bound
        + (limit.meets() ? " <= " : " > ")
        + "validity "
        + Figures.duration(limit.limitNs())
        + (limit.meets() ? ": ok" : ": MISSES");
  }

  static JsonArray json(TimingPlan report) {
    final JsonArray chains = new JsonArray();
    for (ChainReport chain : report.chains()) {
      final JsonObject c = new JsonObject();
      c.addProperty("name", chain.name());
      c.addProperty("start", chain.source());
      c.addProperty("period_ns", chain.periodNs());
      c.addProperty("criticality", chain.hard() ? "hard" : "soft");
      c.addProperty("bound_ns", chain.boundNs());
      c.addProperty("schedulable", chain.meets());
      final JsonArray hops = new JsonArray();
      for (ChainReport.Hop hop : chain.hops()) {
        final JsonObject h = new JsonObject();
        h.addProperty("kind", hop.kind().name().toLowerCase(Locale.ROOT));
        h.addProperty("what", what(hop));
        h.addProperty("where", hop.where());
        h.addProperty("earliest_ns", hop.earliestNs());
        h.addProperty("latest_ns", hop.latestNs());
        h.addProperty("jitter_ns", hop.jitterNs());
        if (hop.kind() == ChainReport.HopKind.NETWORK) {
          h.addProperty("transmission_ns", hop.transmissionNs());
          h.addProperty("queueing_ns", hop.queueingNs());
        }
        hops.add(h);
      }
      c.add("hops", hops);
      final JsonArray limits = new JsonArray();
      for (ChainReport.Limit limit : chain.limits()) {
        final JsonObject l = new JsonObject();
        final boolean gate = limit.kind() == ChainReport.LimitKind.GATE_DEADLINE;
        l.addProperty("kind", gate ? "gate-deadline" : "channel-validity");
        if (gate) {
          l.addProperty("gate", limit.instance() + "." + limit.element());
        } else {
          l.addProperty("channel", limit.channel());
          l.addProperty("reader", limit.instance() + "." + limit.element());
        }
        l.addProperty("bound_ns", limit.boundNs());
        l.addProperty("limit_ns", limit.limitNs());
        l.addProperty("schedulable", limit.meets());
        l.addProperty("source", limit.source().toString());
        limits.add(l);
      }
      c.add("limits", limits);
      c.addProperty("source", chain.sourceRef().toString());
      chains.add(c);
    }
    return chains;
  }

  static JsonObject holistic(TimingPlan report) {
    final JsonObject h = new JsonObject();
    h.addProperty("iterations", report.holistic().iterations());
    h.addProperty("converged", report.holistic().converged());
    h.addProperty("complete", report.holistic().complete());
    return h;
  }

  /**
   * One test case per chain: a hard chain that misses a limit or has no bound fails, a soft one
   * that may miss says so; a diverged iteration fails a test case of its own.
   */
  static void junit(StringBuilder out, TimingPlan report) {
    final List<ChainReport> chains = report.chains();
    if (chains.isEmpty()) {
      return;
    }
    final boolean diverged = !report.holistic().converged() || !report.holistic().complete();
    final long failures = chains.stream().filter(c -> c.hard() && !c.meets()).count();
    out.append("  <testsuite name=\"chains\" tests=\"")
        .append(chains.size() + (diverged ? 1 : 0))
        .append("\" failures=\"")
        .append(failures + (diverged ? 1 : 0))
        .append("\">\n");
    if (diverged) {
      out.append("    <testcase classname=\"chains\" name=\"holistic iteration\">\n")
          .append("      <failure message=\"")
          .append(Xml.escape(iterations(report.holistic())))
          .append("\"/>\n    </testcase>\n");
    }
    for (ChainReport chain : chains) {
      out.append("    <testcase classname=\"chains\" name=\"")
          .append(Xml.escape(chain.name()))
          .append("\">\n");
      if (!chain.meets()) {
        final String why =
            chain.name()
                + " ("
                + chain.sourceRef()
                + "): bound "
                + (chain.boundNs() >= 0 ? Figures.duration(chain.boundNs()) : "unbounded")
                + String.join(
                    "",
                    chain.limits().stream()
                        .filter(l -> !l.meets())
                        .map(l -> "; " + limit(l))
                        .toList());
        if (chain.hard()) {
          out.append("      <failure message=\"").append(Xml.escape(why)).append("\"/>\n");
        } else {
          out.append("      <system-out>soft: ").append(Xml.escape(why)).append("</system-out>\n");
        }
      }
      out.append("    </testcase>\n");
    }
    out.append("  </testsuite>\n");
  }

  /**
   * The page's `Chains` section: per chain its verdict and bound, its hops with their windows and
   * jitters, and its limits; nothing without chains.
   */
  static void html(StringBuilder out, TimingPlan report) {
    if (report.chains().isEmpty()) {
      return;
    }
    out.append("<section class=\"chains\" id=\"chains\">\n<h2>End-to-end chains</h2>\n")
        .append("<p class=\"note\">holistic analysis (Tindell and Clark): ")
        .append(HtmlReport.esc(iterations(report.holistic())))
        .append("; times from the release of the chain's source; the jitter of a hop is what it")
        .append(" passes on to the next</p>\n");
    for (ChainReport chain : report.chains()) {
      final String rowClass =
          chain.meets() ? "" : chain.hard() ? " class=\"miss\"" : " class=\"soft-miss\"";
      out.append("<h3><code>")
          .append(HtmlReport.esc(chain.name()))
          .append("</code></h3>\n<table>\n<tr><th>chain</th><th class=\"num\">period</th>")
          .append("<th class=\"num\">bound</th><th>verdict</th><th>source</th></tr>\n<tr")
          .append(rowClass)
          .append("><td>")
          .append(chain.hard() ? "hard" : "soft")
          .append("</td><td class=\"num\">")
          .append(chain.periodNs() > 0 ? Figures.duration(chain.periodNs()) : "once")
          .append("</td><td class=\"num\">")
          .append(chain.boundNs() >= 0 ? Figures.duration(chain.boundNs()) : "unbounded")
          .append("</td><td class=\"verdict-cell\">")
          .append(verdict(chain))
          .append("</td><td><code>")
          .append(HtmlReport.esc(chain.sourceRef().toString()))
          .append("</code></td></tr>\n</table>\n<table>\n<tr><th>hop</th><th>what</th>")
          .append("<th>where</th><th class=\"num\">earliest</th><th class=\"num\">latest</th>")
          .append("<th class=\"num\">jitter</th><th class=\"num\">transmission</th>")
          .append("<th class=\"num\">queueing</th></tr>\n");
      for (ChainReport.Hop hop : chain.hops()) {
        final boolean network = hop.kind() == ChainReport.HopKind.NETWORK;
        out.append("<tr><td>")
            .append(hop.kind().name().toLowerCase(Locale.ROOT))
            .append("</td><td>")
            .append(HtmlReport.esc(what(hop)))
            .append("</td><td>")
            .append(HtmlReport.esc(hop.where()))
            .append("</td><td class=\"num\">")
            .append(Figures.duration(hop.earliestNs()))
            .append("</td><td class=\"num\">")
            .append(hop.latestNs() >= 0 ? Figures.duration(hop.latestNs()) : "unbounded")
            .append("</td><td class=\"num\">")
            .append(hop.latestNs() >= 0 ? Figures.duration(hop.jitterNs()) : "-")
            .append("</td><td class=\"num\">")
            .append(network ? Figures.duration(hop.transmissionNs()) : "")
            .append("</td><td class=\"num\">")
            .append(network ? Figures.duration(hop.queueingNs()) : "")
            .append("</td></tr>\n");
      }
      out.append("</table>\n");
      if (!chain.limits().isEmpty()) {
        out.append("<ul class=\"limits\">\n");
        for (ChainReport.Limit limit : chain.limits()) {
          out.append("<li>").append(HtmlReport.esc(limit(limit))).append("</li>\n");
        }
        out.append("</ul>\n");
      }
    }
    out.append("</section>\n");
  }

  /** XML text and attribute escaping. */
  static final class Xml {
    private Xml() {}

    static String escape(String text) {
      return text.replace("&", "&amp;")
          .replace("<", "&lt;")
          .replace(">", "&gt;")
          .replace("\"", "&quot;");
    }
  }

  /** A hop in words, as the check reports, the page and the editor say it. */
  static String what(ChainReport.Hop hop) {
    final ChainReport.Subject subject = hop.subject();
    final String method = subject.method();
    final String element = subject.element();
    return switch (hop.kind()) {
      case RELEASE -> method + " released";
      case SEND -> method + " calls " + element;
      case NETWORK ->
          switch (subject.message()) {
            case REQUEST -> "request " + subject.instance() + "." + element;
            case REPLY -> "reply " + subject.instance() + "." + element;
            case SAMPLE, NONE -> "sample " + element;
          };
      case SERVE -> method + " completes";
      case RESUME ->
          subject.oneway()
              ? method + " completes, its oneway call " + element + " served"
              : method + " has its reply and completes";
      case PUBLISH -> method + " publishes " + element + ", sent";
      case DELIVER -> "delivered to " + subject.instance() + "'s history";
      case READ -> method + " reads " + element + " and completes";
    };
  }
}
