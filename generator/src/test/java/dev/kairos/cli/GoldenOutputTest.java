package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.generator.emit.CppGenerator;
import dev.kairos.generator.emit.GeneratedFile;
import dev.kairos.generator.lowering.ModelLowering;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.HolisticAnalysis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The emitters' raw output (before clang-format) for examples/hello, compared with golden files.
 * After an intended change, refresh them with: mvn -pl generator test -Dkairos.updateGolden=true
 */
class GoldenOutputTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  private static final Path GOLDEN = Path.of("src/test/resources/golden/hello");

  @Test
  void helloMatchesTheGoldenFiles() throws Exception {
    final ModelLoader.Loaded loaded =
        ModelLoader.create().load(List.of(REPOSITORY.resolve("examples/hello/hello.tmo")));
    assertFalse(loaded.hasErrors(), loaded.diagnostics().toString());
    final SystemModel system =
        new ModelLowering(uri -> "hello.tmo").lower("hello", loaded.models());
    final CppGenerator.Output output =
        CppGenerator.generate(system, HolisticAnalysis.analyse(system), "../src");

    final boolean update = Boolean.getBoolean("kairos.updateGolden");
    for (GeneratedFile file : output.generated()) {
      final Path golden = GOLDEN.resolve(file.path());
      if (update) {
        Files.createDirectories(golden.getParent());
        Files.writeString(golden, file.content(), StandardCharsets.UTF_8);
        continue;
      }
      assertTrue(Files.exists(golden), "no golden file for " + file.path());
      assertEquals(read(golden), file.content(), "generated " + file.path() + " changed");
    }
    try (var goldenFiles = Files.walk(GOLDEN)) {
      assertEquals(
          output.generated().size(),
          goldenFiles.filter(Files::isRegularFile).count(),
          "golden files without a generated twin");
    }
  }

  private static String read(Path path) throws IOException {
    return Files.readString(path, StandardCharsets.UTF_8);
  }
}
