package dev.kairos.generator.emit;

import java.util.List;

/** Opens and closes C++ namespaces as consecutive declarations move between them. */
final class NamespaceScope {
  private final CodeWriter writer;
  private List<String> current = List.of();

  NamespaceScope(CodeWriter writer) {
    this.writer = writer;
  }

  void enter(List<String> namespace) {
    if (namespace.equals(current)) {
      return;
    }
    leave();
    if (!namespace.isEmpty()) {
      writer.line("namespace $name$ {", "name", CppNames.namespace(namespace)).blank();
    }
    current = namespace;
  }

  void leave() {
    if (!current.isEmpty()) {
      writer.blank().line("}  // namespace $name$", "name", CppNames.namespace(current)).blank();
    }
    current = List.of();
  }
}
