package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kairos.timing.MessageCapacity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What `kairos check` knows of message sizes: the time the largest request and reply take onto a
 * link with a bandwidth is part of a gate's round trip, and a message larger than the ORB carries
 * is a model error on its operation.
 */
class WireCheckTest {
  @TempDir Path temp;

  private Path write(String name, String text) throws IOException {
    final Path file = temp.resolve(name);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  /** A client whose gate reads a 468-byte block from a server across `network`. */
  private static String blocks(String network) {
    return "package wire\n"
        + "struct Block { octet data[468]; }\n"
        + "interface Store {\n"
        + "  Block fetch(in uint32 index);\n"
        + "}\n"
        + "tmo Server implements Store { svm fetch gct 2 ms wcet 100 us max-rate 50 Hz; }\n"
        + "tmo Client {\n"
        + "  eac { gate store -> Server.fetch deadline 2500 us; }\n"
        + "  spm poll for t = from 0 s to forever every 20 ms"
        + " start-during (t, t + 1 ms) finish-by t + 15 ms wcet 1 ms calls store;\n"
        + "}\n"
        + "node a { os sim endpoint \"tcp:127.0.0.1:7001\" deploy Client as client }\n"
        + "node b { os sim endpoint \"tcp:127.0.0.1:7002\" deploy Server as server }\n"
        + network
        + "\n";
  }

  private static JsonObject gate(CliRun run) {
    final JsonArray gates =
        JsonParser.parseString(run.out()).getAsJsonObject().getAsJsonArray("gates");
    assertEquals(1, gates.size(), run.out());
    return gates.get(0).getAsJsonObject();
  }

  @Test
  void bandwidthMakesAGateMissThatLatencyAloneLetsPass() throws IOException {
    // Without a bandwidth: 2 x (100 us + 50 us) + GCT 2 ms = 2.3 ms <= 2.5 ms, the gate holds.
    final CliRun fast =
        CliRun.kairos(
            "check",
            "--format",
            "json",
            write(
                    "fast.tmo",
                    blocks("network lan { latency 100 us; jitter 50 us; connects a, b; }"))
                .toString());
    assertEquals(0, fast.exit(), fast.all());
    final JsonObject free = gate(fast);
    assertEquals(300_000, free.get("network_ns").getAsLong());
    assertEquals(0, free.get("serialisation_ns").getAsLong());
    assertTrue(free.get("schedulable").getAsBoolean());

    // At 10 Mbps (100 ns a byte) the frames take time onto the wire:
    //   request: a uint32 (4 bytes) + the 32-byte header = 36 bytes = 288 bits -> 28.8 us;
    //   reply: the Block (468 octets) + the header = 500 bytes = 4000 bits -> 400 us.
    // 300 us + 28.8 us + 400 us + 2 ms = 2728.8 us > 2.5 ms: the same gate misses.
    final CliRun slow =
        CliRun.kairos(
            "check",
            "--format",
            "json",
            write(
                    "slow.tmo",
                    blocks(
                        "network lan { latency 100 us; jitter 50 us; bandwidth 10 Mbps;"
                            + " connects a, b; }"))
                .toString());
    assertEquals(1, slow.exit(), slow.all());
    final JsonObject limited = gate(slow);
    assertEquals(300_000, limited.get("network_ns").getAsLong());
    assertEquals(4, limited.get("request_max_bytes").getAsLong());
    assertEquals(468, limited.get("reply_max_bytes").getAsLong());
    assertEquals(28_800 + 400_000, limited.get("serialisation_ns").getAsLong());
    assertTrue(!limited.get("schedulable").getAsBoolean());

    final CliRun text = CliRun.kairos("check", temp.resolve("slow.tmo").toString());
    assertTrue(
        text.out()
            .contains(
                "client.store -> server.fetch: deadline 2500 us, network 300 us, serialisation"
                    + " 428800 ns (request 4 B, reply 468 B, + 32 B header each), GCT 2 ms"),
        text.out());
    assertTrue(text.out().contains("MISSES ITS DEADLINE"), text.out());
  }

  /** An interface whose `put` request carries `bytes` octets. */
  private static String store(int bytes) {
    return "package big\n"
        + "struct Chunk { octet data["
        + bytes
        + "]; }\n"
        + "interface Sink {\n"
        + "  void put(in Chunk chunk);\n"
        + "}\n"
        + "tmo Server implements Sink { svm put gct 2 ms wcet 100 us max-rate 10 Hz; }\n"
        + "node b { os sim deploy Server as server }\n";
  }

  @Test
  void aMessageLargerThanTheOrbCarriesIsAModelErrorOnItsOperation() throws IOException {
    // 8192 bytes: exactly the body capacity of runtime-cpp/capacities.properties, which fits.
    final Path fits = write("fits.tmo", store(8192));
    assertEquals(0, CliRun.kairos("validate", fits.toString()).exit());
    assertEquals(0, CliRun.kairos("check", fits.toString()).exit());

    final Path big = write("big.tmo", store(8193));
    final CliRun validate = CliRun.kairos("validate", big.toString());
    assertEquals(1, validate.exit(), validate.all());
    assertTrue(
        validate
            .out()
            .contains(
                "big.tmo:4:1: error[kairos.message-too-large]: the request of Sink.put may take 8193 bytes, more than the"
                    + " 8192 bytes of message body the runtime's ORB carries"),
        validate.out());
    assertTrue(validate.out().contains("[" + MessageCapacity.MESSAGE_TOO_LARGE + "]"));

    final CliRun json = CliRun.kairos("check", "--format", "json", big.toString());
    assertEquals(1, json.exit(), json.all());
    final JsonObject report = JsonParser.parseString(json.out()).getAsJsonObject();
    assertTrue(!report.get("schedulable").getAsBoolean());
    final JsonObject error = report.getAsJsonArray("errors").get(0).getAsJsonObject();
    assertEquals(4, error.get("line").getAsInt());
    assertTrue(error.get("message").getAsString().contains("request of Sink.put"));

    final CliRun generate =
        CliRun.kairos("generate", big.toString(), "-o", temp.resolve("out").toString());
    assertEquals(1, generate.exit(), generate.all());
    assertTrue(generate.err().contains("nothing generated"), generate.err());
    assertTrue(!Files.exists(temp.resolve("out")), "nothing is written");

    // The diagram takes the same pipeline: it says the error and draws nothing (it drew once).
    final Path svg = temp.resolve("big.svg");
    final CliRun diagram = CliRun.kairos("diagram", big.toString(), "-o", svg.toString());
    assertEquals(1, diagram.exit(), diagram.all());
    assertTrue(diagram.err().contains("error[kairos.message-too-large]"), diagram.err());
    assertTrue(diagram.err().contains("no diagram drawn"), diagram.err());
    assertTrue(!Files.exists(svg), "nothing is drawn");
  }

  @Test
  void repliesAndExceptionsAreCheckedToo() throws IOException {
    final Path model =
        write(
            "answers.tmo",
            "package big\n"
                + "struct Chunk { octet data[9000]; }\n"
                + "exception Dump { Chunk chunk; }\n"
                + "interface Source {\n"
                + "  Chunk get();\n"
                + "  void poke() raises (Dump);\n"
                + "}\n");
    final CliRun run = CliRun.kairos("validate", model.toString());
    assertEquals(1, run.exit(), run.all());
    assertTrue(
        run.out()
            .contains(
                "answers.tmo:5:1: error[kairos.message-too-large]: the reply of Source.get may take 9000"));
    assertTrue(
        run.out()
            .contains(
                "answers.tmo:6:1: error[kairos.message-too-large]: the exception of Source.poke may take 9004"));
  }
}
