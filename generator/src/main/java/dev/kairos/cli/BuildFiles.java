package dev.kairos.cli;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.kairos.generator.emit.FileLayout;
import dev.kairos.generator.emit.GeneratedFile;
import dev.kairos.generator.emit.OutputWriter;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a build system needs to run `kairos generate` as a build step: the files a run writes, so
 * they can be the step's declared outputs and each node's sources (`--outputs`, JSON), and the
 * files it reads, so the step runs again when one of them changes (`--depfile`, Make syntax).
 * CMake's {@code kairos_generate()} reads both. Paths in them are absolute: they describe one build
 * on one machine and are never part of the generated code.
 */
final class BuildFiles {
  private BuildFiles() {}

  /** Describes one generated system: where it is, and what each node compiles. */
  record Generation(
      SystemModel system,
      List<Path> models,
      Path outputDir,
      Path implDir,
      List<GeneratedFile> generated,
      List<GeneratedFile> starters) {}

  /**
   * The `--outputs` list as JSON. It changes only when the set of files does (a node, TMO or
   * interface added, removed or renamed), not when their content does, so a build system may
   * reconfigure on its change alone.
   */
  static String outputs(Generation generation) {
    final Path out = generation.outputDir();
    final Path impl = generation.implDir();
    final JsonObject root = new JsonObject();
    root.add("models", strings(generation.models().stream().map(BuildFiles::absolute).toList()));
    root.addProperty("output_dir", absolute(out));
    root.addProperty("impl_dir", absolute(impl));
    root.addProperty("manifest", absolute(out.resolve(FileLayout.MANIFEST)));
    root.add(
        "generated",
        strings(
            generation.generated().stream().map(f -> absolute(out.resolve(f.path()))).toList()));
    root.add(
        "starters",
        strings(
            generation.starters().stream().map(f -> absolute(impl.resolve(f.path()))).toList()));
    final JsonArray nodes = new JsonArray();
    for (Node node : generation.system().nodes()) {
      final JsonObject entry = new JsonObject();
      entry.addProperty("name", node.name());
      entry.addProperty("os", node.os().name().toLowerCase(Locale.ROOT));
      entry.add(
          "sources",
          strings(
              FileLayout.nodeSources(node).stream().map(s -> absolute(out.resolve(s))).toList()));
      entry.add(
          "user_sources",
          strings(
              FileLayout.userSources(List.of(node)).stream()
                  .map(s -> absolute(impl.resolve(s)))
                  .toList()));
      nodes.add(entry);
    }
    root.add("nodes", nodes);
    return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(root) + "\n";
  }

  /**
   * A Make-style depfile: {@code target} depends on every model file of the system and on the
   * generator itself (its jar), so a new Kairos regenerates too. Spaces, `#` and `$` in paths are
   * escaped as CMake, Ninja and Make read them.
   */
  static String depfile(Path target, List<Path> models) {
    final List<Path> inputs = new ArrayList<>();
    models.forEach(model -> inputs.add(model.toAbsolutePath().normalize()));
    generatorJar().ifPresent(inputs::add);
    final StringBuilder text = new StringBuilder(escape(target.toAbsolutePath().normalize()));
    text.append(':');
    for (Path input : inputs) {
      text.append(" \\\n  ").append(escape(input));
    }
    return text.append('\n').toString();
  }

  /** Writes {@code text} to {@code file} when it differs from what the file holds. */
  static void write(Path file, String text) throws IOException {
    final Path absolute = file.toAbsolutePath().normalize();
    if (Files.isDirectory(absolute)) {
      throw new java.nio.file.FileAlreadyExistsException(
          absolute.toString(), null, "is a directory");
    }
    OutputWriter.write(
        absolute.getParent(),
        List.of(
            new GeneratedFile(absolute.getFileName().toString(), text, GeneratedFile.Kind.TEXT)));
  }

  /** The jar this CLI runs from; empty when it runs from class folders (tests). */
  static Optional<Path> generatorJar() {
    try {
      final var codeSource = KairosCli.class.getProtectionDomain().getCodeSource();
      if (codeSource == null) {
        return Optional.empty();
      }
      final Path location = Path.of(codeSource.getLocation().toURI()).toAbsolutePath().normalize();
      return Files.isRegularFile(location) ? Optional.of(location) : Optional.empty();
    } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
      return Optional.empty();
    }
  }

  private static String escape(Path path) {
    final StringBuilder escaped = new StringBuilder();
    for (char c : path.toString().toCharArray()) {
      switch (c) {
        case '$' -> escaped.append("$$");
        case '#' -> escaped.append("\\#");
        case ' ' -> escaped.append("\\ ");
        default -> escaped.append(c);
      }
    }
    return escaped.toString();
  }

  private static String absolute(Path path) {
    return path.toAbsolutePath().normalize().toString();
  }

  private static JsonArray strings(Collection<String> values) {
    final JsonArray array = new JsonArray();
    values.forEach(array::add);
    return array;
  }
}
