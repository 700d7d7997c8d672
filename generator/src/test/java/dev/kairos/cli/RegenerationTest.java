package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generating again after the model changed: the manifest removes what is no longer generated and
 * nothing else, hand-written code is never touched, and `--outputs`/`--depfile` tell a build system
 * what a run writes and reads.
 */
class RegenerationTest {
  @TempDir Path temp;

  /** One TMO with an SvM (so an interface file too) deployed on one node. */
  private static String model(String pkg, String node, String extraMethods) {
    return "package "
        + pkg
        + "\ninterface Counter {\n  uint32 count();\n}\n"
        + "tmo Worker implements Counter {\n"
        + "  ods { segment state { uint32 runs; } }\n"
        + "  spm run for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms)"
        + " finish-by t + 10 ms wcet 1 ms uses state write;\n"
        + "  svm count gct 10 ms wcet 100 us criticality soft max-rate 10 Hz uses state read;\n"
        + extraMethods
        + "}\n"
        + "node "
        + node
        + " {\n  os linux\n  deploy Worker as worker\n}\n";
  }

  private Path write(String name, String text) throws IOException {
    final Path file = temp.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private CliRun generate(Path model, String... more) {
    final List<String> args =
        new ArrayList<>(
            List.of(
                "generate",
                model.toString(),
                "-o",
                temp.resolve("out").toString(),
                "--impl",
                temp.resolve("impl").toString()));
    args.addAll(List.of(more));
    final CliRun run = CliRun.kairos(args.toArray(String[]::new));
    assertEquals(0, run.exit(), run.all());
    return run;
  }

  /** Every file below the directory, relative, with forward slashes. */
  private static Set<String> files(Path root) throws IOException {
    try (var walk = Files.walk(root)) {
      final Set<String> files = new TreeSet<>();
      walk.filter(Files::isRegularFile)
          .forEach(f -> files.add(root.relativize(f).toString().replace('\\', '/')));
      return files;
    }
  }

  @Test
  void aRenamedNodeAndPackageLeaveNothingBehindAndHandWrittenCodeStays() throws IOException {
    final Path model = write("plant.tmo", model("plant", "controller", ""));
    generate(model);
    final Path out = temp.resolve("out");
    assertEquals(
        Set.of(
            "CMakeLists.txt",
            "controller.main.cpp",
            "controller.node.cpp",
            "controller.node.hpp",
            "controller.schedule.hpp",
            "kairos.manifest",
            "plant/Counter.cdr.hpp",
            "plant/Worker.base.hpp",
            "types.cdr.hpp",
            "types.hpp"),
        files(out));
    final String manifest = Files.readString(out.resolve("kairos.manifest"));
    assertTrue(manifest.startsWith("# "), manifest);
    assertTrue(manifest.contains("\ncontroller.main.cpp\n"), manifest);
    // The user's own body, and a file of theirs that happens to lie in the output directory.
    final Path body = temp.resolve("impl/plant/Worker.cpp");
    Files.writeString(body, Files.readString(body) + "// the user's work\n");
    Files.writeString(out.resolve("notes.txt"), "mine\n");

    Files.writeString(model, model("factory", "regulator", ""));
    final CliRun second = generate(model);
    assertEquals(
        Set.of(
            "CMakeLists.txt",
            "factory/Counter.cdr.hpp",
            "factory/Worker.base.hpp",
            "kairos.manifest",
            "notes.txt",
            "regulator.main.cpp",
            "regulator.node.cpp",
            "regulator.node.hpp",
            "regulator.schedule.hpp",
            "types.cdr.hpp",
            "types.hpp"),
        files(out),
        second.all());
    assertFalse(Files.exists(out.resolve("plant")), "the emptied package folder is removed");
    assertTrue(second.out().contains("removed   "), second.out());
    assertTrue(second.out().lines().anyMatch(l -> l.matches("removed +.*controller\\.main\\.cpp")));
    // Starters are the user's: the old package's stay as they were, the new one gets its own.
    assertTrue(Files.readString(body).endsWith("// the user's work\n"));
    assertTrue(Files.isRegularFile(temp.resolve("impl/factory/Worker.cpp")));
  }

  @Test
  void aManifestNamingFilesOutsideTheOutputRemovesNothingThere() throws IOException {
    final Path model = write("plant.tmo", model("plant", "controller", ""));
    final Path outside = write("precious.txt", "keep\n");
    final Path out = temp.resolve("out");
    write(
        "out/kairos.manifest",
        "# damaged\n../precious.txt\n"
            + outside.toAbsolutePath()
            + "\nplant/../../precious.txt\n\nstale.hpp\n");
    write("out/stale.hpp", "// generated once\n");
    generate(model);
    assertTrue(Files.isRegularFile(outside));
    assertFalse(Files.exists(out.resolve("stale.hpp")), "a stale file inside is removed");
    assertFalse(Files.readString(out.resolve("kairos.manifest")).contains(".."));
  }

  @Test
  void outputsAndDepfileDescribeWhatARunWritesAndReads() throws IOException {
    final Path model = write("my models/plant.tmo", model("plant", "controller", ""));
    final Path outputs = temp.resolve("state/plant.outputs.json");
    final Path depfile = temp.resolve("state/plant.d");
    generate(model, "--outputs", outputs.toString(), "--depfile", depfile.toString());
    final Path out = temp.resolve("out").toAbsolutePath();
    final Path impl = temp.resolve("impl").toAbsolutePath();

    final JsonObject json = JsonParser.parseString(Files.readString(outputs)).getAsJsonObject();
    assertEquals(
        List.of(model.toAbsolutePath().toString()), strings(json.getAsJsonArray("models")));
    assertEquals(out.toString(), json.get("output_dir").getAsString());
    assertEquals(impl.toString(), json.get("impl_dir").getAsString());
    final Set<String> generated = new TreeSet<>(strings(json.getAsJsonArray("generated")));
    final Set<String> written = new TreeSet<>();
    files(out).forEach(f -> written.add(out.resolve(f).toString()));
    written.remove(json.get("manifest").getAsString());
    assertEquals(written, generated, "every file generated, and only those");
    assertEquals(
        List.of(
            impl.resolve("plant/Worker.hpp").toString(),
            impl.resolve("plant/Worker.cpp").toString()),
        strings(json.getAsJsonArray("starters")));
    final JsonArray nodes = json.getAsJsonArray("nodes");
    assertEquals(1, nodes.size());
    final JsonObject node = nodes.get(0).getAsJsonObject();
    assertEquals("controller", node.get("name").getAsString());
    assertEquals("linux", node.get("os").getAsString());
    // The same sources as the generated CMakeLists.txt compiles: both come from FileLayout.
    final List<String> listed = new ArrayList<>();
    strings(node.getAsJsonArray("sources"))
        .forEach(s -> listed.add(out.relativize(Path.of(s)).toString()));
    strings(node.getAsJsonArray("user_sources"))
        .forEach(s -> listed.add("${KAIROS_IMPL_DIR}/" + impl.relativize(Path.of(s))));
    assertEquals(
        executableSources(Files.readString(out.resolve("CMakeLists.txt")), "controller"), listed);

    final String dependencies = Files.readString(depfile);
    assertTrue(
        dependencies.startsWith(
            outputs.toAbsolutePath().toString().replace(" ", "\\ ") + ": \\\n  "),
        dependencies);
    assertTrue(
        dependencies.contains(model.toAbsolutePath().toString().replace(" ", "\\ ")), dependencies);

    // A change of content only leaves the list as it was; a renamed node changes it.
    final String before = Files.readString(outputs);
    final var stamp = Files.getLastModifiedTime(outputs);
    Files.writeString(model, model("plant", "controller", "").replace("10 Hz", "20 Hz"));
    generate(model, "--outputs", outputs.toString(), "--depfile", depfile.toString());
    assertEquals(before, Files.readString(outputs));
    assertEquals(stamp, Files.getLastModifiedTime(outputs), "rewritten without a change");
    Files.writeString(model, model("plant", "regulator", ""));
    generate(model, "--outputs", outputs.toString());
    assertTrue(Files.readString(outputs).contains("regulator.main.cpp"));
    assertFalse(Files.readString(outputs).contains("controller"));
  }

  @Test
  void outputsThatNameADirectoryAreAUsageError() throws IOException {
    final Path model = write("plant.tmo", model("plant", "controller", ""));
    final Path directory = Files.createDirectories(temp.resolve("a-directory"));
    for (String option : List.of("--outputs", "--depfile")) {
      final CliRun run =
          CliRun.kairos(
              "generate",
              model.toString(),
              "-o",
              temp.resolve("out").toString(),
              option,
              directory.toString());
      assertEquals(KairosCli.USAGE, run.exit(), run.all());
      assertTrue(run.err().contains(option + " " + directory + ": is a directory"), run.err());
      assertFalse(Files.exists(temp.resolve("out")), "nothing generated");
    }
  }

  @Test
  void methodsTheModelAddsOrDropsAreNamedWithTheFilesToChange() throws IOException {
    final Path model = write("plant.tmo", model("plant", "controller", ""));
    final CliRun first = generate(model);
    assertFalse(first.err().contains("warning"), first.err());

    final String pause =
        "  spm pause for t = from 0 s to forever every 20 ms start-during (t, t + 5 ms)"
            + " finish-by t + 20 ms wcet 1 ms;\n";
    Files.writeString(model, model("plant", "controller", pause));
    final CliRun added = generate(model);
    final String header = temp.resolve("impl/plant/Worker.hpp").toString();
    final String source = temp.resolve("impl/plant/Worker.cpp").toString();
    assertTrue(
        added
            .err()
            .contains(
                model
                    + ":9: warning: spm pause is not declared in "
                    + header
                    + ": add `void pause() override;` to the class there and its body to "
                    + source),
        added.err());

    // The model drops the SpM `run` (and the hand-written class still overrides it).
    Files.writeString(
        model, model("plant", "controller", pause).replaceFirst("  spm run [^\n]*\n", ""));
    final CliRun dropped = generate(model);
    assertTrue(
        dropped
            .err()
            .contains(
                model
                    + ":5: warning: tmo Worker has no method run any more, but "
                    + header
                    + " still declares run(...) override: remove it there and its body from "
                    + source),
        dropped.err());
  }

  /**
   * The sources of kairos_node_executable(<target> ...) in a CMakeLists.txt, generated and bodies,
   * one per line there.
   */
  private static List<String> executableSources(String cmake, String target) {
    final List<String> sources = new ArrayList<>();
    boolean inside = false;
    for (String line : cmake.lines().toList()) {
      final String item = line.strip();
      if (line.startsWith("kairos_node_executable(" + target + " ")) {
        inside = true;
      } else if (inside && item.equals(")")) {
        return sources;
      } else if (inside
          && !item.equals("GENERATED")
          && !item.equals("BODIES")
          && !item.startsWith("INCLUDE_DIRECTORIES ")) {
        sources.add(item);
      }
    }
    throw new AssertionError("no kairos_node_executable(" + target + " in\n" + cmake);
  }

  private static List<String> strings(JsonArray array) {
    final List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.getAsString()));
    return values;
  }
}
