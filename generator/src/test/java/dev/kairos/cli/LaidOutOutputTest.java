package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.generator.emit.ClangFormat;
import dev.kairos.generator.emit.CppGenerator;
import dev.kairos.generator.emit.GeneratedFile;
import dev.kairos.generator.lowering.ModelLowering;
import dev.kairos.ir.SystemModel;
import dev.kairos.timing.HolisticAnalysis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Files the generator does not hand to clang-format (schedule tables, servant bases, starters) are
 * laid out by their emitters exactly as clang-format would lay them out: for every example and for
 * a model with long names, clang-format leaves them unchanged.
 */
class LaidOutOutputTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  @Test
  void emittersLayOutTheirFilesAsClangFormatWould() throws Exception {
    // The pinned clang-format that kairos generate uses (installed by make setup).
    final ClangFormat clangFormat = ClangFormat.pinned(null);
    final List<Path> models = new ArrayList<>();
    try (var examples = Files.walk(REPOSITORY.resolve("examples"))) {
      examples.filter(p -> p.toString().endsWith(".tmo")).sorted().forEach(models::add);
    }
    models.add(longNames());
    int checked = 0;
    for (Path model : models) {
      final ModelLoader.Loaded loaded = ModelLoader.create().load(List.of(model));
      assertFalse(loaded.hasErrors(), model + ": " + loaded.diagnostics());
      final SystemModel system =
          new ModelLowering(uri -> model.getFileName().toString())
              .lower(model.getFileName().toString(), loaded.models());
      final CppGenerator.Output output =
          CppGenerator.generate(system, HolisticAnalysis.analyse(system), "../src");
      final List<GeneratedFile> laidOut = new ArrayList<>();
      for (GeneratedFile file : output.generated()) {
        if (file.isCpp() && !file.needsFormatting()) {
          laidOut.add(file);
        }
      }
      for (GeneratedFile file : output.userStarters()) {
        if (!file.needsFormatting()) {
          laidOut.add(file);
        }
      }
      final List<String> formatted =
          clangFormat.formatAll(
              laidOut.stream().map(GeneratedFile::path).toList(),
              laidOut.stream().map(GeneratedFile::content).toList());
      for (int i = 0; i < laidOut.size(); i++) {
        assertEquals(
            formatted.get(i),
            laidOut.get(i).content(),
            model.getFileName() + ": " + laidOut.get(i).path() + " differs from clang-format");
        checked++;
      }
    }
    assertTrue(checked >= 20, "only " + checked + " laid-out files checked");
  }

  /** Names long enough to make every comment wrap and some rows pass the column limit. */
  private static Path longNames() throws Exception {
    final String tmo = "AVeryLongTimeTriggeredMessageTriggeredObjectName";
    final String text =
        "package a.rather.deeply.nested.package_name\n"
            + "tmo "
            + tmo
            + " {\n"
            + "  ods { segment a_segment_with_a_remarkably_long_descriptive_name { uint64 n; } }\n"
            + "  spm a_spontaneous_method_with_a_very_long_name_indeed\n"
            + "    for t = from 1500 ms to 3600 s every 123456 us\n"
            + "    start-during (t + 250 us, t + 1750 us) finish-by t + 99 ms\n"
            + "    wcet 1234 us criticality soft uses"
            + " a_segment_with_a_remarkably_long_descriptive_name write;\n"
            + "  spm second for t = from 0 s to forever every 7 ms start-during (t, t + 1 ms)"
            + " finish-by t + 7 ms wcet 10 us;\n"
            + "  svm a_service_method_with_a_long_name gct 20 ms wcet 2 ms criticality soft"
            + " max-rate 10 Hz uses a_segment_with_a_remarkably_long_descriptive_name read;\n"
            + "}\n"
            + "node a_node_with_quite_a_long_name_for_a_node { os sim scheduling muf deploy "
            + tmo
            + " as an_instance_with_a_long_name_too }\n";
    final Path dir = Files.createTempDirectory("kairos-layout");
    final Path model = dir.resolve("long_names.tmo");
    Files.writeString(model, text);
    return model;
  }
}
