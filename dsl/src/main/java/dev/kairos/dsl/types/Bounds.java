package dev.kairos.dsl.types;

import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.Field;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.NumberValue;
import dev.kairos.dsl.kairos.PrimitiveKind;
import dev.kairos.dsl.kairos.PrimitiveTypeRef;
import dev.kairos.dsl.kairos.SequenceTypeRef;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.Typedef;
import java.math.BigInteger;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;

/**
 * The bounds of strings and sequences and the sizes of arrays, written as a number or as the name
 * of an integer constant (`sequence<uint8, MAX_LEN>`), as the values they stand for.
 */
public final class Bounds {
  private Bounds() {}

  public static final Set<PrimitiveKind> INTEGER_KINDS =
      EnumSet.of(
          PrimitiveKind.OCTET,
          PrimitiveKind.INT8,
          PrimitiveKind.UINT8,
          PrimitiveKind.INT16,
          PrimitiveKind.UINT16,
          PrimitiveKind.INT32,
          PrimitiveKind.UINT32,
          PrimitiveKind.INT64,
          PrimitiveKind.UINT64);

  /** The bound of a string; empty when it has none or names no usable integer constant. */
  public static Optional<BigInteger> of(StringTypeRef string) {
    return value(
        string, Literals.STRING_TYPE_REF__BOUND, string.getBound(), string.getBoundConstant());
  }

  public static Optional<BigInteger> of(SequenceTypeRef sequence) {
    return value(
        sequence,
        Literals.SEQUENCE_TYPE_REF__BOUND,
        sequence.getBound(),
        sequence.getBoundConstant());
  }

  /** The size of a field's array; empty when the field is no array. */
  public static Optional<BigInteger> arraySize(Field field) {
    return value(
        field, Literals.FIELD__ARRAY_SIZE, field.getArraySize(), field.getArraySizeConstant());
  }

  public static Optional<BigInteger> arraySize(Typedef alias) {
    return value(
        alias, Literals.TYPEDEF__ARRAY_SIZE, alias.getArraySize(), alias.getArraySizeConstant());
  }

  /** Whether the text gives a bound at all, as a number or a constant's name. */
  public static boolean written(EObject owner, EAttribute number, ConstDecl constant) {
    return constant != null || !NodeModelUtils.findNodesForFeature(owner, number).isEmpty();
  }

  /** A bound as an int for the IR; validation has made sure it fits. 0 when absent. */
  public static int intValue(Optional<BigInteger> bound) {
    return bound.map(BigInteger::intValue).orElse(0);
  }

  /**
   * The value of an integer constant: its type is an integer primitive and its value a whole number
   * (no fraction or exponent). Empty otherwise, including when the name does not resolve.
   */
  public static Optional<BigInteger> integerValue(ConstDecl constant) {
    if (constant == null
        || constant.eIsProxy()
        || !(constant.getType() instanceof PrimitiveTypeRef primitive)
        || !INTEGER_KINDS.contains(primitive.getKind())
        || !(constant.getValue() instanceof NumberValue number)
        || number.getNumber() == null
        || !number.getNumber().chars().allMatch(Character::isDigit)) {
      return Optional.empty();
    }
    final BigInteger value = new BigInteger(number.getNumber());
    return Optional.of(number.isNegative() ? value.negate() : value);
  }

  private static Optional<BigInteger> value(
      EObject owner, EAttribute number, int written, ConstDecl constant) {
    if (constant != null) {
      return integerValue(constant);
    }
    return NodeModelUtils.findNodesForFeature(owner, number).isEmpty()
        ? Optional.empty()
        : Optional.of(BigInteger.valueOf(written));
  }
}
