package dev.kairos.ir.wire;

import dev.kairos.ir.SystemModel;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types.Aggregate;
import dev.kairos.ir.Types.Alias;
import dev.kairos.ir.Types.Enumeration;
import dev.kairos.ir.Types.Field;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The largest number of bytes a value of a type can take on the wire (docs/marshalling.md), so the
 * ORB can size its preallocated buffers, the analysis can bound a message's time on a link and
 * reject one the ORB cannot carry. Every type is bounded, so this is known before any code is
 * generated.
 *
 * <p>Padding depends on where a value starts: a primitive of size k is aligned to k from the start
 * of the body. Since alignments are 1, 2, 4 or 8, what matters of a position is its remainder mod
 * 8, its <em>phase</em>. A type is therefore described by an 8 x 8 table: the most bytes it can
 * take when it starts at phase p and ends at phase q (or none where it cannot end there). Fields in
 * a row combine as a (max, +) matrix product, a sequence of up to N elements as the sum of the
 * element's powers 0..N (computed by doubling, so large bounds cost log N products). The result is
 * exact — the true maximum over all values — rather than a padding guess per field, and {@link
 * #anyStart} takes the worst start phase, so it holds wherever the value is placed.
 */
public final class MaxEncodedSize {
  static final int PHASES = 8;
  private static final long NONE = -1;

  private final Map<String, TypeDeclaration> declarations = new HashMap<>();
  private final Map<String, long[][]> memo = new HashMap<>();

  public MaxEncodedSize(SystemModel system) {
    this(system.types());
  }

  public MaxEncodedSize(List<TypeDeclaration> types) {
    for (TypeDeclaration declaration : types) {
      declarations.put(key(declaration.namespace(), declaration.name()), declaration);
    }
  }

  /** The most bytes of a declared type, wherever it starts. */
  public long anyStart(TypeDeclaration declaration) {
    return worst(table(declaration), false);
  }

  /** The most bytes of a use of a type (with an array size, 0 for none), wherever it starts. */
  public long anyStart(TypeUse type, int arraySize) {
    return worst(table(type, arraySize), false);
  }

  /**
   * The most bytes of a whole message body: the given types in a row, starting at offset 0 (a body
   * starts 8-aligned).
   */
  public long body(List<TypeUse> types) {
    long[][] table = identity();
    for (TypeUse type : types) {
      table = product(table, table(type, 0));
    }
    return worst(table, true);
  }

  private static long worst(long[][] table, boolean alignedStart) {
    long worst = 0;
    for (int p = 0; p < (alignedStart ? 1 : PHASES); p++) {
      for (int q = 0; q < PHASES; q++) {
        worst = Math.max(worst, table[p][q]);
      }
    }
    return worst;
  }

  private long[][] table(TypeDeclaration declaration) {
    final String key = key(declaration.namespace(), declaration.name());
    final long[][] known = memo.get(key);
    if (known != null) {
      return known;
    }
    long[][] table;
    if (declaration instanceof Enumeration) {
      table = primitive(4);
    } else if (declaration instanceof Alias alias) {
      table = table(alias.type(), alias.arraySize());
    } else {
      table = identity();
      for (Field field : ((Aggregate) declaration).fields()) {
        table = product(table, table(field.type(), field.arraySize()));
      }
    }
    memo.put(key, table);
    return table;
  }

  private long[][] table(TypeUse type, int arraySize) {
    final long[][] one = table(type);
    return arraySize > 0 ? power(one, arraySize) : one;
  }

  private long[][] table(TypeUse type) {
    if (type instanceof TypeUse.Primitive p) {
      return primitive(size(p.kind()));
    }
    if (type instanceof TypeUse.BoundedString s) {
      return product(primitive(4), upTo(primitive(1), s.bound()));
    }
    if (type instanceof TypeUse.Sequence s) {
      return product(primitive(4), upTo(table(s.element()), s.bound()));
    }
    final TypeUse.Named named = (TypeUse.Named) type;
    final TypeDeclaration declaration = declarations.get(key(named.namespace(), named.name()));
    if (declaration == null) {
      throw new IllegalStateException("unresolved type in the IR: " + key(named.namespace(), ""));
    }
    return table(declaration);
  }

  /** The size of a primitive on the wire, which is also its alignment. */
  public static int size(TypeUse.PrimitiveKind kind) {
    return switch (kind) {
      case OCTET, BOOL, CHAR, INT8, UINT8 -> 1;
      case INT16, UINT16 -> 2;
      case INT32, UINT32, FLOAT -> 4;
      case INT64, UINT64, DOUBLE -> 8;
    };
  }

  /** A primitive of `size` bytes aligned to its size: padding, then the bytes. */
  static long[][] primitive(int size) {
    final long[][] table = none();
    for (int p = 0; p < PHASES; p++) {
      final int padding = (size - p % size) % size;
      table[p][(p + padding + size) % PHASES] = padding + size;
    }
    return table;
  }

  static long[][] identity() {
    final long[][] table = none();
    for (int p = 0; p < PHASES; p++) {
      table[p][p] = 0;
    }
    return table;
  }

  private static long[][] none() {
    final long[][] table = new long[PHASES][PHASES];
    for (long[] row : table) {
      Arrays.fill(row, NONE);
    }
    return table;
  }

  /** a, then b: the most bytes over every phase where a may end and b begin. */
  static long[][] product(long[][] a, long[][] b) {
    final long[][] result = none();
    for (int p = 0; p < PHASES; p++) {
      for (int m = 0; m < PHASES; m++) {
        if (a[p][m] == NONE) {
          continue;
        }
        for (int q = 0; q < PHASES; q++) {
          if (b[m][q] != NONE) {
            result[p][q] = Math.max(result[p][q], saturatedSum(a[p][m], b[m][q]));
          }
        }
      }
    }
    return result;
  }

  /** Either a or b: the most bytes of the two for each pair of phases. */
  private static long[][] either(long[][] a, long[][] b) {
    final long[][] result = none();
    for (int p = 0; p < PHASES; p++) {
      for (int q = 0; q < PHASES; q++) {
        result[p][q] = Math.max(a[p][q], b[p][q]);
      }
    }
    return result;
  }

  /** Exactly n elements in a row (a fixed array). */
  static long[][] power(long[][] element, long n) {
    long[][] result = identity();
    long[][] square = element;
    for (long rest = n; rest > 0; rest >>= 1) {
      if ((rest & 1) == 1) {
        result = product(result, square);
      }
      square = product(square, square);
    }
    return result;
  }

  /** Any number of elements from 0 to n (a bounded sequence's elements). */
  static long[][] upTo(long[][] element, long n) {
    return sumAndPower(element, n).get(0);
  }

  /** [0..n elements, exactly n elements], by halving n: 0..2m = 0..m, then m more at most. */
  private static List<long[][]> sumAndPower(long[][] element, long n) {
    if (n == 0) {
      return List.of(identity(), identity());
    }
    final List<long[][]> half = sumAndPower(element, n / 2);
    final long[][] upToHalf = half.get(0);
    long[][] powerHalf = half.get(1);
    final List<long[][]> result = new ArrayList<>();
    if (n % 2 == 0) {
      result.add(either(upToHalf, product(powerHalf, upToHalf)));
      result.add(product(powerHalf, powerHalf));
    } else {
      powerHalf = product(powerHalf, element); // element^(m+1)
      result.add(either(upToHalf, product(powerHalf, upToHalf)));
      result.add(product(powerHalf, half.get(1)));
    }
    return result;
  }

  /**
   * Sizes beyond 2^63 - 1 bytes are possible on paper (nested sequences with huge bounds); they
   * stay at that value, which no buffer can hold anyway.
   */
  private static long saturatedSum(long a, long b) {
    final long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** A declared type's name, qualified by its package: how the tables of sizes look it up. */
  static String key(List<String> namespace, String name) {
    return String.join(".", namespace) + "." + name;
  }
}
