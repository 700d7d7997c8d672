package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutates every example model (token deletions, insertions, swaps, duplications, number changes,
 * truncations) and requires `kairos check` (and, for one mutant in ten, `kairos validate`) to
 * answer each mutant with diagnostics and exit code 0 or 1: never 2, never a stack trace, never a
 * hang.
 *
 * <p>Seeded and reproducible: -Dkairos.fuzz.seed=N -Dkairos.fuzz.mutants=M; each mutant depends on
 * the seed and its index only, whichever of the parallel workers checks it. A failing mutant is
 * saved under target/fuzz-failures/ with its seed and index in the name.
 */
class MutationFuzzTest {
  private static final long SEED = Long.getLong("kairos.fuzz.seed", 20261122L);
  private static final int MUTANTS = Integer.getInteger("kairos.fuzz.mutants", 10_000);
  private static final long TIMEOUT_SECONDS = 30;

  private static final Pattern TOKEN =
      Pattern.compile(
          "//[^\\n]*|/\\*.*?\\*/|\"(?:\\\\.|[^\"\\\\])*\"|\\^?[A-Za-z_][A-Za-z0-9_-]*|\\d+"
              + "|->|\\.\\*|[-+*/=<>(){}\\[\\];:,.]|\\s+|.",
          Pattern.DOTALL);

  /** Tokens that are not in the examples but are worth throwing at the parser. */
  private static final List<String> EXTRA_TOKENS =
      List.of(
          "{",
          "}",
          "(",
          ")",
          ";",
          "0",
          "-1",
          "99999999999999999999",
          "4294967296",
          "0.0000000001",
          "\"",
          "/*",
          "*/",
          "@",
          "#",
          "ü",
          "\u0000",
          "ms",
          "ns",
          "min",
          "t",
          "forever",
          "to",
          "from",
          "every",
          "+",
          "->",
          ".",
          ".*",
          "tmo",
          "node",
          "spm",
          "svm",
          "deploy",
          "uses",
          "write",
          "gate",
          "segment",
          "struct",
          "sequence<",
          ">",
          "import",
          "package",
          "main",
          "delete",
          "__x",
          "x_",
          "9ms",
          "1.",
          ".5");

  @TempDir Path scratch;

