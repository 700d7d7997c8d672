// How quickly the language server's live schedulability answers an edit of a large model.
//
//   java -cp generator/target/kairos.jar:language-server/target/kairos-language-server.jar \
//       bench/lsp/LspLatency.java [--tmos N] [--files F] [--cycles C] [--gap-ms G]
//
// Writes a synthetic system of N TMOs (each an SpM and an SvM sharing a segment, 50 per node;
// the shape of bench/analysis_speed.py) into F files, starts the language server as editors do
// (`java -jar kairos-language-server.jar`, LSP over stdio), opens the file that holds Unit0 and
// then, C times, types an edit that breaks a deadline (Unit0's GCT from `1 ms` to `5 us`, one
// keystroke every G ms) and undoes it in one step. For each it measures, from the last keystroke:
// the validation diagnostics (Xtext's build alone), the schedulability diagnostics (the miss
// appears, or goes away) and the `kairos/report` notification of that document version. Beside
// them, in the same run: `kairos check --format json` of the same files, in this process, warm
// (the CLI loads, validates, lowers and analyses from scratch each time).
//
// Target (docs/editors.md): schedulability diagnostics within 1 s of the last keystroke.

import com.google.gson.JsonObject;
import dev.kairos.cli.KairosCli;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.lsp4j.ClientCapabilities;
import org.eclipse.lsp4j.DidChangeTextDocumentParams;
import org.eclipse.lsp4j.DidOpenTextDocumentParams;
import org.eclipse.lsp4j.InitializeParams;
import org.eclipse.lsp4j.InitializedParams;
import org.eclipse.lsp4j.MessageActionItem;
import org.eclipse.lsp4j.MessageParams;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.PublishDiagnosticsParams;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.ShowMessageRequestParams;
import org.eclipse.lsp4j.TextDocumentContentChangeEvent;
import org.eclipse.lsp4j.TextDocumentItem;
import org.eclipse.lsp4j.VersionedTextDocumentIdentifier;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.jsonrpc.services.JsonNotification;
import org.eclipse.lsp4j.services.LanguageClient;
import org.eclipse.lsp4j.services.LanguageServer;

public final class LspLatency {
  private static final int[] PERIODS_MS = {5, 10, 20, 40, 50, 100, 200, 1000};
  private static final String MISS = "kairos.unschedulable";
  private static final long ANSWER_TIMEOUT_S = 120;
  private static final long TARGET_MS = 1000;

  /** The server's own phase timings of the runs measured (from the notifications). */
  private static final java.util.Map<String, List<Double>> SERVER_PHASES =
      new java.util.LinkedHashMap<>();

  /** What the server sent, with its arrival time. */
  record Event(long nanos, Object message) {}

  /** The editor's side: every notification goes into one queue, stamped on arrival. */
  public static final class Client implements LanguageClient {
    final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    @Override
    public void publishDiagnostics(PublishDiagnosticsParams diagnostics) {
      events.add(new Event(System.nanoTime(), diagnostics));
    }

    @JsonNotification("kairos/report")
    public void report(JsonObject report) {
      events.add(new Event(System.nanoTime(), report));
    }

    @Override
    public void telemetryEvent(Object object) {}

    @Override
    public void showMessage(MessageParams message) {}

    @Override
    public CompletableFuture<MessageActionItem> showMessageRequest(ShowMessageRequestParams r) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void logMessage(MessageParams message) {}

