package dev.kairos.ir.wire;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fewest bytes a value of a type can take on the wire (docs/marshalling.md), the counterpart of
 * {@link MaxEncodedSize}: a frame cannot have arrived before its last bit has, so the analysis
 * takes a message's least size as the soonest it can cross a link. A string or a sequence may be
 * empty (its length alone, 4 bytes); everything else has its fixed size. Padding only ever adds
 * bytes, so the members' least sizes summed without it bound a body from below; the bound is exact
 * where no member needs padding, as in a body of octets or of members in falling order of size.
 */
public final class LeastEncodedSize {
  private static final long LENGTH_BYTES = 4;

  private final Map<String, TypeDeclaration> declarations = new HashMap<>();
  private final Map<String, Long> memo = new HashMap<>();

  public LeastEncodedSize(SystemModel system) {
    this(system.types());
  }

  public LeastEncodedSize(List<TypeDeclaration> types) {
    for (TypeDeclaration declaration : types) {
      declarations.put(
          MaxEncodedSize.key(declaration.namespace(), declaration.name()), declaration);
    }
  }

  /** The fewest bytes of a message body holding values of the given types in a row. */
  public long body(List<TypeUse> types) {
    long bytes = 0;
    for (TypeUse type : types) {
      bytes = Math.addExact(bytes, of(type, 0));
    }
    return bytes;
  }

  /** The fewest bytes of a use of a type, with an array size (0 for none). */
  public long of(TypeUse type, int arraySize) {
    final long one = of(type);
    return arraySize > 0 ? Math.multiplyExact(one, arraySize) : one;
  }

  private long of(TypeUse type) {
    if (type instanceof TypeUse.Primitive primitive) {
      return MaxEncodedSize.size(primitive.kind());
    }
    if (type instanceof TypeUse.BoundedString || type instanceof TypeUse.Sequence) {
      return LENGTH_BYTES;
    }
    final TypeUse.Named named = (TypeUse.Named) type;
    final String key = MaxEncodedSize.key(named.namespace(), named.name());
    final Long known = memo.get(key);
    if (known != null) {
      return known;
    }
    final TypeDeclaration declaration = declarations.get(key);
    if (declaration == null) {
      throw new IllegalStateException("unresolved type in the IR: " + key);
    }
    final long bytes;
    if (declaration instanceof Enumeration) {
      bytes = 4;
    } else if (declaration instanceof Alias alias) {
      bytes = of(alias.type(), alias.arraySize());
    } else {
      long sum = 0;
      for (Field field : ((Aggregate) declaration).fields()) {
        sum = Math.addExact(sum, of(field.type(), field.arraySize()));
      }
      bytes = sum;
    }
    memo.put(key, bytes);
    return bytes;
  }
}
