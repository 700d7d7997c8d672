package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.BoolValue;
import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.ConstValue;
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
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.validation.Check;

/**
 * IDL types: everything has a bound (real-time code never allocates), nothing contains itself by
 * value, and constants match their types.
 */
public class TypesValidator extends ConcernValidator {

  @Check
  public void checkStringBound(StringTypeRef string) {
    if (!written(string, Literals.STRING_TYPE_REF__BOUND)) {
      error(
          "strings need a bound, e.g. string<32>: generated types never allocate",
          string,
          null,
          IssueCodes.UNBOUNDED_STRING);
    } else if (string.getBound() <= 0) {
      error(
          "a string bound must be at least 1",
          Literals.STRING_TYPE_REF__BOUND,
          IssueCodes.INVALID_BOUND);
    }
  }

  /** Whether the text sets a feature (EMF cannot tell an explicit 0 from an absent int). */
  private static boolean written(EObject object, org.eclipse.emf.ecore.EStructuralFeature feature) {
    return !org.eclipse.xtext.nodemodel.util.NodeModelUtils.findNodesForFeature(object, feature)
        .isEmpty();
  }

  @Check
  public void checkSequenceBound(SequenceTypeRef sequence) {
    if (sequence.getBound() <= 0) {
      error(
          "a sequence bound must be at least 1",
          Literals.SEQUENCE_TYPE_REF__BOUND,
          IssueCodes.INVALID_BOUND);
    }
  }

  @Check
  public void checkFieldArray(Field field) {
    if (written(field, Literals.FIELD__ARRAY_SIZE) && field.getArraySize() <= 0) {
      error(
          "an array needs at least 1 element",
          Literals.FIELD__ARRAY_SIZE,
          IssueCodes.INVALID_BOUND);
    }
  }

  @Check
  public void checkTypedefArray(Typedef alias) {
    if (written(alias, Literals.TYPEDEF__ARRAY_SIZE) && alias.getArraySize() <= 0) {
      error(
          "an array needs at least 1 element",
          Literals.TYPEDEF__ARRAY_SIZE,
          IssueCodes.INVALID_BOUND);
    }
    if (contains(alias.getType(), alias)) {
      error(
          "typedef '" + alias.getName() + "' refers to itself",
          Literals.TYPEDEF__NAME,
          IssueCodes.RECURSIVE_TYPE);
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

  private static boolean fits(NumberValue number, PrimitiveKind kind) {
    if (number.getNumber() == null || number.getNumber().contains(".")) {
      return false;
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
        expected = value instanceof NumberValue ? null : "a number";
      } else if (kind == PrimitiveKind.CHAR) {
        expected = "a char constant (not supported yet; use uint8)";
      } else {
        expected =
            value instanceof NumberValue number && fits(number, kind)
                ? null
                : "a whole number that fits " + kind.getLiteral();
      }
    } else {
      expected = "a primitive or string type (constants of " + "other types are not supported)";
    }
    if (expected != null) {
      error(
          "constant '" + constant.getName() + "' needs " + expected,
          Literals.CONST_DECL__VALUE,
          IssueCodes.CONST_TYPE_MISMATCH);
    }
  }
}
