package dev.kairos.generator.emit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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

  /** Files and the directory they are written into. */
  public record Root(Path directory, List<GeneratedFile> files) {}

  /**
   * Every path that two of the files would both be written to, in words; empty when each file has
   * its own. Paths are compared ignoring case, as the file systems of macOS and Windows do, and
   * across roots, since the directory of hand-written code may be the output directory.
   */
  public static List<String> clashes(List<Root> roots) {
    final Map<String, Path> first = new HashMap<>();
    final Set<String> reported = new HashSet<>();
    final List<String> clashes = new ArrayList<>();
    for (Root root : roots) {
      for (GeneratedFile file : root.files()) {
        final Path target = root.directory().resolve(file.path()).toAbsolutePath().normalize();
        final String key = target.toString().toLowerCase(Locale.ROOT);
        final Path earlier = first.putIfAbsent(key, target);
        if (earlier != null && reported.add(key)) {
          clashes.add(
              "two generated files would be written to "
                  + target
                  + (earlier.equals(target)
                      ? ""
                      : " (and " + earlier + ", the same file where case is ignored)")
                  + "; rename one of the declarations they come from");
        }
      }
    }
    return clashes;
  }

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