    /** The first event (dropping those before it) that matches, and when it arrived. */
    Event await(Predicate<Object> matches, String what) throws InterruptedException {
      final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_TIMEOUT_S);
      while (true) {
        final Event event = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (event == null) {
          throw new IllegalStateException("no " + what + " within " + ANSWER_TIMEOUT_S + " s");
        }
        if (matches.test(event.message())) {
          return event;
        }
      }
    }
  }

  public static void main(String[] args) throws Exception {
    int tmos = 1000;
    int files = 1;
    int cycles = 5;
    int gapMs = 80;
    String jar = "language-server/target/kairos-language-server.jar";
    final List<String> jvmOptions = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--tmos" -> tmos = Integer.parseInt(args[++i]);
        case "--files" -> files = Integer.parseInt(args[++i]);
        case "--cycles" -> cycles = Integer.parseInt(args[++i]);
        case "--gap-ms" -> gapMs = Integer.parseInt(args[++i]);
        case "--server" -> jar = args[++i];
        case "--server-jvm-option" -> jvmOptions.add(args[++i]);
        default -> {
          System.err.println(
              "usage: LspLatency [--tmos N] [--files F] [--cycles C] [--gap-ms G]"
                  + " [--server JAR] [--server-jvm-option OPTION]...");
          System.exit(2);
        }
      }
    }
    final Path server = Path.of(jar).toAbsolutePath();
    if (!Files.isRegularFile(server)) {
      System.err.println("lsp bench: " + server + " is not built: run `make java` first");
      System.exit(2);
    }
    final Path dir = Files.createTempDirectory("kairos-lsp-bench");
    final List<Path> paths = writeModel(dir, tmos, files);
    final int nodes = (tmos + 49) / 50;
    System.out.printf(Locale.ROOT, "load average: %.2f%n", loadAverage());
    System.out.printf(
        Locale.ROOT,
        "model: %d TMOs (%d tasks) on %d nodes in %d file(s)%n",
        tmos,
        2 * tmos,
        nodes,
        files);

    final List<String> command = new ArrayList<>(List.of("java"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", server.toString()));
    final Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    final Client client = new Client();
    final Launcher<LanguageServer> launcher =
        new Launcher.Builder<LanguageServer>()
            .setLocalService(client)
            .setRemoteInterface(LanguageServer.class)
            .setInput(process.getInputStream())
            .setOutput(process.getOutputStream())
            .create();
    launcher.startListening();
    final LanguageServer ls = launcher.getRemoteProxy();
    try {
      final InitializeParams init = new InitializeParams();
      init.setRootUri(dir.toUri().toString());
      init.setCapabilities(new ClientCapabilities());
      long start = System.nanoTime();
      ls.initialize(init).get(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
      ls.initialized(new InitializedParams());
      client.await(m -> m instanceof JsonObject, "first report");
      System.out.printf(
          Locale.ROOT,
          "server: initialized and first analysis in %.2f s%n",
          (System.nanoTime() - start) / 1e9);

      final Path edited = paths.get(0);
      final String uri = edited.toUri().toString();
      final String original = Files.readString(edited);
      final String normalizedUri = uriOf(client, ls, uri, original);
      final int gctAt = original.indexOf("gct 1 ms", original.indexOf("tmo Unit0 {")) + 4;
      final Position from = position(original, gctAt);
      int version = 1;
      final List<double[]> breaking = new ArrayList<>();
      final List<double[]> undoing = new ArrayList<>();
      for (int cycle = 0; cycle < cycles; cycle++) {
        // Type `5 us` over the selected `1 ms`: four keystrokes, a valid model only at the last.
        final String keys = "5 us";
        long lastKeystroke = 0;
        for (int k = 0; k < keys.length(); k++) {
          final Position at = new Position(from.getLine(), from.getCharacter() + k);
          final Range range =
              k == 0
                  ? new Range(from, new Position(from.getLine(), from.getCharacter() + 4))
                  : new Range(at, at);
          version++;
          client.events.clear();
          lastKeystroke = System.nanoTime();
          change(ls, normalizedUri, version, range, keys.substring(k, k + 1));
          if (k + 1 < keys.length()) {
            Thread.sleep(gapMs);
          }
        }
        breaking.add(measure(client, normalizedUri, version, lastKeystroke, true));

        version++;
        client.events.clear();
        final long undo = System.nanoTime();
        change(
            ls,
            normalizedUri,
            version,
            new Range(from, new Position(from.getLine(), from.getCharacter() + 4)),
            "1 ms");
        undoing.add(measure(client, normalizedUri, version, undo, false));
      }
      report("edit that breaks a deadline (4 keystrokes)", breaking);
      report("undo (1 change)", undoing);
      final StringBuilder phases = new StringBuilder();
      SERVER_PHASES.forEach(
          (phase, values) ->
              phases.append(
                  String.format(
                      Locale.ROOT,
                      "%s%s %.0f",
                      phases.length() == 0 ? "" : ", ",
                      phase.replace("_ms", ""),
                      median(values))));
      System.out.println("  the server's analysis runs (medians, ms): " + phases);
      final List<Double> all = new ArrayList<>();
      breaking.forEach(sample -> all.add(sample[1]));
      undoing.forEach(sample -> all.add(sample[1]));
      System.out.printf(
          Locale.ROOT,
          "target: schedulability diagnostics within %d ms of the last keystroke:"
              + " median %.0f ms, max %.0f ms: %s%n",
          TARGET_MS,
          median(all),
          Collections.max(all),
          median(all) <= TARGET_MS ? "met" : "NOT met");
    } finally {
      try {
        ls.shutdown().get(30, TimeUnit.SECONDS);
        ls.exit();
      } catch (Exception e) {
        // the server may be gone already
      }
      process.waitFor(30, TimeUnit.SECONDS);
      process.destroyForcibly();
    }

    // Baseline, same run: the CLI's check of the same files in this process, warmed up.
    final List<String> arguments = new ArrayList<>(List.of("check", "--format", "json"));
    paths.forEach(p -> arguments.add(p.toString()));
    final List<Double> check = new ArrayList<>();
    for (int i = 0; i < 2 + Math.max(3, cycles); i++) {
      final long start = System.nanoTime();
      final PrintWriter sink = new PrintWriter(Writer.nullWriter());
      final int exit = KairosCli.run(sink, sink, arguments.toArray(String[]::new));
      if (exit != 0) {
        throw new IllegalStateException("kairos check of the model exited " + exit);
      }
      if (i >= 2) {
        check.add((System.nanoTime() - start) / 1e6);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "baseline: kairos check --format json of the same files, in-process, warm:"
            + " median %.0f ms (min %.0f, max %.0f) over %d runs%n",
        median(check),
        Collections.min(check),
        Collections.max(check),
        check.size());
    System.out.printf(Locale.ROOT, "load average: %.2f%n", loadAverage());
    deleteTree(dir);
    System.exit(0); // the client's JSON-RPC threads would keep the JVM alive
  }

  /** Opens the document and returns its URI as the server spells it in publications. */
  private static String uriOf(Client client, LanguageServer ls, String uri, String text)
      throws InterruptedException {
    client.events.clear();
    ls.getTextDocumentService()
        .didOpen(new DidOpenTextDocumentParams(new TextDocumentItem(uri, "kairos", 1, text)));
    final Event event =
        client.await(
            m -> m instanceof JsonObject report && report.getAsJsonObject("versions").size() == 1,
            "report after opening");
    final JsonObject report = (JsonObject) event.message();
    if (!report.get("analysed").getAsBoolean()) {
      throw new IllegalStateException(
          "the generated model was not analysed: " + report.get("reason"));
    }
    return report.getAsJsonObject("versions").keySet().iterator().next();
  }

  private static void change(LanguageServer ls, String uri, int version, Range range, String text) {
    final TextDocumentContentChangeEvent change = new TextDocumentContentChangeEvent(range, text);
    ls.getTextDocumentService()
        .didChange(
            new DidChangeTextDocumentParams(
                new VersionedTextDocumentIdentifier(uri, version), List.of(change)));
  }

  /** {validation ms, schedulability diagnostics ms, report ms} after the last keystroke. */
  private static double[] measure(
      Client client, String uri, int version, long lastKeystroke, boolean missExpected)
      throws InterruptedException {
    double validation = -1;
    double diagnostics = -1;
    double report = -1;
    while (diagnostics < 0 || report < 0) {
      final Event event = client.await(m -> true, "diagnostics and report of version " + version);
      final double ms = (event.nanos() - lastKeystroke) / 1e6;
      if (event.message() instanceof PublishDiagnosticsParams published
          && published.getUri().equals(uri)) {
        if (validation < 0) {
          validation = ms;
        }
        final boolean miss =
            published.getDiagnostics().stream()
                .anyMatch(d -> d.getCode() != null && MISS.equals(d.getCode().getLeft()));
        if (miss == missExpected && diagnostics < 0 && report < 0) {
          diagnostics = ms;
        }
      } else if (event.message() instanceof JsonObject json
          && json.getAsJsonObject("versions").has(uri)
          && json.getAsJsonObject("versions").get(uri).getAsInt() == version) {
        report = ms;
        if (json.get("timings") instanceof JsonObject timings) {
          for (String phase : timings.keySet()) {
            SERVER_PHASES
                .computeIfAbsent(phase, k -> new ArrayList<>())
                .add(timings.get(phase).getAsDouble());
          }
        }
        if (json.get("analysed").getAsBoolean() != true) {
          throw new IllegalStateException("version " + version + " was not analysed: " + json);
        }
        if (diagnostics < 0) {
          throw new IllegalStateException(
              "the report of version " + version + " came without the expected diagnostics");
        }
      }
    }
    return new double[] {validation, diagnostics, report};
  }

  private static void report(String what, List<double[]> samples) {
    final String[] names = {
      "validation diagnostics (Xtext build)",
      "schedulability diagnostics",
      "kairos/report notification"
    };
    System.out.println(what + ", from the last keystroke, " + samples.size() + " edits:");
    for (int i = 0; i < names.length; i++) {
      final List<Double> values = new ArrayList<>();
      for (double[] sample : samples) {
        values.add(sample[i]);
      }
      System.out.printf(
          Locale.ROOT,
          "  %-38s median %5.0f ms  (min %5.0f, max %5.0f)%n",
          names[i],
          median(values),
          Collections.min(values),
          Collections.max(values));
    }
  }

  private static List<Path> writeModel(Path dir, int tmos, int files) throws Exception {
    final List<StringBuilder> texts = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      // Names of other files resolve through the package's import, as in any Kairos model.
      texts.add(new StringBuilder("package synthetic\n\nimport synthetic.*\n\n"));
    }
    for (int i = 0; i < tmos; i++) {
      final int period = PERIODS_MS[i % PERIODS_MS.length];
      texts
          .get(i % files)
          .append("tmo Unit")
          .append(i)
          .append(" {\n")
          .append("  ods { segment state { uint64 count; } }\n")
          .append("  spm tick for t = from 0 s to forever every ")
          .append(period)
          .append(" ms\n")
          .append("    start-during (t, t + 1 ms) finish-by t + 2 ms\n")
          .append("    wcet 1 us criticality hard uses state write;\n")
          .append("  svm fetch gct 1 ms wcet 1 us criticality soft max-rate 10 Hz")
          .append(" uses state read;\n")
          .append("}\n");
    }
    final StringBuilder platform = texts.get(texts.size() - 1);
    platform.append("hardware Big { cores 8; speed 1.0; }\n");
    final int nodes = (tmos + 49) / 50;
    for (int n = 0; n < nodes; n++) {
      platform.append("node n").append(n).append(" { hardware Big os linux scheduling rms\n");
      for (int i = n; i < tmos; i += nodes) {
        platform.append("  deploy Unit").append(i).append(" as u").append(i).append('\n');
      }
      platform.append("}\n");
    }
    final List<Path> paths = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      final Path path = dir.resolve(String.format(Locale.ROOT, "synthetic%02d.tmo", f));
      Files.writeString(path, texts.get(f));
      paths.add(path);
    }
    return paths;
  }

  private static Position position(String text, int offset) {
    int line = 0;
    int lineStart = 0;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return new Position(line, offset - lineStart);
  }

  private static double median(List<Double> values) {
    final List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    final int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static void deleteTree(Path dir) throws Exception {
    try (var walk = Files.walk(dir)) {
      walk.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
