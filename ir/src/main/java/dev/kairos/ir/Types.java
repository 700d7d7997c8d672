package dev.kairos.ir;

import java.util.List;
import java.util.Optional;

/** IDL declarations, grouped as the generated types.hpp needs them. */
public final class Types {
  private Types() {}

  /**
   * A field of a struct, exception or ODS segment; arraySize 0 means not an array. A segment's
   * field may have the value it starts with (validation keeps initial values to segments' fields of
   * a primitive, string or enum type); without one it starts value-initialised (zero).
   */
  public record Field(
      String name, TypeUse type, int arraySize, Optional<Value> initial, SourceRef source) {
    public Field(String name, TypeUse type, int arraySize, SourceRef source) {
      this(name, type, arraySize, Optional.empty(), source);
    }
  }

  public enum DeclarationKind {
    STRUCT,
    EXCEPTION
  }

  /** A declared type: what types.hpp defines, in an order where uses follow definitions. */
  public sealed interface TypeDeclaration {
    List<String> namespace();

    String name();

    SourceRef source();
  }

  /** A struct or an exception: both are plain aggregates in C++. */
  public record Aggregate(
      List<String> namespace,
      String name,
      DeclarationKind kind,
      List<Field> fields,
      SourceRef source)
      implements TypeDeclaration {}

  public record Enumeration(
      List<String> namespace, String name, List<String> literals, SourceRef source)
      implements TypeDeclaration {}

  public record Alias(
      List<String> namespace, String name, TypeUse type, int arraySize, SourceRef source)
      implements TypeDeclaration {}

  /** A constant and its value, as the model writes it (emitters spell it in their language). */
  public record Constant(
      List<String> namespace, String name, TypeUse type, Value value, SourceRef source) {}

  /** The value of a constant or of a segment field's initial value. */
  public sealed interface Value {}

  /** A number as written, digits (and fraction or exponent) without its sign. */
  public record NumberValue(boolean negative, String digits) implements Value {}

  public record TextValue(String text) implements Value {}

  public record BoolValue(boolean value) implements Value {}

  /** A literal of an enumeration declared in {@code namespace}. */
  public record EnumValue(List<String> namespace, String enumeration, String literal)
      implements Value {}

  /** The value of the constant {@code name} declared in {@code namespace}, by its name. */
  public record ConstantValue(List<String> namespace, String name) implements Value {}

  public enum Direction {
    IN,
    OUT,
    INOUT
  }

  public record Parameter(Direction direction, TypeUse type, String name) {}

  /** An interface operation; result is null for void. */
  public record Operation(
      String name,
      boolean oneway,
      TypeUse result,
      List<Parameter> parameters,
      List<TypeUse.Named> raises,
      SourceRef source) {}

  public record Interface(
      List<String> namespace, String name, List<Operation> operations, SourceRef source) {}
}
