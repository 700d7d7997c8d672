package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kairos calibrate}: measured times against declared WCETs, the margin, the analysis with
 * measured figures, {@code --update} in the model text, and clear errors for runs that do not fit.
 */
class CalibrateTest {
  @TempDir Path temp;

  /** One node, two methods; canonical layout, with comments that --update must keep. */
  private static final String MODEL =
      """
      package plant

      // The plant's controller.
      tmo Controller {
        ods {
          segment state {
            uint64 ticks;
          }
        }

        // Runs every 10 ms.
        spm control
          for t = from 0 s to forever every 10 ms
          start-during (t, t + 1 ms) finish-by t + 8 ms
          wcet 1 ms criticality hard // measured on the bench in 2025
          uses state write;

        spm log
          for t = from 0 s to forever every 100 ms
          start-during (t, t + 10 ms) finish-by t + 90 ms
          wcet 2 ms criticality soft
          uses state read;
      }

      node cell {
        os linux
        scheduling rms
        deploy Controller as controller
      }
      """;

  private Path write(String name, String text) throws IOException {
    final Path file = temp.resolve(name);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static String method(
      String name, long wcetNs, long overruns, long count, long maxNs, boolean last) {
    return "    {\n"
        + "      \"instance\": \"controller\",\n"
        + "      \"method\": \""
        + name
        + "\",\n"
        + "      \"kind\": \"spm\",\n"
        + "      \"source\": \"plant.tmo:12\",\n"
        + "      \"core\": 0,\n"
        + "      \"criticality\": \"hard\",\n"
        + "      \"wcet_ns\": "
        + wcetNs
        + ",\n"
        + "      \"deadline_ns\": 8000000,\n"
        + "      \"wcet_overruns\": "
        + overruns
        + ",\n"
        + "      \"execution\": {\"count\": "
        + count
        + ", \"max_ns\": "
        + maxNs
        + ", \"p99_ns\": "
        + maxNs
        + ", \"p999_ns\": "
        + maxNs
        + "},\n"
        + "      \"response\": {\"count\": "
        + count
        + ", \"max_ns\": "
        + (maxNs + 50_000)
        + ", \"p99_ns\": "
        + maxNs
        + ", \"p999_ns\": "
        + maxNs
        + "}\n"
        + "    }"
        + (last ? "" : ",")
        + "\n";
  }

  private static String run(String methods) {
    return "{\n  \"format\": \"kairos-timings\",\n  \"version\": 1,\n  \"node\": \"cell\",\n"
        + "  \"complete\": true,\n  \"execution_clock\": \"thread-cpu\",\n"
        + "  \"scheduling\": \"real-time\",\n  \"methods\": [\n"
        + methods
        + "  ]\n}\n";
  }

  @Test
  void modelFixtureIsCanonical() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    final CliRun run = CliRun.kairos("format", "--check", model.toString());
    assertEquals(0, run.exit(), run.all());
  }

