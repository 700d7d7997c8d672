package dev.kairos.ir;

/**
 * Where a model element is written: the model file as the user named it, its line, and the column
 * (1-based) where a diagnostic about it should point; 1 where only the line is known.
 */
public record SourceRef(String file, int line, int column) {
  public SourceRef(String file, int line) {
    this(file, line, 1);
  }

  @Override
  public String toString() {
    return file + ":" + line;
  }
}
