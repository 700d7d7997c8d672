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
    /** Other generated text (CMake): rewritten when changed, not formatted. */
    TEXT,
    /** A starting point for hand-written code: written once, never overwritten. */
    USER_STARTER
  }

  public boolean isCpp() {
    return path.endsWith(".hpp") || path.endsWith(".cpp");
  }
}
