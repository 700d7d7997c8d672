package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.BoolValue;
import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.ConstValue;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.EnumLiteral;
import dev.kairos.dsl.kairos.Field;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.NamedValue;
import dev.kairos.dsl.kairos.NumberValue;
import dev.kairos.dsl.kairos.PrimitiveKind;
import dev.kairos.dsl.kairos.PrimitiveTypeRef;
import dev.kairos.dsl.kairos.Segment;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.TextValue;
import dev.kairos.dsl.kairos.TypeRef;
import dev.kairos.dsl.kairos.Typedef;
import dev.kairos.dsl.types.Bounds;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;
import org.eclipse.xtext.validation.Check;

/**
 * Initial values of segment fields ({@code segment state { uint32 mode = 2; }}): only a segment's
 * fields take one, only fields of a primitive, string or enum type, and the value is of the field's
 * type and within its range: a whole number that fits an integer type, a number within {@code
 * float}'s or {@code double}'s range, {@code true} or {@code false}, a string within the bound, a
 * literal of the field's enum, or a constant of a type the field can hold.
 */
public class InitialValueValidator extends ConcernValidator {

  @Check
  public void checkInitialValue(Field field) {
    final ConstValue value = field.getInitial();
    if (value == null) {
      return;
    }
    final String name = "field '" + field.getName() + "'";
    if (!(field.eContainer() instanceof Segment)) {
      placement(
          "only the fields of an ods segment take an initial value; "
              + name
              + " belongs to "
              + DeclarationKinds.describe(field.eContainer())
              + ", whose values start at zero");
      return;
    }
    if (Bounds.written(field, Literals.FIELD__ARRAY_SIZE, field.getArraySizeConstant())) {
      placement("array " + name + " cannot take an initial value: its elements start at zero");
      return;
    }
    final TypeRef type = resolved(field.getType());
    if (type == null) {
      return; // an unknown type, reported where it is written
    }
    if (value instanceof NamedValue named) {
      checkNamed(name, type, named);
      return;
    }
    if (type instanceof PrimitiveTypeRef primitive) {
      checkLiteral(name, primitive.getKind(), value);
    } else if (type instanceof StringTypeRef string) {
      if (!(value instanceof TextValue text)) {
        mismatch(name + " is a string: its initial value is a quoted string or a string constant");
      } else {
        checkLength(name, string, text.getText());
      }
    } else if (type instanceof NamedTypeRef named && named.getType() instanceof EnumDecl e) {
      mismatch(name + " is of enum " + e.getName() + ": its initial value is " + literals(e));
    } else {
      placement(
          name
              + " is of type "
              + text(field.getType())
              + ": only fields of a primitive, string or enum type take an initial value");
    }
  }

  /** A literal number, text or truth value for a field of a primitive type. */
  private void checkLiteral(String name, PrimitiveKind kind, ConstValue value) {
    switch (kind) {
      case BOOL -> {
        if (!(value instanceof BoolValue)) {
          mismatch(name + " is a bool: its initial value is true or false");
        }
      }
      case CHAR ->
          mismatch(name + " is a char: char initial values are not supported yet (use uint8)");
      case FLOAT, DOUBLE -> {
        if (!(value instanceof NumberValue number)) {
          mismatch(name + " is a " + kind.getLiteral() + ": its initial value is a number");
        } else if (!TypesValidator.fitsFloatingPoint(number, kind)) {
          range(name + " is a " + kind.getLiteral() + ": its initial value is beyond its range");
        }
      }
      default -> {
        if (!(value instanceof NumberValue number) || !whole(number)) {
          mismatch(name + " is a " + kind.getLiteral() + ": its initial value is a whole number");
        } else if (!TypesValidator.fits(number, kind)) {
          range(
              name
                  + " is a "
                  + kind.getLiteral()
                  + ": "
                  + (number.isNegative() ? "-" : "")
                  + number.getNumber()
                  + " is outside its range");
        }
      }
    }
  }

