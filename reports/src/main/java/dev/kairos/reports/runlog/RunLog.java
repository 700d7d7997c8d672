package dev.kairos.reports.runlog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a generated node printed on its standard output (docs/cli.md, "What a node prints"), read
 * back: its `activation` lines, one per release of an SpM, and its `summary` lines. Pure text to
 * records: no model, no analysis. A line that starts like a node's line but does not parse is an
 * error with its line number; other lines (a method body's own output, a warning on a merged
 * stderr) are skipped and counted.
 */
public final class RunLog {
  private RunLog() {}

  /** One activation line, times in nanoseconds from the node's epoch. */
  public record MeasuredActivation(
      int line,
      String node,
      String instance,
      String method,
      int core,
      long seq,
      long releaseNs,
      long startNs,
      long startLatenessNs,
      long finishNs,
      Window window,
      Deadline deadline) {
    public String name() {
      return instance + "." + method;
    }

    /** Whether the method ran (it did unless its window was missed or it overran). */
    public boolean ran() {
      return window == Window.MET;
    }

    /** The opening of its start window: start minus start lateness. */
    public long windowOpenNs() {
      return startNs - startLatenessNs;
    }

    /** From the opening of its start window to its finish, as the analysis counts a response. */
    public long responseNs() {
      return finishNs - windowOpenNs();
    }
  }

  /** The `window=` word. */
  public enum Window {
    MET,
    MISSED,
    OVERRUN
  }

  /** The `deadline=` word. */
  public enum Deadline {
    MET,
    MISSED,
    NOT_RUN
  }

  /**
   * A log read: its activations per node (in the order of the log), the fields of each node's
   * summary line and of its gate and channel lines (in their order), and the lines that were not a
   * node's (how many, and the first one's number).
   */
  public record Parsed(
      Map<String, List<MeasuredActivation>> activations,
      Map<String, Map<String, String>> summaries,
      Map<String, List<Map<String, String>>> gates,
      Map<String, List<Map<String, String>>> channels,
      int skippedLines,
      int firstSkippedLine) {}

  /** A line that starts like a node's line but cannot be read, with its 1-based number. */
  public static final class MalformedLine extends Exception {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final String detail;

    public MalformedLine(int line, String detail) {
      super("line " + line + ": " + detail);
      this.line = line;
      this.detail = detail;
    }

    public int line() {
      return line;
    }

    /** What is wrong with the line, without its number. */
    public String detail() {
      return detail;
    }
  }

  private static final Set<String> REQUIRED =
      Set.of(
          "instance",
          "method",
          "core",
          "seq",
          "release_ns",
          "start_ns",
          "start_lateness_ns",
          "finish_ns",
          "window",
          "deadline");

  /** Lines past this many per log are refused: a log is a run of seconds, not days. */
  public static final int MAX_ACTIVATIONS = 1_000_000;

  /**
   * Reads a log.
   *
   * @param defaultNode the node lines without `node=` belong to (a lone node's output), or null
   *     when every line must name its node (a system's output)
   * @param nodes the nodes of the model: a line naming another one is an error
   */
  public static Parsed parse(List<String> lines, String defaultNode, Set<String> nodes)
      throws MalformedLine {
    final Map<String, List<MeasuredActivation>> activations = new LinkedHashMap<>();
    final Map<String, Map<String, String>> summaries = new LinkedHashMap<>();
    final Map<String, List<Map<String, String>>> gates = new LinkedHashMap<>();
    final Map<String, List<Map<String, String>>> channels = new LinkedHashMap<>();
    int skipped = 0;
    int firstSkipped = 0;
    int count = 0;
    for (int i = 0; i < lines.size(); i++) {
      final int number = i + 1;
      final String text = lines.get(i).strip();
      final int space = text.indexOf(' ');
      final String word = space < 0 ? text : text.substring(0, space);
      switch (word) {
        case "activation" -> {
          final Map<String, String> fields = fields(number, text.substring(space + 1));
          final String node = node(number, fields, defaultNode, nodes);
          if (++count > MAX_ACTIVATIONS) {
            throw new MalformedLine(
                number, "more than " + MAX_ACTIVATIONS + " activation lines: give a shorter run");
          }
          activations
              .computeIfAbsent(node, n -> new ArrayList<>())
              .add(activation(number, node, fields));
        }
        case "summary" -> {
          final Map<String, String> fields = fields(number, text.substring(space + 1));
          summaries.put(node(number, fields, defaultNode, nodes), fields);
        }
        case "gate", "channel" -> {
          final Map<String, String> fields = fields(number, text.substring(space + 1));
          (word.equals("gate") ? gates : channels)
              .computeIfAbsent(node(number, fields, defaultNode, nodes), n -> new ArrayList<>())
              .add(fields);
        }
        default -> {
          if (!text.isEmpty()) {
            skipped++;
            firstSkipped = firstSkipped == 0 ? number : firstSkipped;
          }
        }
      }
    }
    return new Parsed(activations, summaries, gates, channels, skipped, firstSkipped);
  }

