package dev.kairos.generator.emit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The manifest of an output directory ({@link FileLayout#MANIFEST}): the files `kairos generate`
 * wrote there, one relative path a line. A later run removes the files the manifest lists and that
 * run no longer generates (a renamed node's main, the base of a TMO that went away), and nothing
 * else: never a hand-written starter, never a file the user put beside the generated ones.
 *
 * <p>The manifest is written twice per run: before the files, listing what the last run left and
 * what this one writes, so a run that stops half way leaves nothing it wrote untracked; and after
 * them, listing this run's files only, once the others are removed.
 */
public final class GenerationManifest {
  private GenerationManifest() {}

  private static final String HEADER =
      "# The files kairos generate wrote into this directory, one per line.\n"
          + "# Its next run removes those it no longer writes. Do not edit.";

  /**
   * The paths the directory's manifest lists, relative to it; empty without a manifest. Lines that
   * do not name a file inside the directory (absolute paths, `..`) are ignored, so a damaged
   * manifest can never make a run remove anything outside it.
   */
  public static Set<String> read(Path outputDir) throws IOException {
    final Path manifest = outputDir.resolve(FileLayout.MANIFEST);
    final Set<String> paths = new TreeSet<>();
    if (!Files.isRegularFile(manifest)) {
      return paths;
    }
    final Path root = outputDir.toAbsolutePath().normalize();
    for (String line : Files.readAllLines(manifest, StandardCharsets.UTF_8)) {
      final String path = line.strip();
      if (path.isEmpty() || path.startsWith("#") || path.equals(FileLayout.MANIFEST)) {
        continue;
      }
      final Path resolved;
      try {
        resolved = root.resolve(path).normalize();
      } catch (java.nio.file.InvalidPathException e) {
        continue;
      }
      if (!Path.of(path).isAbsolute() && resolved.startsWith(root) && !resolved.equals(root)) {
        paths.add(root.relativize(resolved).toString().replace('\\', '/'));
      }
    }
    return paths;
  }

  /** The manifest listing these paths (relative, with forward slashes), sorted. */
  public static GeneratedFile of(Collection<String> paths) {
    final StringBuilder text = new StringBuilder(HEADER).append('\n');
    new TreeSet<>(paths).forEach(path -> text.append(path).append('\n'));
    return new GeneratedFile(FileLayout.MANIFEST, text.toString(), GeneratedFile.Kind.TEXT);
  }

  /** Before writing the files: the manifest of what the last run left and this one writes. */
  public static void begin(Path outputDir, List<GeneratedFile> generated) throws IOException {
    final Set<String> paths = read(outputDir);
    generated.forEach(file -> paths.add(file.path()));
    OutputWriter.write(outputDir, List.of(of(paths)));
  }

  /**
   * After writing the files: removes what earlier runs generated and this one did not (then the
   * folders that leaves empty), and writes this run's manifest.
   *
   * @param kept files that stay whatever the manifest says: this run's hand-written starters, for
   *     an output directory that is also the directory of hand-written code
   * @return the files removed
   */
  public static List<OutputWriter.Written> finish(
      Path outputDir, List<GeneratedFile> generated, Collection<Path> kept) throws IOException {
    final Path root = outputDir.toAbsolutePath().normalize();
    // Compared ignoring case too: where the file system ignores it, a stale `Node.main.cpp` is
    // the file this run wrote as `node.main.cpp`.
    final Set<String> current = new HashSet<>();
    generated.forEach(file -> current.add(key(root.resolve(file.path()))));
    kept.forEach(path -> current.add(key(path)));
    final List<OutputWriter.Written> removed = new ArrayList<>();
    for (String path : read(root)) {
      final Path stale = root.resolve(path).normalize();
      if (current.contains(key(stale)) || !Files.isRegularFile(stale, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      Files.delete(stale);
      removed.add(new OutputWriter.Written(stale, OutputWriter.Outcome.REMOVED));
      removeEmptyFolders(stale.getParent(), root);
    }
    OutputWriter.write(root, List.of(of(generated.stream().map(GeneratedFile::path).toList())));
    return removed;
  }

  private static String key(Path path) {
    return path.toAbsolutePath().normalize().toString().toLowerCase(Locale.ROOT);
  }

  /** Removes {@code folder} and its parents below {@code root} while they are empty. */
  private static void removeEmptyFolders(Path folder, Path root) throws IOException {
    for (Path at = folder; at != null && at.startsWith(root) && !at.equals(root); ) {
      try (var entries = Files.list(at)) {
        if (entries.findAny().isPresent()) {
          return;
        }
      }
      try {
        Files.delete(at);
      } catch (DirectoryNotEmptyException e) {
        return; // something appeared meanwhile: it stays
      }
      at = at.getParent();
    }
  }
}
