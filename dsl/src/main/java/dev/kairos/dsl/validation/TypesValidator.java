package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.BoolValue;
import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.ConstValue;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.EnumLiteral;
import dev.kairos.dsl.kairos.EnumValue;
import dev.kairos.dsl.kairos.ExceptionDecl;
import dev.kairos.dsl.kairos.Field;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.NumberValue;
import dev.kairos.dsl.kairos.PrimitiveKind;
import dev.kairos.dsl.kairos.PrimitiveTypeRef;
import dev.kairos.dsl.kairos.SequenceTypeRef;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.Struct;
import dev.kairos.dsl.kairos.TextValue;
import dev.kairos.dsl.kairos.TypeRef;
import dev.kairos.dsl.kairos.Typedef;
import dev.kairos.dsl.types.Bounds;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.xtext.validation.Check;

/**
 * IDL types: everything has a bound (real-time code never allocates), nothing contains itself by
 * value, and constants match their types.
 */
public class TypesValidator extends ConcernValidator {

  @Check
  public void checkStringBound(StringTypeRef string) {
    if (!Bounds.written(string, Literals.STRING_TYPE_REF__BOUND, string.getBoundConstant())) {
      error(
          "strings need a bound, e.g. string<32>: generated types never allocate",
          string,
          null,
          IssueCodes.UNBOUNDED_STRING);
      return;
    }
    checkBound(
        Bounds.of(string),
        string.getBoundConstant(),
        Literals.STRING_TYPE_REF__BOUND,
        Literals.STRING_TYPE_REF__BOUND_CONSTANT,
        "a string bound must be at least 1");
  }

  @Check
  public void checkSequenceBound(SequenceTypeRef sequence) {
    checkBound(
        Bounds.of(sequence),
        sequence.getBoundConstant(),
        Literals.SEQUENCE_TYPE_REF__BOUND,
        Literals.SEQUENCE_TYPE_REF__BOUND_CONSTANT,
        "a sequence bound must be at least 1");
  }

  @Check
  public void checkFieldArray(Field field) {
    checkBound(
        Bounds.arraySize(field),
        field.getArraySizeConstant(),
        Literals.FIELD__ARRAY_SIZE,
        Literals.FIELD__ARRAY_SIZE_CONSTANT,
        "an array needs at least 1 element");
  }

  @Check
  public void checkTypedefArray(Typedef alias) {
    checkBound(
        Bounds.arraySize(alias),
        alias.getArraySizeConstant(),
        Literals.TYPEDEF__ARRAY_SIZE,
        Literals.TYPEDEF__ARRAY_SIZE_CONSTANT,
        "an array needs at least 1 element");
    if (contains(alias.getType(), alias)) {
      error(
          "typedef '" + alias.getName() + "' refers to itself",
          Literals.TYPEDEF__NAME,
          IssueCodes.RECURSIVE_TYPE);
    }
  }

  /**
   * A bound or array size is a whole number from 1 up to 2147483647, written as a number or as the
   * name of an integer constant.
   */
  private void checkBound(
      Optional<BigInteger> value,
      ConstDecl constant,
      EStructuralFeature number,
      EStructuralFeature constantFeature,
      String tooSmall) {
    if (constant != null && !constant.eIsProxy() && value.isEmpty()) {
      if (constant.getType() instanceof PrimitiveTypeRef primitive
          && Bounds.INTEGER_KINDS.contains(primitive.getKind())) {
        return; // the constant's own value is wrong, and reported there
      }
      error(
          "'"
              + constant.getName()
              + "' is not an integer constant; a bound is a whole number or the name of one",
          constantFeature,
          IssueCodes.INVALID_BOUND);
      return;
    }
    if (value.isEmpty()) {
      return;
    }
    final EStructuralFeature at = constant != null ? constantFeature : number;
    final String named =
        constant != null ? " (" + constant.getName() + " is " + value.get() + ")" : "";
    if (value.get().signum() <= 0) {
      error(tooSmall + named, at, IssueCodes.INVALID_BOUND);
    } else if (value.get().compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0) {
      error(
          "a bound or array size is at most " + Integer.MAX_VALUE + named,
          at,
          IssueCodes.INVALID_BOUND);
    }
  }

  @Check
  public void checkStructNotRecursive(Struct struct) {
    checkAggregate(struct, struct.getFields(), Literals.STRUCT__NAME);
  }

  @Check
  public void checkExceptionNotRecursive(ExceptionDecl exception) {
    checkAggregate(exception, exception.getFields(), Literals.EXCEPTION_DECL__NAME);
  }

  private void checkAggregate(
      EObject aggregate, List<Field> fields, org.eclipse.emf.ecore.EAttribute name) {
    for (Field field : fields) {
      if (contains(field.getType(), aggregate)) {
        error(
            "'"
                + aggregate.eGet(name)
                + "' contains itself by value (through field '"
                + field.getName()
                + "'); C++ cannot size such a type",
            name,
            IssueCodes.RECURSIVE_TYPE);
        return;
      }
    }
  }

