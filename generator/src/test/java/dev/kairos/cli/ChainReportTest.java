package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The end-to-end chains of `kairos check` in every form it writes. */
class ChainReportTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  /** A hard channel chain whose samples are older than their validity when read. */
  private static final String STALE = Path.of("src/test/resources/chains/stale.tmo").toString();

  private static final List<String> AVIONICS_CHAINS =
      List.of(
          "nav.update -[channel track]-> tracker.fuse",
          "hud.survey -[gate tracking]-> tracker.tracks",
          "planner.replan -[gate sensors]-> sensors.sample",
          "tracker.locate -[gate navigation]-> nav.current");

  @TempDir Path temp;

  private static String example(String name) {
    return REPOSITORY.resolve("examples/" + name + "/" + name + ".tmo").toString();
  }

  @Test
  void avionicsTextShowsEveryChainWithItsHopsAndLimits() {
    final CliRun run = CliRun.kairos("check", example("avionics"));
    assertEquals(0, run.exit(), run.all());
    assertTrue(run.out().contains("chains (holistic analysis: "), run.out());
    for (String chain : AVIONICS_CHAINS) {
      assertTrue(run.out().contains("  " + chain + " ("), chain);
    }
    assertTrue(run.out().contains("limit: round trip of gate planner.sensors "));
    assertTrue(run.out().contains("limit: age of track read by tracker.fuse "));
    assertTrue(run.out().contains("read     tracker.fuse reads track and completes"));
  }

  @Test
  void avionicsJsonHasStableChainFields() {
    final CliRun run = CliRun.kairos("check", "--format", "json", example("avionics"));
    assertEquals(0, run.exit(), run.all());
    final JsonObject root = JsonParser.parseString(run.out()).getAsJsonObject();
    final JsonObject holistic = root.getAsJsonObject("holistic");
    assertTrue(holistic.get("converged").getAsBoolean());
    assertTrue(holistic.get("iterations").getAsInt() >= 2, "jitter needs a second pass");
    final JsonArray chains = root.getAsJsonArray("chains");
    assertEquals(
        Set.copyOf(AVIONICS_CHAINS),
        StreamSupport.stream(chains.spliterator(), false)
            .map(c -> c.getAsJsonObject().get("name").getAsString())
            .collect(Collectors.toSet()));
    for (JsonElement element : chains) {
      final JsonObject chain = element.getAsJsonObject();
      for (String field :
          List.of(
              "start",
              "period_ns",
              "criticality",
              "bound_ns",
              "schedulable",
              "hops",
              "limits",
              "source")) {
        assertTrue(chain.has(field), field);
      }
      assertTrue(chain.get("bound_ns").getAsLong() > 0);
      for (JsonElement hop : chain.getAsJsonArray("hops")) {
        final JsonObject h = hop.getAsJsonObject();
        assertTrue(h.get("latest_ns").getAsLong() >= h.get("earliest_ns").getAsLong());
        assertEquals(
            h.get("latest_ns").getAsLong() - h.get("earliest_ns").getAsLong(),
            h.get("jitter_ns").getAsLong());
        assertEquals(h.get("kind").getAsString().equals("network"), h.has("transmission_ns"));
      }
    }
  }

  @Test
  void aModelWithoutChainsKeepsItsJson() {
    final CliRun run = CliRun.kairos("check", "--format", "json", example("hello"));
    assertEquals(0, run.exit(), run.all());
    final JsonObject root = JsonParser.parseString(run.out()).getAsJsonObject();
    assertFalse(root.has("chains"));
    assertFalse(root.has("holistic"));
  }

  @Test
  void avionicsJunitHasAChainsSuite() {
    final CliRun run = CliRun.kairos("check", "--format", "junit", example("avionics"));
    assertEquals(0, run.exit(), run.all());
    assertTrue(run.out().contains("<testsuite name=\"chains\" tests=\"4\" failures=\"0\">"));
    assertTrue(
        run.out()
            .contains(
                "<testcase classname=\"chains\" name=\"nav.update -[channel track]-&gt;"
                    + " tracker.fuse\">"));
  }

  @Test
  void aStaleSampleFailsTheChainEverywhere() throws IOException {
    final CliRun text = CliRun.kairos("check", STALE);
    assertEquals(1, text.exit(), text.all());
    assertTrue(
        text.out().contains("source.emit -[channel level]-> sink.take (hard, every 100 ms)"));
    assertTrue(text.out().contains(": MISSES"));
    assertTrue(text.out().contains("not schedulable"));
    assertTrue(text.err().contains("error[kairos.chain-unschedulable]"), text.err());
    assertTrue(text.err().contains("beyond the channel's validity of 20 ms"), text.err());

    final CliRun json = CliRun.kairos("check", "--format", "json", STALE);
    assertEquals(1, json.exit());
    final JsonObject root = JsonParser.parseString(json.out()).getAsJsonObject();
    assertFalse(root.get("schedulable").getAsBoolean());
    final JsonObject limit =
        root.getAsJsonArray("chains")
            .get(0)
            .getAsJsonObject()
            .getAsJsonArray("limits")
            .get(0)
            .getAsJsonObject();
    assertEquals("channel-validity", limit.get("kind").getAsString());
    assertEquals("sink.take", limit.get("reader").getAsString());
    assertEquals(20_000_000L, limit.get("limit_ns").getAsLong());
    assertFalse(limit.get("schedulable").getAsBoolean());

    final CliRun junit = CliRun.kairos("check", "--format", "junit", STALE);
    assertTrue(junit.out().contains("<testsuite name=\"chains\" tests=\"1\" failures=\"1\">"));

    final CliRun sarif = CliRun.kairos("check", "--format", "sarif", STALE);
    assertEquals(1, sarif.exit());
    assertTrue(sarif.out().contains("\"ruleId\": \"kairos.chain-unschedulable\""), sarif.out());

    final Path html = temp.resolve("stale.html");
    assertEquals(1, CliRun.kairos("check", STALE, "--html", html.toString()).exit());
    final String page = Files.readString(html, StandardCharsets.UTF_8);
    assertTrue(page.contains("<section class=\"chains\" id=\"chains\">"));
    assertTrue(page.contains("<tr class=\"miss\"><td>hard</td>"));
  }
}
