package dev.kairos.generator.emit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Formats generated C++ with clang-format and the project's own style (the repository's
 * .clang-format, packaged with the generator), so generated and hand-written code look alike.
 */
public final class ClangFormat {
  private static final String STYLE_RESOURCE = "/dev/kairos/generator/emit/.clang-format";

  private final Path executable;
  private final String style;

  private ClangFormat(Path executable, String style) {
    this.executable = executable;
    this.style = style;
  }

  /** clang-format from the PATH (or the given command), if there is one. */
  public static Optional<ClangFormat> find(String command) {
    final String name = command == null ? "clang-format" : command;
    Path found = null;
    if (name.contains("/")) {
      found = Path.of(name);
    } else {
      final String path = System.getenv().getOrDefault("PATH", "");
      for (String dir : path.split(java.io.File.pathSeparator)) {
        final Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
        if (Files.isExecutable(candidate)) {
          found = candidate;
          break;
        }
      }
    }
    if (found == null || !Files.isExecutable(found)) {
      return Optional.empty();
    }
    return Optional.of(new ClangFormat(found, inlineStyle()));
  }

  /** The packaged .clang-format as clang-format's inline {key: value, ...} form. */
  static String inlineStyle() {
    try (InputStream in = ClangFormat.class.getResourceAsStream(STYLE_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("generator jar lacks " + STYLE_RESOURCE);
      }
      final List<String> entries = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        final String trimmed = line.trim();
        if (trimmed.isEmpty()
            || trimmed.startsWith("#")
            || trimmed.equals("---")
            || trimmed.equals("...")
            || trimmed.startsWith("Language:")) {
          continue;
        }
        entries.add(trimmed);
      }
      return "{" + String.join(", ", entries) + "}";
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + STYLE_RESOURCE, e);
    }
  }

  /** Files handed to one clang-format process: one process per file would dominate. */
  private static final int BATCH = 200;

  /**
   * The formatted texts of many files, in order: written to a scratch directory and formatted in
   * place by a few clang-format processes, not one per file.
   */
  public List<String> formatAll(List<String> names, List<String> contents) throws IOException {
    final Path scratch = Files.createTempDirectory("kairos-format");
    try {
      final List<Path> files = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        // Numbered directories keep equal names apart; the name keeps the language.
        final Path file = scratch.resolve(Integer.toString(i)).resolve(names.get(i));
        Files.createDirectories(file.getParent());
        Files.writeString(file, contents.get(i), StandardCharsets.UTF_8);
        files.add(file);
      }
      // As many processes at a time as there are processors, each with an equal share.
      final int processors = Math.max(1, Runtime.getRuntime().availableProcessors());
      final int batches = Math.max(processors, (files.size() + BATCH - 1) / BATCH);
      final int size = Math.max(1, (files.size() + batches - 1) / batches);
      final List<ProcessBuilder> commands = new ArrayList<>();
      for (int from = 0; from < files.size(); from += size) {
        final List<String> command =
            new ArrayList<>(List.of(executable.toString(), "--style=" + style, "-i"));
        for (Path file : files.subList(from, Math.min(files.size(), from + size))) {
          command.add(file.toString());
        }
        commands.add(new ProcessBuilder(command).redirectErrorStream(true));
      }
      runAll(commands, processors);
      final List<String> formatted = new ArrayList<>();
      for (Path file : files) {
        formatted.add(Files.readString(file, StandardCharsets.UTF_8));
      }
      return formatted;
    } finally {
      try (var walk = Files.walk(scratch)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  private static void runAll(List<ProcessBuilder> commands, int parallel) throws IOException {
    final java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(parallel);
    try {
      final List<java.util.concurrent.Future<?>> running = new ArrayList<>();
      for (ProcessBuilder command : commands) {
        running.add(
            pool.submit(
                () -> {
                  run(command, "the generated files");
                  return null;
                }));
      }
      for (java.util.concurrent.Future<?> batch : running) {
        try {
          batch.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while formatting the generated files", e);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void run(ProcessBuilder builder, String what) throws IOException {
    final Process process = builder.start();
    final String output =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(300, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("clang-format did not finish formatting " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while formatting " + what, e);
    }
    if (process.exitValue() != 0) {
      throw new IOException("clang-format failed on " + what + ": " + output.trim());
    }
  }

  /** The formatted text of one file; the name only tells clang-format the language. */
  public String format(String fileName, String content) throws IOException {
    final Process process =
        new ProcessBuilder(
                executable.toString(), "--style=" + style, "--assume-filename=" + fileName)
            .redirectError(ProcessBuilder.Redirect.PIPE)
            .start();
    try (OutputStream stdin = process.getOutputStream()) {
      stdin.write(content.getBytes(StandardCharsets.UTF_8));
    }
    final ByteArrayOutputStream formatted = new ByteArrayOutputStream();
    process.getInputStream().transferTo(formatted);
    final String errors =
        new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("clang-format did not finish formatting " + fileName);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while formatting " + fileName, e);
    }
    if (process.exitValue() != 0) {
      throw new IOException("clang-format failed on " + fileName + ": " + errors.trim());
    }
    return formatted.toString(StandardCharsets.UTF_8);
  }
}
