package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * `kairos check` on a published example of the holistic analysis: the two-processor system with a
 * serial line of J. C. Palencia and M. González Harbour, "Schedulability Analysis for Tasks with
 * Static and Dynamic Offsets", Proc. 19th IEEE Real-Time Systems Symposium (RTSS), 1998, whose
 * holistic results MAST publishes (its distribution's docs/mast-examples.html, "RTSS_98", and
 * examples/results/rtss_98_ho.txt). The model, and how each step of the paper maps onto a method, a
 * gate and a frame, is in src/test/resources/holistic/rtss98.tmo; one time unit is 1 ms there.
 *
 * <p>Every worst-case figure MAST publishes is the one Kairos computes:
 *
 * <pre>
 * transaction t_1: t1                                      4
 * transaction t_2: t21 ends (i22)                         66
 *                  m1 arrives (i23)                      125
 *                  t4 ends (i24)                         145
 *                  m2 arrives (i25)                      204
 *                  t22 ends (o2), end to end             270
 * transaction t_3: t3                                      5
 * transaction t_4: t5                                    140
 * </pre>
 *
 * The jitters are wider than MAST's (t4's requests 100 against 80, t22's 145 against 110): MAST
 * takes each step's best case from best-case execution times, equal to the worst here, while a
 * Kairos method may finish, and send, at once; its best case is the frames' transmission alone.
 * Here no ceiling of the interference terms moves with that difference, so no worst case does
 * either. Were a frame's transmission not part of its earliest arrival, t4's jitter would be 125
 * and t5's response 160, and t22's 204 would add a second job of it to t21's window: the published
 * figures depend on it.
 */
class PublishedHolisticExampleTest {
  private static final long MS = 1_000_000L;
  private static final String MODEL =
      Path.of("src/test/resources/holistic/rtss98.tmo").toAbsolutePath().toString();

  @Test
  void everyWorstCaseFigureIsTheOnePublished() {
    final CliRun run = CliRun.kairos("check", "--format", "json", MODEL);
    assertEquals(0, run.exit(), run.all());
    final JsonObject root = JsonParser.parseString(run.out()).getAsJsonObject();
    assertTrue(root.getAsJsonObject("holistic").get("converged").getAsBoolean(), run.out());

    final Map<String, Long> responses = new HashMap<>();
    for (JsonElement node : root.getAsJsonArray("nodes")) {
      for (JsonElement task : node.getAsJsonObject().getAsJsonArray("tasks")) {
        final JsonObject t = task.getAsJsonObject();
        responses.put(t.get("name").getAsString(), t.get("response_time_ns").getAsLong());
      }
    }
    assertEquals(4 * MS, responses.get("t1.t1"), "t_1");
    assertEquals(5 * MS, responses.get("t3.t3"), "t_3");
    assertEquals(140 * MS, responses.get("t5.t5"), "t_4");

    final JsonArray chains = root.getAsJsonArray("chains");
    assertEquals(1, chains.size(), run.out());
    final JsonObject chain = chains.get(0).getAsJsonObject();
    assertEquals(
        "t21.t21 -[gate m1]-> t4.t4 -[gate m2]-> t22.t22", chain.get("name").getAsString());
    assertEquals(270 * MS, chain.get("bound_ns").getAsLong(), "t_2 end to end (o2)");
    final List<JsonObject> hops =
        StreamSupport.stream(chain.getAsJsonArray("hops").spliterator(), false)
            .map(JsonElement::getAsJsonObject)
            .toList();
    assertEquals(
        List.of("release", "send", "network", "send", "network", "serve"),
        hops.subList(0, 6).stream().map(h -> h.get("kind").getAsString()).toList());
    assertEquals(
        List.of(0L, 66 * MS, 125 * MS, 145 * MS, 204 * MS, 270 * MS),
        hops.subList(0, 6).stream().map(h -> h.get("latest_ns").getAsLong()).toList(),
        "i22, i23, i24, i25 and o2");
    assertEquals(25 * MS, hops.get(2).get("transmission_ns").getAsLong(), "m1 on the line");
    assertEquals(34 * MS, hops.get(4).get("transmission_ns").getAsLong(), "m2 on the line");
    assertEquals(
        List.of(25 * MS, 59 * MS),
        List.of(
            hops.get(2).get("earliest_ns").getAsLong(), hops.get(4).get("earliest_ns").getAsLong()),
        "a frame arrives no sooner than its transmission");
    assertEquals(100 * MS, hops.get(2).get("jitter_ns").getAsLong(), "t4's requests");
    assertEquals(145 * MS, hops.get(4).get("jitter_ns").getAsLong(), "t22's requests");
  }
}
