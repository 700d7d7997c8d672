package dev.kairos.generator.emit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes generated files. A file is rewritten only when its bytes change, so build tools see
 * unchanged timestamps and stay incremental; hand-written starters are written only where nothing
 * exists yet.
 */
public final class OutputWriter {
  /** What happened to each file, for the CLI to report. */
  public enum Outcome {
    WRITTEN,
    UNCHANGED,
    KEPT_USER_FILE
  }

  public record Written(Path path, Outcome outcome) {}

  private OutputWriter() {}

  public static List<Written> write(Path root, List<GeneratedFile> files) throws IOException {
    final List<Written> result = new ArrayList<>();
    for (GeneratedFile file : files) {
      final Path target = root.resolve(file.path());
      final byte[] bytes = file.content().getBytes(StandardCharsets.UTF_8);
      if (Files.exists(target)) {
        if (file.kind() == GeneratedFile.Kind.USER_STARTER) {
          result.add(new Written(target, Outcome.KEPT_USER_FILE));
          continue;
        }
        if (Arrays.equals(Files.readAllBytes(target), bytes)) {
          result.add(new Written(target, Outcome.UNCHANGED));
          continue;
        }
      }
      Files.createDirectories(target.toAbsolutePath().getParent());
      // Write beside the target, then move: a reader never sees half a file.
      final Path temporary = target.resolveSibling(target.getFileName() + ".kairos-tmp");
      Files.write(temporary, bytes);
      Files.move(
          temporary,
          target,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      result.add(new Written(target, Outcome.WRITTEN));
    }
    return result;
  }
}
