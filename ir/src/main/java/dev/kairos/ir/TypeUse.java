package dev.kairos.ir;

import java.util.List;

/** A use of a type: in a field, a parameter, a result or a channel. */
public sealed interface TypeUse {

  /** The IDL primitives with their fixed-width C++ counterparts. */
  enum PrimitiveKind {
    OCTET,
    BOOL,
    CHAR,
    INT8,
    UINT8,
    INT16,
    UINT16,
    INT32,
    UINT32,
    INT64,
    UINT64,
    FLOAT,
    DOUBLE
  }

  record Primitive(PrimitiveKind kind) implements TypeUse {}

  /** string&lt;bound&gt;. */
  record BoundedString(int bound) implements TypeUse {}

  /** sequence&lt;element, bound&gt;. */
  record Sequence(TypeUse element, int bound) implements TypeUse {}

  /** A declared type, by its namespace path and name. */
  record Named(List<String> namespace, String name) implements TypeUse {}
}
