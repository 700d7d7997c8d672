package dev.kairos.generator.lowering;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import dev.kairos.ir.Platform;
import dev.kairos.ir.Platform.Overheads;
import dev.kairos.ir.Platform.PlatformFile;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Platform files (`hardware X86 { ... platform "lab.platform.json"; }`): the JSON `kairos probe`
 * writes (format kairos-platform/1, docs/cli.md#probe), read when the model is lowered, relative to
 * the model file that names it. A file that cannot be read is kept with the reason, which `kairos`
 * reports as {@link #PLATFORM_FILE} at the clause: the analysis never runs on figures it could not
 * read.
 */
public final class PlatformFiles {
  /** The diagnostic code of a platform file that is missing or not a kairos platform file. */
  public static final String PLATFORM_FILE = "kairos.platform-file";

  static final String FORMAT = "kairos-platform/1";

  private PlatformFiles() {}

  /** Reads the file `written` names, from `directory` (the naming model's) when relative. */
  static PlatformFile read(String written, Optional<Path> directory, SourceRef source) {
    final Path path;
    try {
      final Path named = Path.of(written);
      if (!named.isAbsolute() && directory.isEmpty()) {
        return unreadable(
            written, source, "the model is not a file, so a relative path has no base");
      }
      path = named.isAbsolute() ? named : directory.get().resolve(named).normalize();
    } catch (InvalidPathException e) {
      return unreadable(written, source, "not a file name: " + e.getReason());
    }
    final String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (java.nio.file.NoSuchFileException e) {
      return unreadable(written, source, "does not exist: write it with kairos probe -o");
    } catch (IOException e) {
      return unreadable(written, source, "cannot be read: " + e.getMessage());
    }
    try {
      final JsonElement root = JsonParser.parseString(text);
      if (!root.isJsonObject()) {
        return unreadable(written, source, "is not a JSON object");
      }
      final JsonObject platform = root.getAsJsonObject();
      if (!platform.has("format")
          || !platform.get("format").isJsonPrimitive()
          || !FORMAT.equals(platform.get("format").getAsString())) {
        return unreadable(written, source, "is not a platform file (format " + FORMAT + ")");
      }
      return new PlatformFile(
          written,
          source,
          Optional.of(
              new Overheads(
                  text(platform, "measured_at"),
                  text(platform, "measured_by"),
                  text(platform, "cpu_model"),
                  text(platform, "scheduling"),
                  figure(platform, "release_lateness_ns", "max"),
                  figure(platform, "context_switch_ns", "max"),
                  figure(platform, "ceiling_lock_ns", "max"),
                  figure(platform, "context_switch_ns", "p99.9"),
                  figure(platform, "ceiling_lock_ns", "p99.9"),
                  figureIfMeasured(platform, "dispatch_handoff_ns", "max"),
                  figureIfMeasured(platform, "orb_call_ns", "max"),
                  figureIfMeasured(platform, "orb_call_ns", "p99.9"),
                  figureIfMeasured(platform, "channel_transport_ns", "max"),
                  figureIfMeasured(platform, "channel_transport_ns", "p99.9"),
                  figureIfMeasured(platform, "orb_call_tls_ns", "max"),
                  figureIfMeasured(platform, "orb_call_tls_ns", "p99.9"))),
          "");
    } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
      final Throwable reason = e.getCause() != null ? e.getCause() : e;
      return unreadable(written, source, "is not valid JSON: " + firstLine(reason.getMessage()));
    } catch (MissingFigure e) {
      return unreadable(written, source, e.getMessage());
    }
  }

  /** Every platform file of the system that could not be read, once each, in model order. */
  public static List<PlatformFile> problems(SystemModel system) {
    final Set<PlatformFile> seen = new LinkedHashSet<>();
    for (Platform.Node node : system.nodes()) {
      node.hardware().platform().filter(f -> f.overheads().isEmpty()).ifPresent(seen::add);
    }
    return new ArrayList<>(seen);
  }

  /** What `kairos` says of a platform file it could not read. */
  public static String message(PlatformFile file) {
    return "platform file '" + file.path() + "' " + file.problem();
  }

  private static PlatformFile unreadable(String written, SourceRef source, String problem) {
    return new PlatformFile(written, source, Optional.empty(), problem);
  }

  private static String text(JsonObject platform, String key) {
    final JsonElement value = platform.get(key);
    return value != null && value.isJsonPrimitive() ? value.getAsString() : "";
  }

  /**
   * One figure of a distribution that not every probe writes (those before the dispatch handoff and
   * the ORB call, and those built without Cyclone DDS for the channel transport): 0 when the file
   * has no such distribution, else as {@link #figure}.
   */
  private static long figureIfMeasured(JsonObject platform, String key, String which)
      throws MissingFigure {
    return platform.has(key) ? figure(platform, key, which) : 0;
  }

  /** One figure (`max`, `p99.9`) of a distribution the file gives, in whole nanoseconds. */
  private static long figure(JsonObject platform, String key, String which) throws MissingFigure {
    final JsonElement distribution = platform.get(key);
    if (distribution == null
        || !distribution.isJsonObject()
        || !distribution.getAsJsonObject().has(which)
        || !distribution.getAsJsonObject().get(which).isJsonPrimitive()) {
      throw new MissingFigure("has no " + key + " with a " + which + " (run kairos probe again)");
    }
    final long value;
    try {
      value = distribution.getAsJsonObject().get(which).getAsBigDecimal().longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new MissingFigure(
          "has a " + key + "." + which + " that is not a whole number of nanoseconds");
    }
    if (value < 0) {
      throw new MissingFigure("has a negative " + key + "." + which);
    }
    return value;
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }

  private static final class MissingFigure extends Exception {
    private static final long serialVersionUID = 1L;

    MissingFigure(String message) {
      super(message);
    }
  }
}
