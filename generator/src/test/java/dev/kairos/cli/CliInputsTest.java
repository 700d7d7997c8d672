package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.generator.emit.ClangFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input on the command line: clear messages, the right exit code, never a stack trace. */
class CliInputsTest {
  @TempDir Path temp;

  private Path write(String name, String text) throws IOException {
    final Path file = temp.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static String worker(String pkg, String node) {
    return "package "
        + pkg
        + "\ntmo Worker { spm run for t = from 0 s to forever every 10 ms"
        + " start-during (t, t + 1 ms) finish-by t + 10 ms wcet 1 ms; }\n"
        + "node "
        + node
        + " { os sim deploy Worker as worker }\n";
  }

  @Test
  void equalNamesInDifferentPackagesGetTheirOwnFiles() throws IOException {
    final Path a = write("geo.tmo", worker("geo", "a"));
    final Path b = write("nav.tmo", worker("nav", "b"));
    final Path out = temp.resolve("out");
    final CliRun run =
        CliRun.kairos(
            "generate",
            "-o",
            out.toString(),
            "--impl",
            temp.resolve("impl").toString(),
            a.toString(),
            b.toString());
    assertEquals(0, run.exit(), run.all());
    for (String path :
        List.of("out/geo/Worker.base.hpp", "out/nav/Worker.base.hpp", "impl/geo/Worker.cpp")) {
      assertTrue(Files.isRegularFile(temp.resolve(path)), path + "\n" + run.all());
    }
    final String geo = Files.readString(out.resolve("geo/Worker.base.hpp"));
    assertTrue(geo.contains("namespace geo {"), geo);
    assertTrue(Files.readString(out.resolve("a.node.cpp")).contains("#include \"geo/Worker.hpp\""));
    assertTrue(
        Files.readString(out.resolve("CMakeLists.txt"))
            .contains("${KAIROS_IMPL_DIR}/nav/Worker.cpp"));
  }

  @Test
  void generateRefusesTwoFilesOnOnePath() throws IOException {
    // Without a package, the starter of TMO `types` is types.hpp: in the output directory (here
    // also the directory of hand-written code) that is the generated types.hpp.
    final Path model =
        write(
            "m.tmo",
            "tmo types { svm get gct 1 ms wcet 100 us max-rate 10 Hz; }\n"
                + "node n { os sim deploy types as t }\n");
    final Path out = temp.resolve("out");
    final CliRun run =
        CliRun.kairos("generate", "-o", out.toString(), "--impl", out.toString(), model.toString());
    assertEquals(1, run.exit(), run.all());
    assertTrue(run.err().contains("two generated files would be written to"), run.err());
    assertTrue(run.err().contains("types.hpp"), run.err());
    assertFalse(Files.exists(out), "nothing may be written");
  }

  @Test
  void generatingAnUnschedulableModelAnywaySaysWhatIsNotSchedulable() throws IOException {
    // Two methods of 6 ms every 10 ms: node n cannot keep their deadlines.
    final String spm =
        " for t = from 0 s to forever every 10 ms start-during (t, t + 10 ms) finish-by t + 10 ms"
            + " wcet 6 ms;";
    final Path model =
        write(
            "late.tmo",
            "tmo Worker { spm run"
                + spm
                + " spm walk"
                + spm
                + " }\nnode n { os sim deploy Worker as worker }\n");
    final Path out = temp.resolve("out");
    final CliRun refused =
        CliRun.kairos("generate", "-o", out.toString(), "--impl", out.toString(), model.toString());
    assertEquals(1, refused.exit(), refused.all());
    final CliRun anyway =
        CliRun.kairos(
            "generate",
            "--allow-unschedulable",
            "-o",
            out.toString(),
            "--impl",
            out.toString(),
            model.toString());
    assertEquals(0, anyway.exit(), anyway.all());
    assertTrue(
        anyway
            .err()
            .contains(
                "kairos: warning: the model is not schedulable (node n); generated anyway, as"
                    + " --allow-unschedulable asks"),
        anyway.err());
  }

  @Test
  void anOutputThatIsAFileIsAUsageError() throws IOException {
    final Path model = write("m.tmo", worker("p", "n"));
    final Path file = write("taken", "not a directory");
    final CliRun run = CliRun.kairos("generate", "-o", file.toString(), model.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(run.err().contains("-o " + file + ": exists and is not a directory"), run.err());
  }

  @Test
  void aDirectoryGivenAsAModelSaysSo() throws IOException {
    final Path directory = Files.createDirectories(temp.resolve("models.tmo"));
    final CliRun run = CliRun.kairos("validate", directory.toString());
    assertEquals(2, run.exit());
    assertTrue(run.err().contains(directory + " is a directory, not a model file"), run.err());
  }

  @Test
  void binaryFilesAndOtherEncodingsSaySo() throws IOException {
    final Path binary = temp.resolve("image.tmo");
    Files.write(binary, new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13});
    final CliRun run = CliRun.kairos("validate", binary.toString());
    assertEquals(1, run.exit(), run.all());
    assertEquals(
        binary
            + ":1:5: error[kairos.invalid-encoding]: this is not a text file: it holds binary data"
            + " (a NUL byte here); a model is UTF-8 text",
        run.out().strip());

    final Path latin1 = temp.resolve("latin1.tmo");
    Files.write(
        latin1,
        "struct A { double x; }\n// Gr\u00fc\u00dfe\n".getBytes(StandardCharsets.ISO_8859_1));
    final CliRun encoded = CliRun.kairos("validate", latin1.toString());
    assertEquals(1, encoded.exit(), encoded.all());
    assertTrue(
        encoded
            .out()
            .contains(
                ":2:6: error[kairos.invalid-encoding]: this file is not UTF-8 text (the byte 0xFC"
                    + " starts no UTF-8 character); save it as UTF-8"),
        encoded.out());
  }

  @Test
  void anEmptyModelIsAWarning() throws IOException {
    final CliRun run = CliRun.kairos("validate", write("empty.tmo", "// nothing yet\n").toString());
    assertEquals(0, run.exit(), run.all());
    assertTrue(
        run.out()
            .contains(
                "empty.tmo:1:1: warning[kairos.empty-model]: this file declares nothing (no types,"
                    + " interfaces, TMOs or platform)"),
        run.out());
  }

  @Test
  void theNumberOfDiagnosticsPrintedIsCapped() throws IOException {
    final StringBuilder text = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      text.append("struct S").append(i).append(" { Missing m; }\n");
    }
    final Path model = write("many.tmo", text.toString());
    final CliRun capped = CliRun.kairos("validate", model.toString());
    assertEquals(1, capped.exit());
    // Each diagnostic is its headline, its source line and the underline.
    final List<String> lines = capped.out().lines().toList();
    assertEquals(151, lines.size(), capped.out());
    assertEquals(50, lines.stream().filter(l -> l.contains(": error[kairos.")).count());
    assertEquals(
        "... and 10 more (60 errors, 0 warnings in total; see --max-diagnostics)", lines.get(150));
    assertTrue(capped.err().contains("60 error(s)"), capped.err());

    final CliRun five = CliRun.kairos("validate", "--max-diagnostics", "5", model.toString());
    assertEquals(16, five.out().lines().count(), five.out());

    final CliRun json = CliRun.kairos("check", "--format", "json", model.toString());
    assertEquals(60, json.out().split("\"message\"", -1).length - 1, json.out());

    assertEquals(2, CliRun.kairos("validate", "--max-diagnostics", "-1", model.toString()).exit());
  }

