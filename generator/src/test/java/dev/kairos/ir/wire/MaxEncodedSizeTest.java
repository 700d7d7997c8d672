package dev.kairos.ir.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.TypeUse.PrimitiveKind;
import dev.kairos.ir.Types;
import dev.kairos.ir.Types.TypeDeclaration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The maximum encoded sizes are exact: padding is counted where the value's start and its data can
 * put it, and nowhere else. A brute force over every start offset and sequence length (small
 * bounds) must agree with the phase tables.
 */
class MaxEncodedSizeTest {
  private static final SourceRef AT = new SourceRef("m.tmo", 1);
  private static final List<String> PACKAGE = List.of("m");

  private static TypeUse primitive(PrimitiveKind kind) {
    return new TypeUse.Primitive(kind);
  }

  private static Types.Field field(String name, TypeUse type, int arraySize) {
    return new Types.Field(name, type, arraySize, AT);
  }

  private static Types.Aggregate struct(String name, Types.Field... fields) {
    return new Types.Aggregate(PACKAGE, name, Types.DeclarationKind.STRUCT, List.of(fields), AT);
  }

  private static TypeUse named(String name) {
    return new TypeUse.Named(PACKAGE, name);
  }

  @Test
  void aPrimitiveIsPaddedByAtMostItsSizeLessOne() {
    final MaxEncodedSize sizes = new MaxEncodedSize(List.of());
    assertEquals(1, sizes.anyStart(primitive(PrimitiveKind.OCTET), 0));
    assertEquals(3, sizes.anyStart(primitive(PrimitiveKind.INT16), 0));
    assertEquals(15, sizes.anyStart(primitive(PrimitiveKind.DOUBLE), 0));
    assertEquals(8, sizes.body(List.of(primitive(PrimitiveKind.DOUBLE))));
  }

  @Test
  void paddingIsCountedOnlyWhereTheStartCanPutIt() {
    // octet then double: from offset 0, 1 + 7 + 8 = 16; from 7, 1 + 0 + 8 = 9. Never 1 + 7 + 15.
    final TypeDeclaration pair =
        struct(
            "Pair",
            field("a", primitive(PrimitiveKind.OCTET), 0),
            field("b", primitive(PrimitiveKind.DOUBLE), 0));
    final MaxEncodedSize sizes = new MaxEncodedSize(List.of(pair));
    assertEquals(16, sizes.anyStart(pair));
    // Consecutive doubles of an array are padded once.
    assertEquals(7 + 8 * 100, sizes.anyStart(primitive(PrimitiveKind.DOUBLE), 100));
  }

  @Test
  void aSequenceTakesItsLengthAndAtMostItsBoundOfElements() {
    final MaxEncodedSize sizes = new MaxEncodedSize(List.of());
    // uint32 length at 0, then 4 bytes of padding, then 1024 doubles.
    assertEquals(
        4 + 4 + 8 * 1024,
        sizes.body(List.of(new TypeUse.Sequence(primitive(PrimitiveKind.DOUBLE), 1024))));
    assertEquals(4 + 32, sizes.body(List.of(new TypeUse.BoundedString(32))));
    // A large bound costs log(bound) table products, not bound of them.
    assertEquals(
        4 + 2_000_000_000L,
        sizes.body(List.of(new TypeUse.Sequence(primitive(PrimitiveKind.OCTET), 2_000_000_000))));
  }

  @Test
  void nestedSizesThatOverflowSaturate() {
    final TypeUse huge =
        new TypeUse.Sequence(
            new TypeUse.Sequence(
                new TypeUse.Sequence(primitive(PrimitiveKind.UINT64), Integer.MAX_VALUE),
                Integer.MAX_VALUE),
            Integer.MAX_VALUE);
    assertEquals(Long.MAX_VALUE, new MaxEncodedSize(List.of()).body(List.of(huge)));
  }

  @Test
  void phaseTablesAgreeWithABruteForceOverStartsAndLengths() {
    // struct Inner { octet tag; sequence<int16, 3> values; }
    // struct Outer { uint32 n; sequence<Inner, 2> inner; char c; double d[2]; }
    final TypeDeclaration inner =
        struct(
            "Inner",
            field("tag", primitive(PrimitiveKind.OCTET), 0),
            field("values", new TypeUse.Sequence(primitive(PrimitiveKind.INT16), 3), 0));
    final TypeDeclaration outer =
        struct(
            "Outer",
            field("n", primitive(PrimitiveKind.UINT32), 0),
            field("inner", new TypeUse.Sequence(named("Inner"), 2), 0),
            field("c", primitive(PrimitiveKind.CHAR), 0),
            field("d", primitive(PrimitiveKind.DOUBLE), 2));
    final MaxEncodedSize sizes = new MaxEncodedSize(List.of(inner, outer));

    // Every shape of an Outer: its primitives (size of each) in order, for all sequence lengths.
    long worst = 0;
    for (List<Integer> shape : outerShapes()) {
      for (int start = 0; start < 8; start++) {
        long position = start;
        for (int size : shape) {
          position += (size - position % size) % size + size;
        }
        worst = Math.max(worst, position - start);
      }
    }
    assertEquals(worst, sizes.anyStart(outer));
  }

  /** The primitive sizes an Outer writes, for each choice of sequence lengths. */
  private static List<List<Integer>> outerShapes() {
    final List<List<Integer>> shapes = new ArrayList<>();
    final List<List<Integer>> inners = new ArrayList<>();
    for (int values = 0; values <= 3; values++) {
      final List<Integer> one = new ArrayList<>(List.of(1, 4));
      for (int i = 0; i < values; i++) {
        one.add(2);
      }
      inners.add(one);
    }
    for (int count = 0; count <= 2; count++) {
      for (List<Integer> first : inners) {
        for (List<Integer> second : inners) {
          final List<Integer> shape = new ArrayList<>(List.of(4, 4));
          if (count >= 1) {
            shape.addAll(first);
          }
          if (count == 2) {
            shape.addAll(second);
          }
          shape.addAll(List.of(1, 8, 8));
          shapes.add(shape);
        }
      }
    }
    return shapes;
  }
}
