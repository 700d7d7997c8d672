package dev.kairos.ir.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.TypeUse.PrimitiveKind;
import dev.kairos.ir.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The least encoded sizes bound every value's encoding from below: empty strings and sequences,
 * fixed sizes for the rest, no padding. Where nothing needs padding they are exact.
 */
class LeastEncodedSizeTest {
  private static final SourceRef AT = new SourceRef("m.tmo", 1);
  private static final List<String> PACKAGE = List.of("m");

  private static TypeUse primitive(PrimitiveKind kind) {
    return new TypeUse.Primitive(kind);
  }

  private static TypeUse named(String name) {
    return new TypeUse.Named(PACKAGE, name);
  }

  private static Types.Aggregate struct(String name, Types.Field... fields) {
    return new Types.Aggregate(PACKAGE, name, Types.DeclarationKind.STRUCT, List.of(fields), AT);
  }

  private static Types.Field field(String name, TypeUse type, int arraySize) {
    return new Types.Field(name, type, arraySize, AT);
  }

  @Test
  void aFixedSizeBodyWithoutPaddingIsExact() {
    final Types.Aggregate frame =
        struct("Frame", field("body", primitive(PrimitiveKind.OCTET), 18));
    final List<Types.TypeDeclaration> types = List.of(frame);
    assertEquals(18, new LeastEncodedSize(types).body(List.of(named("Frame"))));
    assertEquals(18, new MaxEncodedSize(types).body(List.of(named("Frame"))));
  }

  @Test
  void stringsAndSequencesMayBeEmpty() {
    final LeastEncodedSize sizes = new LeastEncodedSize(List.of());
    assertEquals(4, sizes.body(List.of(new TypeUse.BoundedString(32))));
    assertEquals(4, sizes.body(List.of(new TypeUse.Sequence(primitive(PrimitiveKind.DOUBLE), 9))));
  }

  @Test
  void itNeverExceedsTheLargestEncoding() {
    final List<Types.TypeDeclaration> types =
        List.of(
            new Types.Enumeration(PACKAGE, "Mode", List.of("A", "B"), AT),
            new Types.Alias(PACKAGE, "Pair", primitive(PrimitiveKind.INT16), 2, AT),
            struct(
                "Mixed",
                field("flag", primitive(PrimitiveKind.OCTET), 0),
                field("value", primitive(PrimitiveKind.DOUBLE), 0),
                field("mode", named("Mode"), 3),
                field("pair", named("Pair"), 0),
                field("name", new TypeUse.BoundedString(8), 2)));
    final List<TypeUse> body = List.of(primitive(PrimitiveKind.OCTET), named("Mixed"));
    // octet, then Mixed: 1 + (1 + 8 + 3 * 4 + 2 * 2 + 2 * 4) without padding or characters.
    assertEquals(1 + 33, new LeastEncodedSize(types).body(body));
    assertTrue(new LeastEncodedSize(types).body(body) <= new MaxEncodedSize(types).body(body));
  }
}
