package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What `kairos keys` makes of a model's channels: a permissions document per Linux node that grants
 * exactly the topics its methods publish and read, none for a sim node, and what it refuses. That
 * the documents work with Cyclone DDS is in the end-to-end tests (tests/e2e/test_dds_security.py).
 */
class KeysCommandTest {
  @TempDir Path temp;

  private static void requireOpenSsl() {
    Assumptions.assumeTrue(
        Stream.of(System.getenv("PATH").split(":"))
            .anyMatch(d -> Files.isExecutable(Path.of(d, "openssl"))),
        "openssl is not installed (make test installs it)");
  }

  /**
   * A sensor publishing a channel that a logger and a display read, on three Linux nodes, the
   * display also publishing one of its own that the logger reads; and a sim node.
   */
  private Path model() throws IOException {
    final Path model = temp.resolve("plant.tmo");
    Files.writeString(
        model,
        "package plant\n"
            + "struct Sample { double value; }\n"
            + "tmo Sensor {\n"
            + "  eac { channel reading : rmmc<Sample> fan-out 2; }\n"
            + "  spm poll for t = from 0 s to forever every 10 ms start-during (t, t + 2 ms)"
            + " finish-by t + 10 ms wcet 100 us publishes reading;\n"
            + "}\n"
            + "tmo Logger {\n"
            + "  eac {\n"
            + "    channel reading : rmmc<Sample> fan-out 2;\n"
            + "    channel shown : rmmc<Sample>;\n"
            + "  }\n"
            + "  spm log for t = from 0 s to forever every 20 ms start-during (t, t + 2 ms)"
            + " finish-by t + 20 ms wcet 100 us reads reading;\n"
            + "  spm note for t = from 0 s to forever every 50 ms start-during (t, t + 2 ms)"
            + " finish-by t + 50 ms wcet 100 us reads shown;\n"
            + "}\n"
            + "tmo Display {\n"
            + "  eac {\n"
            + "    channel reading : rmmc<Sample> fan-out 2;\n"
            + "    channel shown : rmmc<Sample>;\n"
            + "  }\n"
            + "  spm draw for t = from 0 s to forever every 20 ms start-during (t, t + 2 ms)"
            + " finish-by t + 20 ms wcet 100 us reads reading;\n"
            + "  spm tell for t = from 0 s to forever every 50 ms start-during (t, t + 2 ms)"
            + " finish-by t + 50 ms wcet 100 us publishes shown;\n"
            + "}\n"
            + "tmo Idle {\n"
            + "  spm idle for t = from 0 s to forever every 50 ms start-during (t, t + 2 ms)"
            + " finish-by t + 50 ms wcet 100 us;\n"
            + "}\n"
            + "hardware One { cores 1; }\n"
            + "node sensor { hardware One os linux scheduling rms deploy Sensor as sensor }\n"
            + "node logger { hardware One os linux scheduling rms deploy Logger as logger }\n"
            + "node display { hardware One os linux scheduling rms deploy Display as display }\n"
            + "node bench { hardware One os sim scheduling rms deploy Idle as idle }\n"
            + "network lan { latency 100 us; connects sensor, logger, display; }\n");
    return model;
  }

  @Test
  void eachLinuxNodeMayPublishAndReadWhatItsMethodsDoAndNothingElse() throws IOException {
    requireOpenSsl();
    final Path keys = temp.resolve("keys");
    final CliRun run = CliRun.kairos("keys", "-o", keys.toString(), model().toString());
    assertEquals(0, run.exit(), run.err());
    final String sensor = Files.readString(keys.resolve("sensor.permissions.xml"));
    assertTrue(
        sensor.contains("<publish><topics><topic>plant_reading</topic></topics></publish>"),
        sensor);
    assertFalse(sensor.contains("<subscribe>"), sensor);
    final String display = Files.readString(keys.resolve("display.permissions.xml"));
    assertTrue(
        display.contains("<publish><topics><topic>plant_shown</topic></topics></publish>"),
        display);
    assertTrue(
        display.contains("<subscribe><topics><topic>plant_reading</topic></topics></subscribe>"),
        display);
    assertTrue(display.contains("<subject_name>CN=display</subject_name>"), display);
    assertTrue(display.contains("<default>DENY</default>"), display);
    // A sim node's channels do not cross DDS: it gets no identity.
    assertFalse(Files.exists(keys.resolve("bench.pem")));
    assertTrue(run.out().contains("keys: node logger: "), run.out());
    assertTrue(
        run.out().contains("publishes nothing, reads plant_reading, plant_shown"), run.out());
    final String config = Files.readString(keys.resolve("logger.cyclonedds.xml"));
    assertTrue(config.contains("<PrivateKey>file:" + keys + "/logger.key</PrivateKey>"), config);
    assertFalse(Files.exists(keys.resolve("logger.csr")), "no request is left behind");
  }

  @Test
  void wrongArgumentsAreRefusedAndNothingIsMade() throws IOException {
    final Path keys = temp.resolve("keys");
    final CliRun days = CliRun.kairos("keys", "--days", "0", "-o", keys.toString(), "m.tmo");
    assertEquals(2, days.exit());
    assertTrue(days.err().contains("--days must be at least 1, not 0"), days.err());
    final CliRun noOutput = CliRun.kairos("keys", model().toString());
    assertEquals(2, noOutput.exit());
    assertTrue(noOutput.err().contains("--output"), noOutput.err());
    assertFalse(Files.exists(keys));
  }
}