  @Test
  void everyMutantIsAnsweredWithDiagnostics() throws Exception {
    final List<List<String>> corpus = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("..", "examples"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".tmo")).sorted().toList()) {
        corpus.add(tokenize(Files.readString(file)));
      }
    }
    assertFalse(corpus.isEmpty(), "no example models to mutate");
    final List<String> vocabulary = new ArrayList<>(EXTRA_TOKENS);
    corpus.forEach(tokens -> tokens.stream().filter(t -> !t.isBlank()).forEach(vocabulary::add));

    // The mutants are shared out among the machine's processors (at most four): each is
    // derived from the seed and its own index alone, so a run is the same whatever the split.
    final int workers =
        Integer.getInteger(
            "kairos.fuzz.workers", Math.min(4, Runtime.getRuntime().availableProcessors()));
    final AtomicLong[] startedAt = new AtomicLong[workers];
    final AtomicInteger[] current = new AtomicInteger[workers];
    final ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      final List<Future<String>> slices = new ArrayList<>();
      for (int worker = 0; worker < workers; worker++) {
        final int first = worker;
        startedAt[worker] = new AtomicLong(System.nanoTime());
        current[worker] = new AtomicInteger(-1);
        final Path file = scratch.resolve("mutant-" + worker + ".tmo");
        slices.add(
            pool.submit(
                () -> {
                  for (int index = first; index < MUTANTS; index += workers) {
                    current[first].set(index);
                    startedAt[first].set(System.nanoTime());
                    final String problem = answer(index, mutant(corpus, vocabulary, index), file);
                    if (problem != null) {
                      return problem;
                    }
                  }
                  current[first].set(-1);
                  return null;
                }));
      }
      // A mutant that hangs keeps its worker on it: look at each worker once a second.
      for (Future<String> slice : slices) {
        while (true) {
          try {
            final String problem = slice.get(1, TimeUnit.SECONDS);
            if (problem != null) {
              fail(problem);
            }
            break;
          } catch (TimeoutException stillRunning) {
            for (int worker = 0; worker < workers; worker++) {
              final int index = current[worker].get();
              final long seconds =
                  TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedAt[worker].get());
              if (index >= 0 && seconds >= TIMEOUT_SECONDS) {
                fail(
                    report(
                        index,
                        mutant(corpus, vocabulary, index),
                        "no answer within " + TIMEOUT_SECONDS + " s"));
              }
            }
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Mutant `index`: the same for a seed and an index, whichever worker makes it. */
  private static String mutant(List<List<String>> corpus, List<String> vocabulary, int index) {
    final Random random = new Random(SEED * 1_000_003L + index);
    return mutate(new ArrayList<>(corpus.get(index % corpus.size())), vocabulary, random);
  }

  /** Null when every command answered the mutant with diagnostics, else what went wrong. */
  private static String answer(int index, String mutant, Path file) throws IOException {
    Files.writeString(file, mutant, StandardCharsets.UTF_8);
    // check validates first, so every mutant goes through validation; validate's own answer
    // (the same diagnostics, printed without the analysis) is asked of one in ten.
    final String[] commands =
        index % 10 == 0 ? new String[] {"validate", "check"} : new String[] {"check"};
    for (String command : commands) {
      final StringWriter err = new StringWriter();
      final int code =
          KairosCli.run(
              new PrintWriter(new StringWriter()), new PrintWriter(err), command, file.toString());
      if (code != 0 && code != 1) {
        return report(index, mutant, command + " exited " + code + ":\n" + err);
      }
    }
    return null;
  }

  static List<String> tokenize(String text) {
    final List<String> tokens = new ArrayList<>();
    final Matcher matcher = TOKEN.matcher(text);
    while (matcher.find()) {
      tokens.add(matcher.group());
    }
    return tokens;
  }

  static String mutate(List<String> tokens, List<String> vocabulary, Random random) {
    final int mutations = 1 + random.nextInt(3);
    for (int m = 0; m < mutations && !tokens.isEmpty(); m++) {
      final int at = random.nextInt(tokens.size());
      switch (random.nextInt(6)) {
        case 0 -> tokens.remove(at);
        case 1 -> tokens.add(at, " " + vocabulary.get(random.nextInt(vocabulary.size())) + " ");
        case 2 -> {
          final int other = Math.min(tokens.size() - 1, at + 1 + random.nextInt(3));
          final String swapped = tokens.get(at);
          tokens.set(at, tokens.get(other));
          tokens.set(other, swapped);
        }
        case 3 -> tokens.add(at, tokens.get(at));
        case 4 -> {
          if (tokens.get(at).matches("\\d+")) {
            tokens.set(at, random.nextBoolean() ? "0" : "18446744073709551616");
          } else {
            tokens.set(at, vocabulary.get(random.nextInt(vocabulary.size())));
          }
        }
        default -> {
          final String text = String.join("", tokens);
          return text.substring(0, random.nextInt(text.length() + 1));
        }
      }
    }
    return String.join("", tokens);
  }

  private static String report(int index, String mutant, String what) {
    final Path saved =
        Path.of("target", "fuzz-failures", "seed-" + SEED + "-mutant-" + index + ".tmo");
    try {
      Files.createDirectories(saved.getParent());
      Files.writeString(saved, mutant, StandardCharsets.UTF_8);
    } catch (IOException e) {
      // The report below still carries the mutant itself.
    }
    return "mutant "
        + index
        + " (seed "
        + SEED
        + ", saved as "
        + saved
        + "): "
        + what
        + "\n--- mutant ---\n"
        + mutant;
  }
}
