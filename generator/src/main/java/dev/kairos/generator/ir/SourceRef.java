package dev.kairos.generator.ir;

/** Where a model element is written: the model file as the user named it, and its line. */
public record SourceRef(String file, int line) {
  @Override
  public String toString() {
    return file + ":" + line;
  }
}
