package dev.kairos.generator.emit;

/**
 * One file the generator produces.
 *
 * @param path relative to its root: the output directory, or for {@link Kind#USER_STARTER} the
 *     directory of hand-written code
 */
public record GeneratedFile(String path, String content, Kind kind) {
  public enum Kind {
    /** C++ owned by the generator: rewritten (when changed) on every run, formatted. */
    CPP,
    /**
     * C++ owned by the generator whose emitter already writes the project's clang-format layout (a
     * test holds it to that): not reformatted, because clang-format takes far longer on large
     * constant tables than emitting them. A line past the column limit is formatted after all.
     */
    CPP_FORMATTED,
    /** Other generated text (CMake): rewritten when changed, not formatted. */
    TEXT,
    /**
     * A starting point for hand-written code: written once, never overwritten; laid out by its
     * emitter like {@link #CPP_FORMATTED}.
     */
    USER_STARTER
  }

  public boolean isCpp() {
    return path.endsWith(".hpp") || path.endsWith(".cpp");
  }

  /**
   * C++ that clang-format must lay out: generated {@link Kind#CPP}, and files whose emitter lays
   * them out itself ({@link Kind#CPP_FORMATTED}, starters) only where a line passes the limit.
   */
  public boolean needsFormatting() {
    return isCpp()
        && (kind == Kind.CPP
            || content.lines().anyMatch(line -> line.length() > CodeWriter.COLUMN_LIMIT));
  }
}
