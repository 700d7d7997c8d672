package dev.kairos.generator.lowering;

import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Orders type declarations so that every type follows the types it contains by value, keeping the
 * model's own order wherever it already works (C++ needs complete types for members).
 */
final class DependencyOrder {
  private DependencyOrder() {}

  static List<TypeDeclaration> sort(Map<TypeDeclaration, List<TypeUse.Named>> dependencies) {
    final Map<String, TypeDeclaration> byName = new HashMap<>();
    for (TypeDeclaration declaration : dependencies.keySet()) {
      byName.put(ModelLowering.qualified(declaration.namespace(), declaration.name()), declaration);
    }
    final List<TypeDeclaration> ordered = new ArrayList<>();
    final Set<TypeDeclaration> done = new HashSet<>();
    final Set<TypeDeclaration> inProgress = new HashSet<>();
    for (TypeDeclaration declaration : dependencies.keySet()) {
      visit(declaration, dependencies, byName, done, inProgress, ordered);
    }
    return ordered;
  }

  private static void visit(
      TypeDeclaration declaration,
      Map<TypeDeclaration, List<TypeUse.Named>> dependencies,
      Map<String, TypeDeclaration> byName,
      Set<TypeDeclaration> done,
      Set<TypeDeclaration> inProgress,
      List<TypeDeclaration> ordered) {
    if (done.contains(declaration)) {
      return;
    }
    if (!inProgress.add(declaration)) {
      throw new IllegalStateException(
          "type "
              + declaration.name()
              + " contains itself by value ("
              + declaration.source()
              + ")");
    }
    for (TypeUse.Named use : dependencies.getOrDefault(declaration, List.of())) {
      final TypeDeclaration target =
          byName.get(ModelLowering.qualified(use.namespace(), use.name()));
      if (target != null) {
        visit(target, dependencies, byName, done, inProgress, ordered);
      }
    }
    inProgress.remove(declaration);
    done.add(declaration);
    ordered.add(declaration);
  }
}