  /** A constant or an enum literal, named. */
  private void checkNamed(String name, TypeRef type, NamedValue named) {
    final EObject target = named.getTarget();
    if (target == null || target.eIsProxy()) {
      return; // reported by linking
    }
    final EnumDecl fieldEnum =
        type instanceof NamedTypeRef ref && ref.getType() instanceof EnumDecl e ? e : null;
    if (target instanceof EnumLiteral literal) {
      if (fieldEnum == null) {
        mismatch(
            name
                + " is not of an enum type, but its initial value is enum literal '"
                + literal.getName()
                + "'");
      } else if (literal.eContainer() != fieldEnum) {
        mismatch(
            name
                + " is of enum "
                + fieldEnum.getName()
                + ", but '"
                + literal.getName()
                + "' is a literal of enum "
                + ((EnumDecl) literal.eContainer()).getName()
                + "; its initial value is "
                + literals(fieldEnum));
      }
      return;
    }
    final ConstDecl constant = (ConstDecl) target;
    final TypeRef constantType = resolved(constant.getType());
    if (constantType == null) {
      return;
    }
    final String of = "constant '" + constant.getName() + "' (" + text(constant.getType()) + ")";
    if (fieldEnum != null) {
      if (!(constantType instanceof NamedTypeRef ref && ref.getType() == fieldEnum)) {
        mismatch(name + " is of enum " + fieldEnum.getName() + ", but " + of + " is not");
      }
      return;
    }
    if (type instanceof StringTypeRef string) {
      if (!(constantType instanceof StringTypeRef)) {
        mismatch(name + " is a string, but " + of + " is not");
      } else if (constant.getValue() instanceof TextValue text) {
        checkLength(name, string, text.getText());
      }
      return;
    }
    if (!(type instanceof PrimitiveTypeRef field)
        || !(constantType instanceof PrimitiveTypeRef source)) {
      mismatch(name + " cannot hold " + of);
      return;
    }
    final PrimitiveKind to = field.getKind();
    final PrimitiveKind from = source.getKind();
    final boolean integers =
        Bounds.INTEGER_KINDS.contains(to) && Bounds.INTEGER_KINDS.contains(from);
    final boolean floating =
        to == PrimitiveKind.DOUBLE && (from == PrimitiveKind.DOUBLE || from == PrimitiveKind.FLOAT)
            || to == PrimitiveKind.FLOAT && from == PrimitiveKind.FLOAT;
    if (to == from || floating) {
      return;
    }
    if (integers) {
      // Any integer constant whose value the field's type holds: widening or not, nothing is lost.
      if (constant.getValue() instanceof NumberValue number
          && whole(number)
          && !TypesValidator.fits(number, to)) {
        range(name + " is a " + to.getLiteral() + ": " + of + " is outside its range");
      }
      return;
    }
    mismatch(
        name
            + " is a "
            + to.getLiteral()
            + ", and "
            + of
            + " does not convert to it without loss"
            + (to == PrimitiveKind.FLOAT && from == PrimitiveKind.DOUBLE
                ? " (declare the constant float)"
                : ""));
  }

  private void checkLength(String name, StringTypeRef string, String text) {
    final Optional<BigInteger> bound = Bounds.of(string);
    final int length = text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    if (bound.isPresent() && BigInteger.valueOf(length).compareTo(bound.get()) > 0) {
      range(
          name
              + " holds at most "
              + bound.get()
              + " characters (bytes of UTF-8), and its initial value has "
              + length);
    }
  }

  /**
   * The type a field's type stands for, through typedefs (up to one that makes an array); null
   * while a name is unknown.
   */
  private static TypeRef resolved(TypeRef type) {
    final Set<EObject> seen = new HashSet<>();
    while (type instanceof NamedTypeRef named && named.getType() instanceof Typedef alias) {
      if (!seen.add(alias)) {
        return null; // a typedef cycle, reported as a recursive type
      }
      if (Bounds.written(alias, Literals.TYPEDEF__ARRAY_SIZE, alias.getArraySizeConstant())) {
        return type; // an array: no type that takes an initial value
      }
      type = alias.getType();
    }
    if (type instanceof NamedTypeRef named
        && (named.getType() == null || named.getType().eIsProxy())) {
      return null;
    }
    return type;
  }

  private static String text(TypeRef type) {
    final INode node = NodeModelUtils.getNode(type);
    return node == null ? "its type" : NodeModelUtils.getTokenText(node);
  }

  private static boolean whole(NumberValue number) {
    return number.getNumber() != null && number.getNumber().chars().allMatch(Character::isDigit);
  }

  private static String literals(EnumDecl enumeration) {
    return "one of its literals ("
        + String.join(", ", enumeration.getLiterals().stream().map(EnumLiteral::getName).toList())
        + ") or a constant of the enum";
  }

  private void placement(String message) {
    error(message, Literals.FIELD__INITIAL, IssueCodes.INITIAL_VALUE_PLACEMENT);
  }

  private void mismatch(String message) {
    error(message, Literals.FIELD__INITIAL, IssueCodes.INITIAL_VALUE_MISMATCH);
  }

  private void range(String message) {
    error(message, Literals.FIELD__INITIAL, IssueCodes.INITIAL_VALUE_RANGE);
  }
}
