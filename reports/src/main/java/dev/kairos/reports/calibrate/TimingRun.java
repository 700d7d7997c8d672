package dev.kairos.reports.calibrate;

import dev.kairos.reports.calibrate.JsonText.JsonArray;
import dev.kairos.reports.calibrate.JsonText.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One timings file a node wrote with {@code --timings} (docs/cli.md, "Method timings"): the node,
 * whether the run was over when it was written, and what it measured of each method.
 *
 * @param file the file as the user named it, for messages
 * @param nodeLine the line of the file that names the node
 * @param complete false for a snapshot written on SIGUSR1 during the run
 * @param executionClock how execution was measured: {@code thread-cpu} or {@code modelled}
 */
public record TimingRun(
    String file,
    String node,
    int nodeLine,
    boolean complete,
    String executionClock,
    List<Method> methods) {

  /** Count, maximum and percentiles of one kind of measurement, in nanoseconds. */
  public record Figures(long count, long maxNs, long p99Ns, long p999Ns) {
    public static final Figures NONE = new Figures(0, 0, 0, 0);

    /** Two runs' figures together: counts add up, each figure is the larger one. */
    public Figures merge(Figures other) {
      return new Figures(
          count + other.count,
          Math.max(maxNs, other.maxNs),
          Math.max(p99Ns, other.p99Ns),
          Math.max(p999Ns, other.p999Ns));
    }
  }

  /**
   * How often a method did not keep its timing: activations not started in their start window, runs
   * finished after their deadline (an SvM's GCT), activations still running at their deadline.
   * Files written before these counts were kept read as none.
   */
  public record Misses(long startWindow, long deadline, long overruns) {
    public static final Misses NONE = new Misses(0, 0, 0);

    public long total() {
      return startWindow + deadline + overruns;
    }
  }

  /**
   * One method's measurements on the node, with the line of the file that holds them.
   *
   * @param wcetNs the WCET the node ran with (the model's, scaled to the node's hardware)
   */
  public record Method(
      String instance,
      String method,
      String kind,
      String source,
      long wcetNs,
      long wcetOverruns,
      Figures execution,
      Figures response,
      Misses misses,
      int line) {
    public String name() {
      return instance + "." + method;
    }
  }

  /** The document's format name and the version this reader understands. */
  public static final String FORMAT = "kairos-timings";

  public static final long VERSION = 1;

  /** Reads a timings document; {@code file} names it in messages. */
  public static TimingRun parse(String file, String text) throws JsonText.Malformed {
    final Object document = JsonText.parse(text);
    if (!(document instanceof JsonObject root)) {
      throw new JsonText.Malformed(1, "a timings file is one JSON object");
    }
    final Object format = root.members().get("format");
    if (!FORMAT.equals(format)) {
      throw new JsonText.Malformed(
          root.lineOf("format"),
          "not a timings file of a Kairos node (\"format\" is not \"" + FORMAT + "\")");
    }
    final long version = integer(root, "version");
    if (version != VERSION) {
      throw new JsonText.Malformed(
          root.lineOf("version"),
          "timings format version " + version + " is not understood (this kairos reads 1)");
    }
    final String node = string(root, "node");
    final boolean complete = bool(root, "complete");
    final String clock = string(root, "execution_clock");
    if (!(root.members().get("methods") instanceof JsonArray array)) {
      throw new JsonText.Malformed(root.lineOf("methods"), "\"methods\" must be an array");
    }
    final List<Method> methods = new ArrayList<>();
    for (int i = 0; i < array.elements().size(); i++) {
      if (!(array.elements().get(i) instanceof JsonObject method)) {
        throw new JsonText.Malformed(array.lines().get(i), "each method is a JSON object");
      }
      final String kind = string(method, "kind");
      if (!kind.equals("spm") && !kind.equals("svm")) {
        throw new JsonText.Malformed(
            method.lineOf("kind"), "\"kind\" is \"spm\" or \"svm\", not \"" + kind + "\"");
      }
      methods.add(
          new Method(
              string(method, "instance"),
              string(method, "method"),
              kind,
              string(method, "source"),
              nonNegative(method, "wcet_ns"),
              nonNegative(method, "wcet_overruns"),
              figures(method, "execution"),
              figures(method, "response"),
              new Misses(
                  optionalNonNegative(method, "start_window_misses"),
                  optionalNonNegative(method, "deadline_misses"),
                  optionalNonNegative(method, "overruns")),
              method.line()));
    }
    return new TimingRun(file, node, root.lineOf("node"), complete, clock, List.copyOf(methods));
  }

  private static Figures figures(JsonObject owner, String name) throws JsonText.Malformed {
    if (!(owner.members().get(name) instanceof JsonObject figures)) {
      throw new JsonText.Malformed(
          owner.lineOf(name),
          "\"" + name + "\" must be an object of count, max_ns, p99_ns, p999_ns");
    }
    return new Figures(
        nonNegative(figures, "count"),
        nonNegative(figures, "max_ns"),
        nonNegative(figures, "p99_ns"),
        nonNegative(figures, "p999_ns"));
  }

  private static String string(JsonObject owner, String name) throws JsonText.Malformed {
    if (owner.members().get(name) instanceof String text) {
      return text;
    }
    throw missingOr(owner, name, "a string");
  }

  private static boolean bool(JsonObject owner, String name) throws JsonText.Malformed {
    if (owner.members().get(name) instanceof Boolean value) {
      return value;
    }
    throw missingOr(owner, name, "true or false");
  }

  private static long integer(JsonObject owner, String name) throws JsonText.Malformed {
    if (owner.members().get(name) instanceof Long value) {
      return value;
    }
    throw missingOr(owner, name, "an integer");
  }

  private static long nonNegative(JsonObject owner, String name) throws JsonText.Malformed {
    final long value = integer(owner, name);
    if (value < 0) {
      throw new JsonText.Malformed(owner.lineOf(name), "\"" + name + "\" must not be negative");
    }
    return value;
  }

  private static long optionalNonNegative(JsonObject owner, String name) throws JsonText.Malformed {
    return owner.members().containsKey(name) ? nonNegative(owner, name) : 0;
  }

  private static JsonText.Malformed missingOr(JsonObject owner, String name, String what) {
    return owner.members().containsKey(name)
        ? new JsonText.Malformed(owner.lineOf(name), "\"" + name + "\" must be " + what)
        : new JsonText.Malformed(owner.line(), "\"" + name + "\" is missing");
  }
}
