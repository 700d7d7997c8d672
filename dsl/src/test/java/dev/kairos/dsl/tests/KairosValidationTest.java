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

/** Each check's issue code, on the element and at the offset where the problem is written. */
@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class KairosValidationTest {
  @Inject private ParseHelper<Model> parser;
  @Inject private ValidationTestHelper validation;

  private static String spm(String aac, String wcet) {
    return "tmo T {\n  spm s "
        + aac
        + " wcet "
        + wcet
        + ";\n}\nnode n { os linux deploy T as t1 }\n";
  }

  private void assertErrorAt(
      String text, org.eclipse.emf.ecore.EClass type, String code, String fragment)
      throws Exception {
    final Model model = parser.parse(text);
    final int offset = text.indexOf(fragment);
    validation.assertError(model, type, code, offset, fragment.length());
  }

  @Test
  void startWindowThatClosesBeforeItOpens() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t + 2 ms, t + 1 ms) finish-by t + 5 ms",
            "1 ms");
    validation.assertError(
        parser.parse(text),
        Literals.WINDOW,
        IssueCodes.WINDOW_INVERTED,
        text.indexOf("t + 1 ms"),
        "t + 1 ms".length());
  }

  @Test
  void startWindowBeyondThePeriod() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t, t + 12 ms) finish-by t + 15 ms",
            "1 ms");
    assertErrorAt(text, Literals.WINDOW, IssueCodes.WINDOW_OUTSIDE_PERIOD, "t + 12 ms");
  }

  @Test
  void finishByBeforeTheWindowEnds() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t, t + 4 ms) finish-by t + 3 ms",
            "1 ms");
    assertErrorAt(text, Literals.WINDOW, IssueCodes.DEADLINE_BEFORE_WINDOW_END, "t + 3 ms");
  }

  @Test
  void deadlineBeyondThePeriod() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t, t + 4 ms) finish-by t + 11 ms",
            "1 ms");
    assertErrorAt(text, Literals.WINDOW, IssueCodes.DEADLINE_EXCEEDS_PERIOD, "t + 11 ms");
  }

  @Test
  void wcetThatCannotFitBeforeTheDeadline() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t + 1 ms, t + 2 ms) finish-by t + 5 ms",
            "4500 us");
    assertErrorAt(text, Literals.SPM, IssueCodes.WCET_EXCEEDS_DEADLINE, "4500 us");
  }

  @Test
  void unknownTimeVariable() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t, u + 1 ms) finish-by t + 5 ms",
            "1 ms");
    validation.assertError(
        parser.parse(text),
        Literals.TIME_POINT,
        IssueCodes.UNKNOWN_TIME_VARIABLE,
        text.indexOf("u + 1 ms"),
        1);
  }

  @Test
  void absoluteTimeInsideAPeriodicWindow() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t, 1 ms) finish-by t + 5 ms",
            "1 ms");
    assertErrorAt(text, Literals.TIME_POINT, IssueCodes.WINDOW_NOT_RELATIVE, "1 ms");
  }

  @Test
  void durationFinerThanANanosecond() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms) finish-by t + 5 ms",
            "0.5 ns");
    assertErrorAt(text, Literals.DURATION, IssueCodes.INVALID_DURATION, "0.5 ns");
  }

  @Test
  void durationBeyond64BitNanoseconds() throws Exception {
    final String text =
        spm(
            "for t = from 0 s to forever every 999999999 min start-during (t, t + 1 ms) finish-by t + 5 ms",
            "1 ms");
    assertErrorAt(text, Literals.DURATION, IssueCodes.INVALID_DURATION, "999999999 min");
  }

  @Test
  void serviceMethodWhoseWcetExceedsItsGct() throws Exception {
    final String text = "tmo T { svm s gct 1 ms wcet 2 ms; }\nnode n { os linux deploy T as t1 }\n";
    assertErrorAt(text, Literals.SVM, IssueCodes.WCET_EXCEEDS_GCT, "2 ms");
  }

  @Test
  void tmoDeployedTwice() throws Exception {
    final String text =
        "tmo T { svm s gct 1 ms wcet 1 ms; }\n"
            + "node a { os linux deploy T as first }\n"
            + "node b { os linux deploy T as second }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model, Literals.DEPLOYMENT, IssueCodes.TMO_DEPLOYED_TWICE, text.lastIndexOf("T as"), 1);
  }

  @Test
  void namesThatAreCppKeywords() throws Exception {
    final String text =
        "tmo T { svm delete gct 1 ms wcet 1 ms; }\nnode n { os linux deploy T as t1 }\n";
    assertErrorAt(text, Literals.SVM, IssueCodes.CPP_KEYWORD, "delete");
  }

  @Test
  void namesReservedInCpp() throws Exception {
    final String text = "struct __Point { double x; }\n";
    assertErrorAt(text, Literals.STRUCT, IssueCodes.RESERVED_NAME, "__Point");
  }

  @Test
  void duplicateNamesAreReported() throws Exception {
    final Model model = parser.parse("struct P { double x; }\nstruct P { double y; }\n");
    validation.assertError(model, Literals.STRUCT, IssueCodes.DUPLICATE_NAME);
  }
}
