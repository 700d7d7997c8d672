package dev.kairos.generator.lowering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.Platform.Overheads;
import dev.kairos.ir.Platform.PlatformFile;
import dev.kairos.ir.SourceRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlatformFilesTest {
  private static final SourceRef CLAUSE = new SourceRef("lab.tmo", 3);

  private static final String PROBED =
      """
      {
        "format": "kairos-platform/1",
        "measured_at": "2026-11-23T21:24:16Z",
        "measured_by": "kairos-probe",
        "kernel": "Linux 6.1.0",
        "cpu_model": "AMD EPYC",
        "cpu": 1,
        "scheduling": "real-time",
        "duration_ns": 10000000000,
        "release_lateness_ns": {"samples": 10000, "p50": 15752, "p99": 25824, "p99.9": 77145, "max": 149922},
        "context_switch_ns": {"samples": 20000, "p50": 3822, "p99": 5204, "p99.9": 17387, "max": 35862},
        "ceiling_lock_ns": {"samples": 2000, "p50": 2856, "p99": 4029, "p99.9": 4370, "max": 4518},
        "clock_read_ns": {"samples": 2000, "p50": 26, "p99": 40, "p99.9": 51, "max": 67}
      }
      """;

  @TempDir Path directory;

  private PlatformFile read(String text) throws IOException {
    Files.writeString(directory.resolve("lab.platform.json"), text);
    return PlatformFiles.read("lab.platform.json", Optional.of(directory), CLAUSE);
  }

  @Test
  void aProbedFileGivesTheLargestOfEachFigureAndWhereItCameFrom() throws IOException {
    final PlatformFile file = read(PROBED);
    assertEquals("", file.problem());
    assertEquals(
        Optional.of(
            new Overheads(
                "2026-11-23T21:24:16Z",
                "kairos-probe",
                "AMD EPYC",
                "real-time",
                149_922,
                35_862,
                4_518,
                17_387,
                4_370,
                0,
                0,
                0,
                0,
                0,
                0,
                0)),
        file.overheads());
    assertEquals(CLAUSE, file.source());
  }

  /** A probe built with Cyclone DDS adds the channel transport, read like the other figures. */
  @Test
  void theChannelTransportIsReadWhereTheProbeMeasuredIt() throws IOException {
    final String withTransport =
        PROBED.replace(
            "\"clock_read_ns\"",
            "\"channel_transport_ns\": {\"samples\": 2000, \"p50\": 61000, \"p99\": 90000,"
                + " \"p99.9\": 180000, \"max\": 420000},\n  \"clock_read_ns\"");
    final Overheads overheads = read(withTransport).overheads().orElseThrow();
    assertEquals(420_000, overheads.channelTransportNs());
    assertEquals(180_000, overheads.channelTransportP999Ns());
  }

  @Test
  void aFileThatCannotServeIsKeptWithTheReason() throws IOException {
    assertProblem(
        PlatformFiles.read("absent.json", Optional.of(directory), CLAUSE), "does not exist");
    assertProblem(read("{\"format\": \"kairos-platform/1\""), "is not valid JSON");
    assertProblem(read("[1, 2]"), "is not a JSON object");
    assertProblem(read("{\"format\": \"other/1\"}"), "is not a platform file");
    assertProblem(read(PROBED.replace("\"max\": 35862", "\"top\": 35862")), "context_switch_ns");
    assertProblem(read(PROBED.replace("\"max\": 4518", "\"max\": -1")), "negative");
    assertProblem(read(PROBED.replace("\"max\": 4518", "\"max\": 4.5")), "whole number");
    assertProblem(
        PlatformFiles.read("relative.json", Optional.empty(), CLAUSE), "relative path has no base");
  }

  @Test
  void aProbeThatMeasuredTheHandoffAndTheOrbCallGivesThemToo() throws IOException {
    final String newer =
        PROBED.replace(
            "\"clock_read_ns\"",
            """
            "dispatch_handoff_ns": {"samples": 2000, "p50": 5100, "p99": 9800, "p99.9": 30100, \
            "max": 61200},
            "orb_call_ns": {"samples": 5000, "p50": 21000, "p99": 35000, "p99.9": 48000, \
            "max": 400000},
            "clock_read_ns\"""");
    final Overheads overheads = read(newer).overheads().orElseThrow();
    assertEquals(61_200, overheads.dispatchHandoffNs());
    assertEquals(400_000, overheads.orbCallNs());
    assertEquals(48_000, overheads.orbCallP999Ns());
    // An older probe's file has neither: nothing is charged for them.
    assertEquals(0, read(PROBED).overheads().orElseThrow().orbCallP999Ns());
    assertProblem(read(newer.replace("\"max\": 400000", "\"top\": 400000")), "orb_call_ns");
  }

  private static void assertProblem(PlatformFile file, String expected) {
    assertTrue(file.overheads().isEmpty(), file.toString());
    assertTrue(file.problem().contains(expected), file.problem());
    assertTrue(PlatformFiles.message(file).startsWith("platform file '"), file.problem());
  }
}