  @Test
  void withinWcetsIsOkAndReportsBothAnalyses() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    final Path timings =
        write(
            "run.json",
            run(
                method("control", 1_000_000, 0, 100, 400_000, false)
                    + method("log", 2_000_000, 0, 10, 1_000_000, true)));
    final CliRun run =
        CliRun.kairos("calibrate", model.toString(), timings.toString(), "--format", "json");
    assertEquals(0, run.exit(), run.all());
    final JsonObject report = JsonParser.parseString(run.out()).getAsJsonObject();
    assertTrue(report.get("within_bounds").getAsBoolean());
    final JsonObject control = methodOf(report, "control");
    assertEquals("ok", control.get("verdict").getAsString());
    assertEquals(1_000_000, control.get("declared_wcet_ns").getAsLong());
    // 400 us measured + the default 20% margin
    assertEquals(480_000, control.get("calibrated_wcet_ns").getAsLong());
    assertEquals(400_000, control.getAsJsonObject("execution").get("max_ns").getAsLong());
    // RMS: control (10 ms) runs first, blocked at most once by log, which shares its segment:
    // 1 ms + 2 ms declared, 480 us + 1.2 ms (log's 1 ms + 20%) measured.
    assertEquals(3_000_000, control.get("response_declared_ns").getAsLong());
    assertEquals(1_680_000, control.get("response_measured_ns").getAsLong());
    assertEquals(8_000_000 - 1_680_000, control.get("slack_ns").getAsLong());
    assertEquals(0, report.getAsJsonArray("updates").size());
  }

  @Test
  void marginScalesTheMeasuredMaximum() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    final Path timings =
        write("run.json", run(method("control", 1_000_000, 0, 100, 400_000, true)));
    final CliRun run =
        CliRun.kairos(
            "calibrate", model.toString(), timings.toString(), "--format=json", "--margin=50%");
    assertEquals(0, run.exit(), run.all());
    final JsonObject report = JsonParser.parseString(run.out()).getAsJsonObject();
    assertEquals(600_000, methodOf(report, "control").get("calibrated_wcet_ns").getAsLong());
    // A method no run measured keeps its WCET and says so.
    final JsonObject log = methodOf(report, "log");
    assertEquals("not-measured", log.get("verdict").getAsString());
    assertEquals(2_000_000, log.get("calibrated_wcet_ns").getAsLong());
  }

  @Test
  void exceededWcetIsNamedAndUpdateRewritesOnlyThatWcetKeepingComments() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    final Path timings =
        write(
            "run.json",
            run(
                method("control", 1_000_000, 3, 100, 2_050_000, false)
                    + method("log", 2_000_000, 0, 10, 1_000_000, true)));
    final CliRun report = CliRun.kairos("calibrate", model.toString(), timings.toString());
    assertEquals(1, report.exit(), report.all());
    assertTrue(
        report
            .out()
            .lines()
            .anyMatch(l -> l.contains("controller.control") && l.contains("WCET exceeded")),
        report.out());
    assertTrue(report.out().contains("needs wcet 2.46 ms (declared 1 ms)"), report.out());
    assertEquals(MODEL, Files.readString(model), "without --update the model is not touched");

    final CliRun update =
        CliRun.kairos("calibrate", model.toString(), timings.toString(), "--update");
    assertEquals(1, update.exit(), update.all());
    assertTrue(
        update
            .out()
            .contains(
                "updated " + model + ":15: plant.Controller.control wcet 1 ms ->" + " 2.46 ms"),
        update.out());
    final String expected =
        MODEL.replace("wcet 1 ms criticality hard", "wcet 2.46 ms criticality hard");
    assertEquals(expected, Files.readString(model));
    assertTrue(Files.readString(model).contains("// measured on the bench in 2025"));
    assertEquals(0, CliRun.kairos("format", "--check", model.toString()).exit());

    // The model now holds the measured WCET: the same run is within it.
    final CliRun again = CliRun.kairos("calibrate", model.toString(), timings.toString());
    assertFalse(again.out().contains("WCET exceeded"), again.out());
    assertEquals(0, again.exit(), again.all());
  }

  @Test
  void aLoneRunAboveTheWcetAmongManyIsCalledOutAsPossiblyTheMachines() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    final CliRun lone = calibrateControlAbove(model, 1, 295);
    assertEquals(1, lone.exit(), lone.all());
    assertTrue(
        lone.out().contains("controller.control: 1 run of 295 above its WCET: on a virtual"),
        lone.out());
    assertTrue(lone.out().contains("run again before raising the WCET"), lone.out());

    // Several runs above the WCET, or one among few, are the body's: no such line.
    final CliRun several = calibrateControlAbove(model, 3, 295);
    assertFalse(several.out().contains("run again before"), several.out());
    final CliRun few = calibrateControlAbove(model, 1, 20);
    assertFalse(few.out().contains("run again before"), few.out());
  }

  /** Calibrates `model` with a run whose control went above its 1 ms WCET in `overruns` runs. */
  private CliRun calibrateControlAbove(Path model, long overruns, long runs) throws IOException {
    final Path timings =
        write(
            "run-" + overruns + "-of-" + runs + ".json",
            run(
                method("control", 1_000_000, overruns, runs, 2_900_000, false)
                    + method("log", 2_000_000, 0, Math.max(1, runs / 10), 1_000_000, true)));
    return CliRun.kairos("calibrate", model.toString(), timings.toString());
  }

  @Test
  void onlyChoosesWhichExceededWcetsUpdateRewrites() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    // Both methods exceed their WCETs: control (1 ms) took 2.05 ms, log (2 ms) 2.5 ms.
    final Path timings =
        write(
            "run.json",
            run(
                method("control", 1_000_000, 3, 100, 2_050_000, false)
                    + method("log", 2_000_000, 2, 10, 2_500_000, true)));
    final CliRun update =
        CliRun.kairos(
            "calibrate",
            model.toString(),
            timings.toString(),
            "--update",
            "--only",
            "Controller.log",
            "--only",
            "Controller.steer");
    assertTrue(update.out().contains("plant.Controller.log wcet 2 ms -> 3 ms"), update.all());
    assertFalse(update.out().contains("plant.Controller.control wcet"), update.all());
    assertTrue(update.out().contains("note: --only Controller.steer: no wcet"), update.all());
    final String written = Files.readString(model);
    assertTrue(written.contains("wcet 1 ms criticality hard"), written);
    assertTrue(written.contains("wcet 3 ms criticality soft"), written);

    final CliRun withoutUpdate =
        CliRun.kairos(
            "calibrate", model.toString(), timings.toString(), "--only", "Controller.log");
    assertEquals(2, withoutUpdate.exit(), withoutUpdate.all());
    assertTrue(withoutUpdate.err().contains("give --update"), withoutUpdate.all());
  }

  @Test
  void measuredFiguresThatBreakADeadlineAreUnschedulable() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    // 7 ms measured (+20%: 8.4 ms) on a method due 8 ms after its window opens.
    final Path timings =
        write("run.json", run(method("control", 1_000_000, 50, 100, 7_000_000, true)));
    final CliRun run =
        CliRun.kairos("calibrate", model.toString(), timings.toString(), "--format", "json");
    assertEquals(1, run.exit(), run.all());
    final JsonObject report = JsonParser.parseString(run.out()).getAsJsonObject();
    assertFalse(report.get("schedulable_measured").getAsBoolean());
    assertTrue(report.get("schedulable_declared").getAsBoolean());
    assertEquals("unschedulable", methodOf(report, "control").get("verdict").getAsString());
    assertTrue(methodOf(report, "control").get("wcet_exceeded").getAsBoolean());
  }

  @Test
  void runsThatDoNotFitAreClearErrorsWithTheirLine() throws IOException {
    final Path model = write("plant.tmo", MODEL);
    final Path unknown = write("unknown.json", run(method("steer", 1_000_000, 0, 1, 1_000, true)));
    CliRun run = CliRun.kairos("calibrate", model.toString(), unknown.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(
        run.err()
            .contains(unknown + ":9: controller.steer is not a spontaneous method of node cell"),
        run.err());

    final Path otherNode = write("other.json", run("").replace("\"cell\"", "\"press\""));
    run = CliRun.kairos("calibrate", model.toString(), otherNode.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(
        run.err().contains(otherNode + ":4: node press is not a node of the model"), run.err());

    final Path truncated = write("truncated.json", run("").substring(0, 60));
    run = CliRun.kairos("calibrate", model.toString(), truncated.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains(truncated + ":4: "), run.err());

    final Path negative = write("negative.json", run(method("control", 1_000_000, 0, 1, -5, true)));
    run = CliRun.kairos("calibrate", model.toString(), negative.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains(negative + ":19: \"max_ns\" must not be negative"), run.err());

    run = CliRun.kairos("calibrate", model.toString(), unknown.toString(), "--margin", "-5%");
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains("--margin -5%: give a percentage"), run.err());

    run = CliRun.kairos("calibrate", model.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains("at least one timings file"), run.err());

    run = CliRun.kairos("calibrate", model.toString(), temp.resolve("missing.json").toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains("no such file or directory"), run.err());

    run = CliRun.kairos("calibrate", model.toString(), write("notes.txt", "x").toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains("neither a model (.tmo) nor a timings file"), run.err());
  }

  private static JsonObject methodOf(JsonObject report, String method) {
    for (var element : report.getAsJsonArray("methods")) {
      if (element.getAsJsonObject().get("method").getAsString().equals(method)) {
        return element.getAsJsonObject();
      }
    }
    throw new AssertionError("no method " + method + " in " + report);
  }
}
