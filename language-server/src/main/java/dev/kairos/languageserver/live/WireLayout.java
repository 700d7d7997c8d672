package dev.kairos.languageserver.live;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import dev.kairos.ir.wire.MaxEncodedSize;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a declared type travels on the wire (docs/marshalling.md): the most bytes a value can take,
 * wherever it starts and as a whole message body, the strictest alignment among its primitives (the
 * padding it may need), and whether its size varies (bounded strings and sequences).
 */
public final class WireLayout {
  /** The layout of one type. */
  public record Layout(long maxBytes, long maxBodyBytes, int alignment, boolean variable) {}

  private final Map<String, TypeDeclaration> declarations = new HashMap<>();
  private final MaxEncodedSize sizes;

  WireLayout(SystemModel system) {
    for (TypeDeclaration declaration : system.types()) {
      declarations.put(key(declaration.namespace(), declaration.name()), declaration);
    }
    sizes = new MaxEncodedSize(system);
  }

  /** The layout of the type declared as `name` in package `namespace`, if the IR has it. */
  public synchronized Optional<Layout> of(List<String> namespace, String name) {
    final TypeDeclaration declaration = declarations.get(key(namespace, name));
    if (declaration == null) {
      return Optional.empty();
    }
    final TypeUse use = new TypeUse.Named(declaration.namespace(), declaration.name());
    return Optional.of(
        new Layout(
            sizes.anyStart(declaration),
            sizes.body(List.of(use)),
            alignment(declaration, 0),
            variable(declaration, 0)));
  }

  private int alignment(TypeDeclaration declaration, int depth) {
    if (declaration instanceof Enumeration) {
      return 4;
    }
    if (declaration instanceof Alias alias) {
      return alignment(alias.type(), depth + 1);
    }
    int strictest = 1;
    for (Field field : ((Aggregate) declaration).fields()) {
      strictest = Math.max(strictest, alignment(field.type(), depth + 1));
    }
    return strictest;
  }

  private int alignment(TypeUse type, int depth) {
    if (type instanceof TypeUse.Primitive primitive) {
      return MaxEncodedSize.size(primitive.kind());
    }
    if (type instanceof TypeUse.BoundedString) {
      return 4; // the length prefix
    }
    if (type instanceof TypeUse.Sequence sequence) {
      return Math.max(4, alignment(sequence.element(), depth + 1));
    }
    final TypeDeclaration declared = named(type);
    // The IR is validated (no type contains itself); the depth bound only guards against a bug.
    return declared == null || depth > 64 ? 1 : alignment(declared, depth);
  }

  private boolean variable(TypeDeclaration declaration, int depth) {
    if (declaration instanceof Enumeration) {
      return false;
    }
    if (declaration instanceof Alias alias) {
      return variable(alias.type(), depth + 1);
    }
    for (Field field : ((Aggregate) declaration).fields()) {
      if (variable(field.type(), depth + 1)) {
        return true;
      }
    }
    return false;
  }

  private boolean variable(TypeUse type, int depth) {
    if (type instanceof TypeUse.Primitive) {
      return false;
    }
    if (type instanceof TypeUse.BoundedString || type instanceof TypeUse.Sequence) {
      return true;
    }
    final TypeDeclaration declared = named(type);
    return declared != null && depth <= 64 && variable(declared, depth);
  }

  private TypeDeclaration named(TypeUse type) {
    return type instanceof TypeUse.Named named
        ? declarations.get(key(named.namespace(), named.name()))
        : null;
  }

  private static String key(List<String> namespace, String name) {
    return String.join(".", namespace) + "." + name;
  }
}