  /** `key=value` words, each key once. */
  private static Map<String, String> fields(int line, String rest) throws MalformedLine {
    final Map<String, String> fields = new LinkedHashMap<>();
    if (rest.isBlank() || !rest.contains("=")) {
      throw new MalformedLine(line, "expected key=value fields after the first word");
    }
    for (String token : rest.strip().split("\\s+")) {
      final int equals = token.indexOf('=');
      if (equals <= 0) {
        throw new MalformedLine(line, "'" + shorten(token) + "' is not a key=value field");
      }
      if (fields.put(token.substring(0, equals), token.substring(equals + 1)) != null) {
        throw new MalformedLine(line, "field " + token.substring(0, equals) + " given twice");
      }
    }
    return fields;
  }

  private static String node(
      int line, Map<String, String> fields, String defaultNode, Set<String> nodes)
      throws MalformedLine {
    final String node = fields.getOrDefault("node", defaultNode);
    if (node == null) {
      throw new MalformedLine(
          line, "the line names no node (a lone node's log needs its node: --measured NODE=FILE)");
    }
    if (!nodes.contains(node)) {
      throw new MalformedLine(line, "node " + shorten(node) + " is not a node of the model");
    }
    return node;
  }

  private static MeasuredActivation activation(int line, String node, Map<String, String> fields)
      throws MalformedLine {
    for (String key : REQUIRED) {
      if (!fields.containsKey(key)) {
        throw new MalformedLine(line, "an activation line needs " + key + "=");
      }
    }
    final Window window =
        switch (fields.get("window")) {
          case "met" -> Window.MET;
          case "missed" -> Window.MISSED;
          case "overrun" -> Window.OVERRUN;
          default ->
              throw new MalformedLine(
                  line,
                  "window=" + shorten(fields.get("window")) + " is none of met, missed, overrun");
        };
    final Deadline deadline =
        switch (fields.get("deadline")) {
          case "met" -> Deadline.MET;
          case "missed" -> Deadline.MISSED;
          case "not-run" -> Deadline.NOT_RUN;
          default ->
              throw new MalformedLine(
                  line,
                  "deadline="
                      + shorten(fields.get("deadline"))
                      + " is none of met, missed, not-run");
        };
    final long core = number(line, fields, "core", 0);
    if (core > Integer.MAX_VALUE) {
      throw new MalformedLine(line, "core=" + core + " is not a core");
    }
    final MeasuredActivation activation =
        new MeasuredActivation(
            line,
            node,
            fields.get("instance"),
            fields.get("method"),
            (int) core,
            number(line, fields, "seq", 0),
            number(line, fields, "release_ns", 0),
            number(line, fields, "start_ns", 0),
            number(line, fields, "start_lateness_ns", Long.MIN_VALUE),
            number(line, fields, "finish_ns", 0),
            window,
            deadline);
    if (activation.finishNs() < activation.startNs()) {
      throw new MalformedLine(line, "finish_ns is before start_ns");
    }
    if (activation.instance().isEmpty() || activation.method().isEmpty()) {
      throw new MalformedLine(line, "instance= and method= need names");
    }
    return activation;
  }

  private static long number(int line, Map<String, String> fields, String key, long least)
      throws MalformedLine {
    final String text = fields.get(key);
    final long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new MalformedLine(line, key + "=" + shorten(text) + " is not an integer");
    }
    if (value < least) {
      throw new MalformedLine(line, key + "=" + value + " is negative");
    }
    return value;
  }

  private static String shorten(String text) {
    return text.length() <= 40 ? text : text.substring(0, 39) + "\u2026";
  }
}