  /** Whether values of `type` contain `target` by value, at any depth. */
  private static boolean contains(TypeRef type, EObject target) {
    final Deque<TypeRef> pending = new ArrayDeque<>();
    final Set<EObject> seen = new HashSet<>();
    pending.push(type);
    while (!pending.isEmpty()) {
      final TypeRef current = pending.pop();
      if (current instanceof SequenceTypeRef sequence && sequence.getElementType() != null) {
        pending.push(sequence.getElementType());
      } else if (current instanceof NamedTypeRef named) {
        final EObject declaration = named.getType();
        if (declaration == null || declaration.eIsProxy()) {
          continue;
        }
        if (declaration == target) {
          return true;
        }
        if (!seen.add(declaration)) {
          continue;
        }
        if (declaration instanceof Struct s) {
          s.getFields().forEach(f -> pending.push(f.getType()));
        } else if (declaration instanceof ExceptionDecl e) {
          e.getFields().forEach(f -> pending.push(f.getType()));
        } else if (declaration instanceof Typedef t && t.getType() != null) {
          pending.push(t.getType());
        }
      }
    }
    return false;
  }

  static boolean fits(NumberValue number, PrimitiveKind kind) {
    if (number.getNumber() == null || !number.getNumber().chars().allMatch(Character::isDigit)) {
      return false; // a fraction or an exponent makes a floating-point literal
    }
    final BigInteger value = new BigInteger((number.isNegative() ? "-" : "") + number.getNumber());
    final int bits =
        switch (kind) {
          case INT8, UINT8, OCTET -> 8;
          case INT16, UINT16 -> 16;
          case INT32, UINT32 -> 32;
          default -> 64;
        };
    final boolean unsigned = kind == PrimitiveKind.OCTET || kind.getLiteral().startsWith("uint");
    final BigInteger min = unsigned ? BigInteger.ZERO : BigInteger.ONE.shiftLeft(bits - 1).negate();
    final BigInteger max =
        unsigned
            ? BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE)
            : BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE);
    return value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
  }

  /** Whether a literal lies within the finite range of float or double. */
  static boolean fitsFloatingPoint(NumberValue number, PrimitiveKind kind) {
    if (number.getNumber() == null) {
      return false;
    }
    final BigDecimal value;
    try {
      value = new BigDecimal(number.getNumber());
    } catch (NumberFormatException e) {
      return false;
    }
    final BigDecimal max =
        new BigDecimal(kind == PrimitiveKind.FLOAT ? Float.MAX_VALUE : Double.MAX_VALUE);
    return value.compareTo(max) <= 0;
  }

  @Check
  public void checkConstant(ConstDecl constant) {
    final TypeRef type = constant.getType();
    final ConstValue value = constant.getValue();
    if (type == null || value == null) {
      return;
    }
    final String expected;
    if (type instanceof StringTypeRef) {
      expected = value instanceof TextValue ? null : "a quoted string";
    } else if (type instanceof PrimitiveTypeRef primitive) {
      final PrimitiveKind kind = primitive.getKind();
      if (kind == PrimitiveKind.BOOL) {
        expected = value instanceof BoolValue ? null : "true or false";
      } else if (kind == PrimitiveKind.FLOAT || kind == PrimitiveKind.DOUBLE) {
        expected =
            value instanceof NumberValue number && fitsFloatingPoint(number, kind)
                ? null
                : "a number within the range of " + kind.getLiteral();
      } else if (kind == PrimitiveKind.CHAR) {
        expected = "a char constant (not supported yet; use uint8)";
      } else {
        expected =
            value instanceof NumberValue number && fits(number, kind)
                ? null
                : "a whole number that fits " + kind.getLiteral();
      }
    } else if (type instanceof NamedTypeRef named
        && named.getType() instanceof EnumDecl enumeration) {
      final boolean literalOfIt =
          value instanceof EnumValue enumValue
              && enumValue.getLiteral() != null
              && (enumValue.getLiteral().eIsProxy()
                  || enumValue.getLiteral().eContainer() == enumeration);
      expected =
          literalOfIt
              ? null
              : "one of the literals of enum "
                  + enumeration.getName()
                  + " ("
                  + String.join(
                      ", ", enumeration.getLiterals().stream().map(EnumLiteral::getName).toList())
                  + ")";
    } else if (type instanceof NamedTypeRef named
        && (named.getType() == null || named.getType().eIsProxy())) {
      expected = null; // the unknown type is reported where it is written
    } else {
      expected = "a primitive, string or enum type (constants of other types are not supported)";
    }
    if (expected != null) {
      error(
          "constant '" + constant.getName() + "' needs " + expected,
          Literals.CONST_DECL__VALUE,
          IssueCodes.CONST_TYPE_MISMATCH);
    }
  }
}
