package dev.kairos.generator.emit;

import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types;
import dev.kairos.ir.Types.Direction;
import java.math.BigInteger;
import java.util.List;

/** How model names and types are spelled in generated C++. */
public final class CppNames {
  private CppNames() {}

  public static String namespace(List<String> namespace) {
    return String.join("::", namespace);
  }

  /** Fully qualified, so generated code never depends on using-directives. */
  public static String qualified(List<String> namespace, String name) {
    return namespace.isEmpty() ? "::" + name : "::" + namespace(namespace) + "::" + name;
  }

  public static String type(TypeUse type) {
    if (type instanceof TypeUse.Primitive p) {
      return primitive(p.kind());
    }
    if (type instanceof TypeUse.BoundedString s) {
      return "::kairos::BoundedString<" + s.bound() + ">";
    }
    if (type instanceof TypeUse.Sequence s) {
      return "::kairos::BoundedSequence<" + type(s.element()) + ", " + s.bound() + ">";
    }
    final TypeUse.Named n = (TypeUse.Named) type;
    return qualified(n.namespace(), n.name());
  }

  /** The type of a field or typedef, wrapped in std::array when it has a fixed size. */
  public static String type(TypeUse type, int arraySize) {
    return arraySize > 0 ? "::std::array<" + type(type) + ", " + arraySize + ">" : type(type);
  }

  static String primitive(TypeUse.PrimitiveKind kind) {
    return switch (kind) {
      case OCTET, UINT8 -> "::std::uint8_t";
      case BOOL -> "bool";
      case CHAR -> "char";
      case INT8 -> "::std::int8_t";
      case INT16 -> "::std::int16_t";
      case UINT16 -> "::std::uint16_t";
      case INT32 -> "::std::int32_t";
      case UINT32 -> "::std::uint32_t";
      case INT64 -> "::std::int64_t";
      case UINT64 -> "::std::uint64_t";
      case FLOAT -> "float";
      case DOUBLE -> "double";
    };
  }

  /** Parameter passing: small primitives by value, everything else by reference. */
  public static String parameter(Direction direction, TypeUse type) {
    if (direction == Direction.IN) {
      return type instanceof TypeUse.Primitive ? type(type) : "const " + type(type) + "&";
    }
    return type(type) + "&";
  }

  /** A segment or other lower-case model name used as a C++ type: capitalised. */
  public static String typeName(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  /** A C++ string literal for plain model text (names, file:line). */
  public static String literal(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /**
   * A value as C++ spells it for a constant or member of the given type (aliases already resolved
   * to what they stand for; null where it is not known): a number in the literal form the type
   * takes without a conversion warning (a {@code float}'s with an {@code F}, a floating type's with
   * a fraction, an integer's in decimal), a constant by its qualified name.
   */
  public static String value(Types.Value value, TypeUse type) {
    if (value instanceof Types.NumberValue number) {
      return number(number, type instanceof TypeUse.Primitive p ? p.kind() : null);
    }
    if (value instanceof Types.ConstantValue constant) {
      return qualified(constant.namespace(), constant.name());
    }
    if (value instanceof Types.TextValue text) {
      return quoted(text.text());
    }
    if (value instanceof Types.BoolValue bool) {
      return bool.value() ? "true" : "false";
    }
    final Types.EnumValue literal = (Types.EnumValue) value;
    return (literal.namespace().isEmpty() ? "" : "::" + String.join("::", literal.namespace()))
        + "::"
        + literal.enumeration()
        + "::"
        + literal.literal();
  }

  private static String number(Types.NumberValue number, TypeUse.PrimitiveKind kind) {
    final String sign = number.negative() ? "-" : "";
    final String digits = number.digits();
    if (kind == TypeUse.PrimitiveKind.FLOAT || kind == TypeUse.PrimitiveKind.DOUBLE) {
      final boolean floating = digits.chars().anyMatch(c -> c == '.' || c == 'e' || c == 'E');
      return sign
          + digits
          + (floating ? "" : ".0")
          + (kind == TypeUse.PrimitiveKind.FLOAT ? "F" : "");
    }
    if (!digits.chars().allMatch(Character::isDigit)) {
      return sign + digits; // validation keeps fractions from integers; shown as written
    }
    // Decimal always (a leading zero would make an octal literal), and with the suffix a value
    // beyond long long needs; the most negative int64 has no literal of its own.
    final BigInteger magnitude = new BigInteger(digits);
    if (magnitude.compareTo(LONG_LONG_MAX) > 0) {
      return number.negative() ? "(-" + LONG_LONG_MAX + " - 1)" : magnitude + "U";
    }
    return sign + magnitude;
  }

  private static final BigInteger LONG_LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  /** A string literal with the escapes a model string may need. */
  private static String quoted(String text) {
    final StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\%03o", (int) c)); // no raw control character in source
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
