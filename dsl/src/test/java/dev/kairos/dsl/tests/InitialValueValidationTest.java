package dev.kairos.dsl.tests;

import com.google.inject.Inject;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.validation.IssueCodes;
import org.eclipse.xtext.testing.InjectWith;
import org.eclipse.xtext.testing.extensions.InjectionExtension;
import org.eclipse.xtext.testing.util.ParseHelper;
import org.eclipse.xtext.testing.validation.ValidationTestHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Initial values of segment fields: what is accepted, and each rejection with its code. */
@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class InitialValueValidationTest {
  @Inject private ParseHelper<Model> parser;
  @Inject private ValidationTestHelper validation;

  private static final String DECLARATIONS =
      "package p\n"
          + "enum Mode { CRUISE, COMBAT }\n"
          + "enum Alarm { LOUD }\n"
          + "typedef double Ratio;\n"
          + "typedef uint8 Pair[2];\n"
          + "struct Point { double x; }\n"
          + "const uint32 LIMIT = 7;\n"
          + "const uint32 BIG = 70000;\n"
          + "const float HALF = 0.5;\n"
          + "const double THIRD = 0.333;\n"
          + "const string<8> NAME = \"kairos\";\n"
          + "const Mode DEFAULT = COMBAT;\n";

  /** A model whose TMO's one segment has the given fields. */
  private static String segment(String fields) {
    return DECLARATIONS + "tmo T {\n  ods { segment state { " + fields + " } }\n}\n";
  }

  private void assertError(String fields, String code, String written) throws Exception {
    final String text = segment(fields);
    validation.assertError(
        parser.parse(text), Literals.FIELD, code, text.lastIndexOf(written), written.length());
  }

  @Test
  void everyKindOfInitialValueIsAccepted() throws Exception {
    validation.assertNoIssues(
        parser.parse(
            segment(
                "double speed = 0.0; float gain = 1.5; double scale = 2; double tiny = -1.5e-3;"
                    + " uint32 mode = 2; int8 low = -128; uint64 most = 18446744073709551615;"
                    + " octet raw = 255; bool on = true; string<8> label = \"idle\";"
                    + " string<8> empty = \"\"; Mode m = CRUISE; Mode n = Mode.COMBAT;"
                    + " Mode o = p.Mode.CRUISE; Mode d = DEFAULT; uint64 limit = LIMIT;"
                    + " uint8 small = LIMIT; double half = HALF; float alsoHalf = HALF;"
                    + " double third = THIRD; string<6> name = NAME; Ratio r = 0.25;"
                    + " uint32 plain; Point where;")));
  }

  @Test
  void onlySegmentFieldsTakeInitialValues() throws Exception {
    final String text = "struct S { uint32 a = 1; }\n";
    validation.assertError(
        parser.parse(text),
        Literals.FIELD,
        IssueCodes.INITIAL_VALUE_PLACEMENT,
        text.indexOf("1;"),
        1,
        "only the fields of an ods segment take an initial value; field 'a' belongs to struct S");
    final String exception = "exception E { uint32 code = 1; }\n";
    validation.assertError(
        parser.parse(exception),
        Literals.FIELD,
        IssueCodes.INITIAL_VALUE_PLACEMENT,
        exception.indexOf("1;"),
        1);
  }

  @Test
  void arraysSequencesAndStructsTakeNone() throws Exception {
    assertError("uint8 bytes[4] = 0;", IssueCodes.INITIAL_VALUE_PLACEMENT, "0");
    assertError("Pair pair = 0;", IssueCodes.INITIAL_VALUE_PLACEMENT, "0");
    assertError("sequence<uint8, 4> bytes = 0;", IssueCodes.INITIAL_VALUE_PLACEMENT, "0");
    assertError("Point where = 0;", IssueCodes.INITIAL_VALUE_PLACEMENT, "0");
  }

  @Test
  void theValueIsOfTheFieldsType() throws Exception {
    assertError("uint32 mode = \"two\";", IssueCodes.INITIAL_VALUE_MISMATCH, "\"two\"");
    assertError("uint32 mode = 2.5;", IssueCodes.INITIAL_VALUE_MISMATCH, "2.5");
    assertError("uint32 mode = 1e3;", IssueCodes.INITIAL_VALUE_MISMATCH, "1e3");
    assertError("uint32 mode = true;", IssueCodes.INITIAL_VALUE_MISMATCH, "true");
    assertError("bool on = 1;", IssueCodes.INITIAL_VALUE_MISMATCH, "1");
    assertError("double speed = \"fast\";", IssueCodes.INITIAL_VALUE_MISMATCH, "\"fast\"");
    assertError("string<8> label = 3;", IssueCodes.INITIAL_VALUE_MISMATCH, "3");
    assertError("char c = 65;", IssueCodes.INITIAL_VALUE_MISMATCH, "65");
    assertError("Mode m = 1;", IssueCodes.INITIAL_VALUE_MISMATCH, "1");
    assertError("uint32 mode = Mode.CRUISE;", IssueCodes.INITIAL_VALUE_MISMATCH, "Mode.CRUISE");
  }

  @Test
  void anEnumFieldTakesALiteralOfItsOwnEnum() throws Exception {
    final String text = segment("Mode m = Alarm.LOUD;");
    validation.assertError(
        parser.parse(text),
        Literals.FIELD,
        IssueCodes.INITIAL_VALUE_MISMATCH,
        text.lastIndexOf("Alarm.LOUD"),
        "Alarm.LOUD".length(),
        "field 'm' is of enum Mode, but 'LOUD' is a literal of enum Alarm");
    final String missing = segment("Mode m = HOVER;");
    validation.assertError(
        parser.parse(missing),
        Literals.NAMED_VALUE,
        IssueCodes.UNRESOLVED_REFERENCE,
        missing.lastIndexOf("HOVER"),
        5,
        "enum Mode has no literal 'HOVER'");
  }

  @Test
  void aConstantIsOfATypeTheFieldHolds() throws Exception {
    assertError("float gain = THIRD;", IssueCodes.INITIAL_VALUE_MISMATCH, "THIRD");
    assertError("uint32 mode = HALF;", IssueCodes.INITIAL_VALUE_MISMATCH, "HALF");
    assertError("double limit = LIMIT;", IssueCodes.INITIAL_VALUE_MISMATCH, "LIMIT");
    assertError("string<8> label = LIMIT;", IssueCodes.INITIAL_VALUE_MISMATCH, "LIMIT");
    assertError("Mode m = LIMIT;", IssueCodes.INITIAL_VALUE_MISMATCH, "LIMIT");
    assertError("uint16 wide = BIG;", IssueCodes.INITIAL_VALUE_RANGE, "BIG");
    assertError("string<4> name = NAME;", IssueCodes.INITIAL_VALUE_RANGE, "NAME");
  }

  @Test
  void integersStayInTheirRange() throws Exception {
    assertError("uint8 small = 256;", IssueCodes.INITIAL_VALUE_RANGE, "256");
    assertError("int8 low = -129;", IssueCodes.INITIAL_VALUE_RANGE, "-129");
    assertError("uint32 mode = -1;", IssueCodes.INITIAL_VALUE_RANGE, "-1");
    assertError(
        "uint64 most = 18446744073709551616;",
        IssueCodes.INITIAL_VALUE_RANGE,
        "18446744073709551616");
    assertError("float big = 1e39;", IssueCodes.INITIAL_VALUE_RANGE, "1e39");
  }

  @Test
  void stringsStayWithinTheirBound() throws Exception {
    final String text = segment("string<4> label = \"idle!\";");
    validation.assertError(
        parser.parse(text),
        Literals.FIELD,
        IssueCodes.INITIAL_VALUE_RANGE,
        text.lastIndexOf("\"idle!\""),
        7,
        "field 'label' holds at most 4 characters (bytes of UTF-8), and its initial value has 5");
    validation.assertNoErrors(parser.parse(segment("string<4> label = \"idle\";")));
  }
}