  @Test
  void constantBoundsExponentsAndEnumConstantsReachTheGeneratedTypes() throws IOException {
    final Path model =
        write(
            "k.tmo",
            "package k\nconst uint32 N = 16;\nconst double EPS = 1.5e-3;\n"
                + "enum Mode { CRUISE, COMBAT }\nconst Mode START = COMBAT;\n"
                + "struct S { sequence<uint8, N> xs; string<N> name; double m[N]; }\n"
                + "tmo T { ods { segment s { S last; } }"
                + " svm get gct 1 ms wcet 100 us max-rate 10 Hz uses s read; }\n"
                + "node n { os sim deploy T as t }\n");
    final Path out = temp.resolve("out");
    final CliRun run =
        CliRun.kairos(
            "generate",
            "-o",
            out.toString(),
            "--impl",
            temp.resolve("impl").toString(),
            model.toString());
    assertEquals(0, run.exit(), run.all());
    final String types = Files.readString(out.resolve("types.hpp"));
    for (String expected :
        List.of(
            "::kairos::BoundedSequence<::std::uint8_t, 16> xs{};",
            "::kairos::BoundedString<16> name{};",
            "::std::array<double, 16> m{};",
            "inline constexpr double EPS = 1.5e-3;",
            "inline constexpr ::k::Mode START = ::k::Mode::COMBAT;")) {
      assertTrue(types.contains(expected), expected + " in\n" + types);
    }
  }

  @Test
  void generateRefusesAClangFormatOfAnotherVersionAndWritesNothing() throws IOException {
    final Path model = write("w.tmo", worker("w", "n"));
    final Path other = write("bin/clang-format", "#!/bin/sh\necho 'clang-format version 15.0.7'\n");
    assertTrue(other.toFile().setExecutable(true));
    final Path out = temp.resolve("out");
    final CliRun run =
        CliRun.kairos(
            "generate",
            "-o",
            out.toString(),
            "--impl",
            temp.resolve("impl").toString(),
            "--clang-format",
            other.toString(),
            model.toString());
    assertEquals(2, run.exit(), run.all());
    assertTrue(
        run.err()
            .contains(
                "is clang-format 15.0.7, but generated C++ is formatted with clang-format "
                    + ClangFormat.VERSION
                    + " only"),
        run.err());
    assertTrue(run.err().contains("kairos: nothing generated"), run.err());
    assertFalse(Files.exists(out), "wrote " + out);
    assertFalse(Files.exists(temp.resolve("impl")), "wrote starters");

    final CliRun missing =
        CliRun.kairos(
            "generate",
            "-o",
            out.toString(),
            "--clang-format",
            temp.resolve("no-such-clang-format").toString(),
            model.toString());
    assertEquals(2, missing.exit(), missing.all());
    assertTrue(missing.err().contains("no-such-clang-format: no such executable"), missing.err());
  }
}
