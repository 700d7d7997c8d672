package dev.kairos.generator.ir;

import java.util.List;

/** IDL declarations, grouped as the generated types.hpp needs them. */
public final class Types {
  private Types() {}

  /** A field of a struct, exception or ODS segment; arraySize 0 means not an array. */
  public record Field(String name, TypeUse type, int arraySize, SourceRef source) {}

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

  /** A constant; the value is already a C++ literal of the constant's type. */
  public record Constant(
      List<String> namespace, String name, TypeUse type, String cppValue, SourceRef source) {}

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
