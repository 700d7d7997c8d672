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

  @Inject
  private com.google.inject.Provider<org.eclipse.xtext.resource.XtextResourceSet> resourceSets;

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
  void duplicateNamesAreReportedInKairosWords() throws Exception {
    final String text = "package s\nstruct P { double x; }\nstruct P { double y; }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.STRUCT,
        IssueCodes.DUPLICATE_NAME,
        text.lastIndexOf("P {"),
        1,
        "struct 'P' is declared more than once in package s");
    final String fields = "struct Q { double x; uint8 x; }\n";
    validation.assertError(
        parser.parse(fields),
        Literals.FIELD,
        IssueCodes.DUPLICATE_NAME,
        fields.lastIndexOf("x;"),
        1,
        "field 'x' is declared more than once in struct Q");
    for (org.eclipse.xtext.validation.Issue issue : validation.validate(model)) {
      org.junit.jupiter.api.Assertions.assertFalse(
          issue.getMessage().contains("Duplicate"), issue.getMessage());
    }
  }

  @Test
  void stringsNeedABound() throws Exception {
    final String text = "struct S { string name; }\n";
    assertErrorAt(text, Literals.STRING_TYPE_REF, IssueCodes.UNBOUNDED_STRING, "string");
  }

  @Test
  void boundsMustBePositive() throws Exception {
    final String text = "struct S { sequence<double, 0> values; }\n";
    assertErrorAt(text, Literals.SEQUENCE_TYPE_REF, IssueCodes.INVALID_BOUND, "0");
    final String array = "struct A { double values[0]; }\n";
    validation.assertError(
        parser.parse(array), Literals.FIELD, IssueCodes.INVALID_BOUND, array.indexOf("0"), 1);
  }

  @Test
  void structsCannotContainThemselvesByValue() throws Exception {
    final String text = "struct A { B b; }\nstruct B { sequence<A, 2> as; }\n";
    assertErrorAt(text, Literals.STRUCT, IssueCodes.RECURSIVE_TYPE, "A");
  }

  @Test
  void constantsMatchTheirTypes() throws Exception {
    final String text = "const uint8 SMALL = 300;\nconst int8 OK = -128;\n";
    assertErrorAt(text, Literals.CONST_DECL, IssueCodes.CONST_TYPE_MISMATCH, "300");
    validation.assertNoErrors(
        parser.parse(
            "const int8 OK = -128;\nconst bool B = true;\n"
                + "const string<8> S = \"x\";\nconst double D = -1.5;\n"));
  }

  @Test
  void integerConstantsServeAsBoundsAndArraySizes() throws Exception {
    validation.assertNoIssues(
        parser.parse(
            "const uint32 N = 16;\nconst uint8 LEN = 8;\n"
                + "struct S { sequence<uint8, N> xs; string<LEN> name; double m[N]; }\n"
                + "typedef double Row[LEN];\n"));
    final String zero = "const uint32 NONE = 0;\nstruct S { sequence<uint8, NONE> xs; }\n";
    validation.assertError(
        parser.parse(zero),
        Literals.SEQUENCE_TYPE_REF,
        IssueCodes.INVALID_BOUND,
        zero.lastIndexOf("NONE"),
        4,
        "a sequence bound must be at least 1 (NONE is 0)");
    final String real = "const double G = 9.81;\nstruct S { string<G> s; }\n";
    validation.assertError(
        parser.parse(real),
        Literals.STRING_TYPE_REF,
        IssueCodes.INVALID_BOUND,
        real.lastIndexOf("G"),
        1,
        "'G' is not an integer constant");
    final String negative = "const int32 M = -2;\nstruct S { double m[M]; }\n";
    validation.assertError(
        parser.parse(negative),
        Literals.FIELD,
        IssueCodes.INVALID_BOUND,
        negative.lastIndexOf("M"),
        1);
    final String unknown = "struct S { sequence<uint8, MISSING> xs; }\n";
    validation.assertError(
        parser.parse(unknown),
        Literals.SEQUENCE_TYPE_REF,
        IssueCodes.UNRESOLVED_REFERENCE,
        unknown.indexOf("MISSING"),
        7,
        "unknown constant 'MISSING'");
  }

  @Test
  void floatingPointConstantsMayHaveExponents() throws Exception {
    validation.assertNoErrors(
        parser.parse(
            "const double EPS = 1.5e-3;\nconst double BIG = 2E+10;\nconst float F = -1e3;\n"));
    final String huge = "const float F = 1e39;\n";
    assertErrorAt(huge, Literals.CONST_DECL, IssueCodes.CONST_TYPE_MISMATCH, "1e39");
    final String integer = "const uint32 N = 1e3;\n";
    assertErrorAt(integer, Literals.CONST_DECL, IssueCodes.CONST_TYPE_MISMATCH, "1e3");
  }

  @Test
  void enumValuedConstants() throws Exception {
    validation.assertNoIssues(
        parser.parse(
            "package p\nenum Mode { CRUISE, COMBAT }\nconst Mode M = CRUISE;\n"
                + "const Mode N = Mode.COMBAT;\nconst Mode O = p.Mode.CRUISE;\n"));
    final String other = "enum Mode { CRUISE }\nenum Alarm { LOUD }\nconst Mode M = Alarm.LOUD;\n";
    assertErrorAt(other, Literals.CONST_DECL, IssueCodes.CONST_TYPE_MISMATCH, "Alarm.LOUD");
    final String missing = "enum Mode { CRUISE }\nconst Mode M = HOVER;\n";
    validation.assertError(
        parser.parse(missing),
        Literals.ENUM_VALUE,
        IssueCodes.UNRESOLVED_REFERENCE,
        missing.indexOf("HOVER"),
        5,
        "enum Mode has no literal 'HOVER'");
    final String number = "enum Mode { CRUISE }\nconst Mode M = 1;\n";
    validation.assertError(
        parser.parse(number),
        Literals.CONST_DECL,
        IssueCodes.CONST_TYPE_MISMATCH,
        number.indexOf("1;"),
        1,
        "needs one of the literals of enum Mode (CRUISE)");
  }

  @Test
  void aChannelCarriesOnePayloadTypeEverywhere() throws Exception {
    final String text =
        "struct NavState { double lat; }\nstruct Reading { double v; }\n"
            + "typedef NavState Nav;\n"
            + "tmo A { eac { channel track : rmmc<NavState>; channel raw : rmmc<string<8>>; } }\n"
            + "tmo B { eac { channel track : rmmc<Nav>; channel raw : rmmc<string<8>>; } }\n"
            + "tmo C { eac { channel track : rmmc<Reading>; channel raw : rmmc<string<9>>; } }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.CHANNEL,
        IssueCodes.CHANNEL_TYPE_MISMATCH,
        text.indexOf("Reading>"),
        "Reading".length(),
        "channel 'track' carries Reading here but NavState in TMO A");
    validation.assertError(
        model,
        Literals.CHANNEL,
        IssueCodes.CHANNEL_TYPE_MISMATCH,
        text.indexOf("string<9>"),
        "string<9>".length());
    final long mismatches =
        validation.validate(model).stream()
            .filter(i -> IssueCodes.CHANNEL_TYPE_MISMATCH.equals(i.getCode()))
            .count();
    org.junit.jupiter.api.Assertions.assertEquals(2, mismatches);
  }

  private static final String CHANNEL_SPM =
      "for t = from 0 s to forever every 10 ms start-during (t, t + 1 ms) finish-by t + 5 ms"
          + " wcet 1 ms";

  @Test
  void aChannelsFanOutBoundsTheInstancesThatReadIt() throws Exception {
    final String text =
        "struct Fix { double lat; }\n"
            + "tmo P { eac { channel track : rmmc<Fix> fan-out 2; } spm p "
            + CHANNEL_SPM
            + " publishes track; }\n"
            + "tmo R { eac { channel track : rmmc<Fix> fan-out 2; } spm r "
            + CHANNEL_SPM
            + " reads track; }\n"
            + "node a { os sim deploy P as p deploy R as r1 deploy R as r2 }\n"
            + "node b { os sim deploy R as r3 }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.DEPLOYMENT,
        IssueCodes.CHANNEL_FAN_OUT_EXCEEDED,
        text.indexOf("r3"),
        2,
        "channel 'track' has fan-out 2, and r3 would be reader 3 of it (after r1, r2)");
    final long exceeded =
        validation.validate(model).stream()
            .filter(i -> IssueCodes.CHANNEL_FAN_OUT_EXCEEDED.equals(i.getCode()))
            .count();
    org.junit.jupiter.api.Assertions.assertEquals(1, exceeded);
    validation.assertNoError(
        parser.parse(text.replace("fan-out 2", "fan-out 3")), IssueCodes.CHANNEL_FAN_OUT_EXCEEDED);
  }

  @Test
  void idlNamesThatCollideIgnoringCaseAreRefusedForChannelsOnLinux() throws Exception {
    final String payload =
        "enum Mode { IDLE, TRACKING }\n"
            + "enum State { Idle, BUSY }\n"
            + "struct Fix { Mode mode; State state; double lat; }\n";
    final String tmo =
        "tmo P { eac { channel track : rmmc<Fix>; } spm p " + CHANNEL_SPM + " publishes track; }\n";
    final Model linux = parser.parse(payload + tmo + "node a { os linux deploy P as p }\n");
    validation.assertError(
        linux,
        Literals.CHANNEL,
        IssueCodes.IDL_NAME_COLLISION,
        "channel 'track' is carried by DDS",
        "enum literal 'IDLE' of Mode (",
        ":1) and enum literal 'Idle' of State (",
        ":2) collide, so idlc refuses channels.idl; rename one");
    // On sim no idlc runs yet: the same names are a warning there.
    final Model sim = parser.parse(payload + tmo + "node a { os sim deploy P as p }\n");
    validation.assertWarning(sim, Literals.CHANNEL, IssueCodes.IDL_NAME_COLLISION, "collide");
    org.junit.jupiter.api.Assertions.assertTrue(
        validation.validate(sim).stream()
            .noneMatch(
                i ->
                    IssueCodes.IDL_NAME_COLLISION.equals(i.getCode())
                        && i.getSeverity() == org.eclipse.xtext.diagnostics.Severity.ERROR));
    // Fields that differ in case, a field named like its struct, a type named like its package.
    for (String[] bad :
        new String[][] {
          {"struct Fix { double lat; double Lat; }\n", "field 'lat' of Fix ("},
          {"struct Fix { double fix; }\n", "field 'fix' of Fix ("},
          {"package fix\nstruct Fix { double lat; }\n", "its package's module 'fix'"},
        }) {
      final Model model = parser.parse(bad[0] + tmo + "node a { os linux deploy P as p }\n");
      validation.assertError(model, Literals.CHANNEL, IssueCodes.IDL_NAME_COLLISION, bad[1]);
    }
    // Types the channel does not carry, a field named like its type (IDL refers to types by
    // their full name), and a payload that is not a struct are not IDL's business.
    for (String fine :
        new String[] {
          "enum Mode { IDLE }\nenum State { IDLE }\nstruct Fix { Mode mode; double lat; }\n",
          "struct Point { double x; }\nstruct Fix { Point point; Point other; }\n",
        }) {
      validation.assertNoIssue(
          parser.parse(fine + tmo + "node a { os linux deploy P as p }\n"),
          Literals.CHANNEL,
          IssueCodes.IDL_NAME_COLLISION);
    }
  }

  @Test
  void aChannelReadWithoutAPublisherIsAWarning() throws Exception {
    final String text =
        "struct Fix { double lat; }\n"
            + "tmo R { eac { channel track : rmmc<Fix>; } spm r "
            + CHANNEL_SPM
            + " reads track; }\n";
    final Model model = parser.parse(text);
    validation.assertWarning(
        model,
        Literals.SPM,
        IssueCodes.CHANNEL_NO_PUBLISHER,
        text.indexOf("track; }"),
        "track".length(),
        "no method of any TMO publishes channel 'track'");
  }

  @Test
  void aMethodDoesNotReadWhatItPublishes() throws Exception {
    final String text =
        "struct Fix { double lat; }\n"
            + "tmo R { eac { channel track : rmmc<Fix>; } spm r "
            + CHANNEL_SPM
            + " publishes track reads track; }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.SPM,
        IssueCodes.CHANNEL_PUBLISHED_AND_READ,
        text.indexOf("track; }"),
        "track".length());
  }

  @Test
  void nonAsciiLettersGetAMessageThatSaysSo() throws Exception {
    final Model model = parser.parse("struct P\u00f6int { double x; }\n");
    final String message = model.eResource().getErrors().get(0).getMessage();
    org.junit.jupiter.api.Assertions.assertTrue(
        message.startsWith("'\u00f6' (U+00F6) is not allowed here: names and keywords are ASCII"),
        message);
    // In strings and comments any character is fine.
    validation.assertNoErrors(
        parser.parse("// Gr\u00fc\u00dfe\nconst string<16> S = \"gr\u00fc\u00dfe\";\n"));
  }

  @Test
  void everyInterfaceOperationNeedsAServiceMethod() throws Exception {
    final String text =
        "interface I { void a(); void b(); }\ntmo T implements I { svm a gct 1 ms wcet 1 ms; }\n"
            + "node n { os linux deploy T as t1 }\n";
    validation.assertError(
        parser.parse(text),
        Literals.TMO,
        IssueCodes.OPERATION_WITHOUT_SVM,
        text.indexOf("I {", 20),
        1);
  }

  @Test
  void aSegmentIsUsedOncePerMethod() throws Exception {
    final String text =
        "tmo T { ods { segment s { double x; } } svm a gct 1 ms wcet 1 ms uses s read, s write; }\n"
            + "node n { os linux deploy T as t1 }\n";
    validation.assertError(
        parser.parse(text),
        Literals.SVM,
        IssueCodes.DUPLICATE_SEGMENT_USE,
        text.indexOf("s write"),
        "s write".length());
  }

  @Test
  void segmentsWhoseCppTypesCollide() throws Exception {
    final String text = "tmo T { ods { segment data { double x; } segment Data { double y; } } }\n";
    assertErrorAt(text, Literals.SEGMENT, IssueCodes.NAME_COLLISION, "Data");
  }

  @Test
  void namesThatCollideWithGeneratedClasses() throws Exception {
    final String text = "struct TBase { double x; }\ntmo T { }\n";
    validation.assertError(
        parser.parse(text), Literals.TMO, IssueCodes.NAME_COLLISION, text.indexOf("T {"), 1);
  }

  @Test
  void methodsWhoseGeneratedMembersCollide() throws Exception {
    // tick and Tick both get the segment view TickAccess.
    final String cased =
        "tmo T { ods { segment s { double x; } }\n"
            + "  svm tick gct 1 ms wcet 1 ms uses s read;\n"
            + "  svm Tick gct 1 ms wcet 1 ms uses s write;\n}\n";
    assertErrorAt(cased, Literals.SVM, IssueCodes.NAME_COLLISION, "Tick");
    // run_tick is the engine's entry point of tick.
    final String entry =
        "tmo T { svm tick gct 1 ms wcet 1 ms; svm run_tick gct 1 ms wcet 1 ms; }\n";
    assertErrorAt(entry, Literals.SVM, IssueCodes.NAME_COLLISION, "run_tick");
    // Without segments there is no view, and nothing to collide with.
    validation.assertNoError(
        parser.parse("tmo T { svm tick gct 1 ms wcet 1 ms; svm Tick gct 1 ms wcet 1 ms; }\n"),
        IssueCodes.NAME_COLLISION);
  }

  private static final String REMOTE =
      "tmo Server { svm get gct 2 ms wcet 1 ms; }\n"
          + "tmo Client { eac { gate server -> Server.get deadline %s; } }\n"
          + "node a { os linux deploy Client as client }\n"
          + "%s"
          + "network lan { latency 100 us; jitter 50 us; connects a, b; }\n";

  @Test
  void aGateDeadlineMustCoverTheRoundTrip() throws Exception {
    final String server = "node b { os linux endpoint \"uds:/tmp/b\" deploy Server as server }\n";
    final String tooShort = String.format(REMOTE, "2100 us", server);
    assertErrorAt(tooShort, Literals.GATE, IssueCodes.GATE_DEADLINE_TOO_SHORT, "2100 us");
    final String enough = String.format(REMOTE, "2300 us", server);
    validation.assertNoErrors(parser.parse(enough));
  }

  @Test
  void aGateCalleeMustBeDeployed() throws Exception {
    final String text = String.format(REMOTE, "5 ms", "node b { os linux }\n");
    validation.assertError(
        parser.parse(text),
        Literals.GATE,
        IssueCodes.CALLEE_NOT_DEPLOYED,
        text.indexOf("Server.get"),
        "Server".length());
  }

  @Test
  void endpointsAreWellFormedAndDistinct() throws Exception {
    final String text =
        "node a { os linux endpoint \"tcp:127.0.0.1:7001\" }\n"
            + "node b { os linux endpoint \"tcp:127.0.0.1:7001\" }\n"
            + "node c { os linux endpoint \"carrier-pigeon\" }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.DUPLICATE_ENDPOINT,
        text.lastIndexOf("\"tcp:127.0.0.1:7001\""),
        "\"tcp:127.0.0.1:7001\"".length());
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.INVALID_ENDPOINT,
        text.indexOf("\"carrier-pigeon\""),
        "\"carrier-pigeon\"".length());
  }

  @Test
  void aNodesHostIsAHostName() throws Exception {
    final String text =
        "node a { os linux endpoint \"tcp:10.0.0.1:7001\" host \"alpha-1.lan\" }\n"
            + "node b { os linux host \"-not a host\" }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.INVALID_HOST,
        text.indexOf("\"-not a host\""),
        "\"-not a host\"".length());
  }

  @Test
  void endpointsWrittenDifferentlyOnOnePortAreTheSameSocket() throws Exception {
    final String text =
        "node a { os linux endpoint \"tcp:127.0.0.1:7001\" }\n"
            + "node b { os linux endpoint \"tcp:localhost:7001\" }\n"
            + "node c { os linux endpoint \"tcp:0.0.0.0:7002\" }\n"
            + "node d { os linux endpoint \"tcp:127.0.0.1:7002\" }\n"
            + "node e { os linux endpoint \"udp:127.0.0.1:7001\" }\n"
            + "node f { os linux endpoint \"tcp:10.0.0.1:7001\" }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.DUPLICATE_ENDPOINT,
        text.indexOf("\"tcp:localhost:7001\""),
        "\"tcp:localhost:7001\"".length(),
        "node 'a' already listens on tcp:127.0.0.1:7001, and tcp:localhost:7001 is the same"
            + " socket: both are port 7001 of 127.0.0.1");
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.DUPLICATE_ENDPOINT,
        text.indexOf("\"tcp:127.0.0.1:7002\""),
        "\"tcp:127.0.0.1:7002\"".length(),
        "0.0.0.0 takes port 7002 on every address of the host");
    // UDP ports are not TCP ports, and another address's port 7001 is its own.
    final long duplicates =
        validation.validate(model).stream()
            .filter(issue -> IssueCodes.DUPLICATE_ENDPOINT.equals(issue.getCode()))
            .count();
    org.junit.jupiter.api.Assertions.assertEquals(2, duplicates);
  }

  @Test
  void aChannelPublishedWithoutAReaderIsAWarning() throws Exception {
    final String text =
        "struct Fix { double lat; }\n"
            + "tmo P { eac { channel track : rmmc<Fix>; } spm p "
            + CHANNEL_SPM
            + " publishes track; }\n";
    final Model model = parser.parse(text);
    validation.assertWarning(
        model,
        Literals.SPM,
        IssueCodes.CHANNEL_NO_READER,
        text.indexOf("track; }"),
        "track".length(),
        "no method of any TMO reads channel 'track'");
  }

  @Test
  void systemsListNodesOnceAndSyncToOneOfThem() throws Exception {
    final String text =
        "node a { os linux }\nnode b { os linux }\nnode c { os linux }\n"
            + "system S { nodes a, b, a; clock-sync master c period 1 s; }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model, Literals.SYSTEM_DECL, IssueCodes.DUPLICATE_NODE, text.lastIndexOf("a;"), 1);
    validation.assertError(
        model,
        Literals.SYSTEM_DECL,
        IssueCodes.CLOCK_MASTER_NOT_IN_SYSTEM,
        text.indexOf("c period"),
        1);
  }

  @Test
  void clockSyncNeedsAReachableMasterAPeriodAndOneMasterPerNode() throws Exception {
    final String text =
        "node a { os linux }\nnode b { os linux endpoint \"udp:127.0.0.1:7001\" }\n"
            + "node c { os linux endpoint \"tcp:127.0.0.1:7002\" }\nnode d { os linux }\n"
            + "system S { nodes a, d; clock-sync master a period 1 s; }\n"
            + "system T { nodes b, d; clock-sync master b period 1 s; }\n"
            + "system U { nodes c; clock-sync master c period 0 ms; }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.SYSTEM_DECL,
        IssueCodes.CLOCK_MASTER_UNREACHABLE,
        text.indexOf("a period"),
        1,
        "has no endpoint");
    validation.assertError(
        model,
        Literals.SYSTEM_DECL,
        IssueCodes.CLOCK_MASTER_UNREACHABLE,
        text.indexOf("b period"),
        1,
        "oneways only");
    validation.assertError(
        model,
        Literals.SYSTEM_DECL,
        IssueCodes.CLOCK_SYNCED_TWICE,
        text.indexOf("b period"),
        1,
        "node 'd'");
    validation.assertError(
        model,
        Literals.SYSTEM_DECL,
        IssueCodes.INVALID_CLOCK_PERIOD,
        text.indexOf("0 ms"),
        "0 ms".length());
  }

  @Test
  void syntaxErrorsReadLikeSentences() throws Exception {
    final Model model = parser.parse("tmo T { svm s gct ms wcet 1 ms; }");
    final String message = model.eResource().getErrors().get(0).getMessage();
    org.junit.jupiter.api.Assertions.assertFalse(message.contains("RULE_"), message);
    org.junit.jupiter.api.Assertions.assertTrue(message.contains("a number"), message);
  }

  @Test
  void unresolvedNamesAreReportedWhereTheyAreWritten() throws Exception {
    final String text = "node n { os linux deploy Missing as m }\n";
    validation.assertError(
        parser.parse(text),
        Literals.DEPLOYMENT,
        IssueCodes.UNRESOLVED_REFERENCE,
        text.indexOf("Missing"),
        "Missing".length(),
        "unknown TMO 'Missing'");
  }

  @Test
  void unresolvedNamesSayWhatIsMissingInKairosWords() throws Exception {
    final String type = "struct L { xs p; }\n";
    validation.assertError(
        parser.parse(type),
        Literals.NAMED_TYPE_REF,
        IssueCodes.UNRESOLVED_REFERENCE,
        type.indexOf("xs"),
        2,
        "unknown type 'xs'");
    final String method =
        "tmo Server { svm get gct 1 ms wcet 1 ms; }\n"
            + "tmo Client { eac { gate g -> Server.gett deadline 5 ms; } }\n";
    validation.assertError(
        parser.parse(method),
        Literals.GATE,
        IssueCodes.UNRESOLVED_REFERENCE,
        method.indexOf("gett"),
        4,
        "TMO 'Server' has no svm 'gett'");
    final String segment = "tmo T { svm s gct 1 ms wcet 1 ms uses state read; }\n";
    validation.assertError(
        parser.parse(segment),
        Literals.SEGMENT_USE,
        IssueCodes.UNRESOLVED_REFERENCE,
        segment.indexOf("state"),
        5,
        "TMO 'T' has no segment 'state'");
    // An unknown callee is one problem, not two.
    final String callee = "tmo Client { eac { gate g -> Nobody.get deadline 5 ms; } }\n";
    final var issues =
        validation.validate(parser.parse(callee)).stream()
            .filter(i -> i.getSeverity() == org.eclipse.xtext.diagnostics.Severity.ERROR)
            .toList();
    org.junit.jupiter.api.Assertions.assertEquals(1, issues.size(), issues.toString());
    org.junit.jupiter.api.Assertions.assertTrue(
        issues.get(0).getMessage().equals("unknown TMO 'Nobody'"), issues.toString());
  }

  @Test
  void anUnresolvedNameDeclaredInAnotherPackageSaysHowToReachIt() throws Exception {
    final var resources = resourceSets.get();
    parser.parse("package geo\nstruct Point { double lat; }\n", resources);
    final String text = "package nav\nstruct Leg { Point from; }\ntmo Point { }\n";
    final Model nav = parser.parse(text, resources);
    validation.assertError(
        nav,
        Literals.NAMED_TYPE_REF,
        IssueCodes.UNRESOLVED_REFERENCE,
        text.indexOf("Point from"),
        "Point".length(),
        "unknown type 'Point'; package geo declares one: write geo.Point or import geo.*");
  }

  @Test
  void aTmoPinnedToACoreTheHardwareLacksIsAnError() throws Exception {
    final String text =
        "tmo T { }\ntmo U { }\ntmo V { }\nhardware Duo { cores 2; }\n"
            + "node n { hardware Duo os linux deploy T as t on core 2 deploy U as u on core 1"
            + " deploy V as v }\n"
            + "node m { os linux deploy T as x on core 1 }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.DEPLOYMENT,
        IssueCodes.CORE_OUT_OF_RANGE,
        text.indexOf("2 deploy U"),
        1,
        "core 2 does not exist on node 'n': its hardware has 2 cores (0 to 1)");
    // Without hardware a node has the reference machine's one core.
    validation.assertError(
        model,
        Literals.DEPLOYMENT,
        IssueCodes.CORE_OUT_OF_RANGE,
        text.lastIndexOf("1 }"),
        1,
        "core 1 does not exist on node 'm': its hardware has 1 core (core 0)");
    // `on` and `core` stay usable as names.
    validation.assertNoErrors(parser.parse("struct S { double on; double core; }\n"));
  }

  @Test
  void zeroRatesSpeedsCoresPeriodsAndWcetsAreRejected() throws Exception {
    final String rate = "tmo T { svm s gct 1 ms wcet 1 ms max-rate 0 Hz; }\n";
    assertErrorAt(rate, Literals.RATE, IssueCodes.INVALID_RATE, "0 Hz");
    final String hardware = "hardware H { cores 0; speed 0; }\n";
    final Model model = parser.parse(hardware);
    validation.assertError(
        model, Literals.HARDWARE, IssueCodes.INVALID_CORES, hardware.indexOf("0;"), 1);
    validation.assertError(
        model, Literals.HARDWARE, IssueCodes.INVALID_SPEED, hardware.lastIndexOf("0;"), 1);
    final String period =
        spm("for t = from 0 s to forever every 0 ms start-during (t, t) finish-by t", "1 ms");
    validation.assertError(
        parser.parse(period),
        Literals.PERIODIC_AAC,
        IssueCodes.NON_POSITIVE_PERIOD,
        period.indexOf("0 ms"),
        "0 ms".length());
    final String wcet = "tmo T { svm s gct 1 ms wcet 0 ms; }\n";
    validation.assertError(
        parser.parse(wcet),
        Literals.SVM,
        IssueCodes.NON_POSITIVE_WCET,
        wcet.indexOf("0 ms"),
        "0 ms".length());
  }

  @Test
  void aBandwidthIsAWholePositiveNumberOfBitsPerSecond() throws Exception {
    final String nodes = "node a { os sim } node b { os sim }\n";
    for (String bandwidth : new String[] {"0 Mbps", "1.5 bps", "1e30 Gbps"}) {
      final String text =
          nodes + "network lan { latency 1 ms; bandwidth " + bandwidth + "; connects a, b; }\n";
      assertErrorAt(text, Literals.BANDWIDTH, IssueCodes.INVALID_BANDWIDTH, bandwidth);
    }
    validation.assertNoErrors(
        parser.parse(nodes + "network lan { bandwidth 1.5 kbps; connects a, b; }\n"));
  }

  @Test
  void aSystemOfSimNodesBuildsAnExecutableNoNodeMayShare() throws Exception {
    final String text =
        "node avionics { os sim } node b { os sim }\nsystem Avionics { nodes avionics, b; }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.SYSTEM_DECL,
        IssueCodes.NAME_COLLISION,
        text.indexOf("Avionics {"),
        "Avionics".length(),
        "system 'Avionics' runs its sim nodes as one executable of its name, which node"
            + " 'avionics' builds too; system and node names differ in more than case");
    // A system with a Linux node runs as processes: no executable of its own.
    validation.assertNoErrors(
        parser.parse(
            "node avionics { os linux } node b { os sim }\nsystem Avionics { nodes avionics, b;"
                + " }\n"));
  }

  @Test
  void anActivationConditionThatEndsBeforeItStarts() throws Exception {
    final String text =
        spm(
            "for t = from 2 s to 1 s every 10 ms start-during (t, t + 1 ms) finish-by t + 5 ms",
            "1 ms");
    validation.assertError(
        parser.parse(text),
        Literals.PERIODIC_AAC,
        IssueCodes.AAC_ENDS_BEFORE_START,
        text.indexOf("1 s"),
        "1 s".length());
  }

  @Test
  void aGateNeedsItsCalleesNodeToHaveAnEndpoint() throws Exception {
    final String text =
        "tmo Server { svm get gct 2 ms wcet 1 ms; }\n"
            + "tmo Client { eac { gate server -> Server.get deadline 9 ms; } }\n"
            + "node a { os linux deploy Client as client }\n"
            + "node b { os linux deploy Server as server }\n"
            + "network n { latency 1 ms; jitter 0 ms; bandwidth 1 Mbps; connects a, b; }\n";
    validation.assertError(
        parser.parse(text),
        Literals.GATE,
        IssueCodes.CALLEE_WITHOUT_ENDPOINT,
        text.indexOf("Server.get"),
        "Server".length(),
        "node 'b', where the callee TMO 'Server' runs, has no endpoint: give it one (e.g."
            + " endpoint \"tcp:127.0.0.1:7002\")");
  }

  /** A client node calling `Server.<operation>` on a node listening on udp:. */
  private static String gateOverUdp(String iface, String svms, String operation) {
    return "exception Full { uint32 queued; }\n"
        + iface
        + "tmo Server implements Ops { "
        + svms
        + " }\n"
        + "tmo Client { eac { gate server -> Server."
        + operation
        + " deadline 9 ms; } }\n"
        + "node a { os linux endpoint \"tcp:127.0.0.1:7001\" deploy Client as client }\n"
        + "node b { os linux endpoint \"udp:127.0.0.1:7100\" deploy Server as server }\n"
        + "network n { latency 1 ms; jitter 0 ms; bandwidth 1 Mbps; connects a, b; }\n";
  }

  @Test
  void aGateToANodeOnUdpMustCallAOnewayThatRaisesNothing() throws Exception {
    final String iface =
        "interface Ops { uint32 get(); oneway void nudge(in double by);"
            + " oneway void push() raises (Full); }\n";
    final String svms =
        "svm get gct 2 ms wcet 1 ms; svm nudge gct 2 ms wcet 1 ms; svm push gct 2 ms wcet 1 ms;"
            + " svm tick gct 2 ms wcet 1 ms;";
    final String twoWay = gateOverUdp(iface, svms, "get");
    validation.assertError(
        parser.parse(twoWay),
        Literals.GATE,
        IssueCodes.TWO_WAY_OVER_UDP,
        twoWay.indexOf("Server.get") + "Server.".length(),
        "get".length(),
        "gate 'server' calls Server.get, which is a two-way operation, but node 'b' listens on"
            + " udp:127.0.0.1:7100: UDP carries oneway operations only (make it a oneway without"
            + " raises, or give the node a uds:, tcp: or shm: endpoint)");
    final String raising = gateOverUdp(iface, svms, "push");
    validation.assertError(
        parser.parse(raising),
        Literals.GATE,
        IssueCodes.TWO_WAY_OVER_UDP,
        raising.indexOf("Server.push") + "Server.".length(),
        "push".length(),
        "gate 'server' calls Server.push, which raises exceptions, which no reply could carry"
            + " back, but node 'b' listens on udp:127.0.0.1:7100: UDP carries oneway operations"
            + " only (make it a oneway without raises, or give the node a uds:, tcp: or shm:"
            + " endpoint)");
    // A service method of no interface operation is called two-way.
    final String bare = gateOverUdp(iface, svms, "tick");
    validation.assertError(
        parser.parse(bare),
        Literals.GATE,
        IssueCodes.TWO_WAY_OVER_UDP,
        bare.indexOf("Server.tick") + "Server.".length(),
        "tick".length());
    validation.assertNoIssue(
        parser.parse(gateOverUdp(iface, svms, "nudge")),
        Literals.GATE,
        IssueCodes.TWO_WAY_OVER_UDP);
    // The same two-way call to a node on TCP is fine.
    validation.assertNoIssue(
        parser.parse(twoWay.replace("udp:127.0.0.1:7100", "tcp:127.0.0.1:7100")),
        Literals.GATE,
        IssueCodes.TWO_WAY_OVER_UDP);
  }

  @Test
  void aUdpEndpointLeavesRoomForThePortsOfItsBands() throws Exception {
    final String text =
        "node a { os linux endpoint \"udp:127.0.0.1:65530\" }\n"
            + "node b { os linux endpoint \"udp:10.0.0.1:7000\" }\n"
            + "node c { os linux endpoint \"udp:10.0.0.1:7010\" }\n";
    final Model model = parser.parse(text);
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.INVALID_ENDPOINT,
        text.indexOf("\"udp:127.0.0.1:65530\""),
        "\"udp:127.0.0.1:65530\"".length(),
        "endpoint 'udp:127.0.0.1:65530' takes the oneways of band b on port 65530 + b, for bands"
            + " up to 16: its port can be at most 65519");
    validation.assertError(
        model,
        Literals.NODE,
        IssueCodes.DUPLICATE_ENDPOINT,
        text.indexOf("\"udp:10.0.0.1:7010\""),
        "\"udp:10.0.0.1:7010\"".length(),
        "the band ports of udp:10.0.0.1:7010 (7011 to 7026) overlap those of node 'b' at"
            + " udp:10.0.0.1:7000: keep udp: ports of one host at least 16 apart");
    // Another host, another protocol, or 16 ports apart: no overlap.
    validation.assertNoErrors(
        parser.parse(
            "node b { os linux endpoint \"udp:10.0.0.1:7000\" }\n"
                + "node d { os linux endpoint \"udp:10.0.0.2:7010\" }\n"
                + "node e { os linux endpoint \"tcp:10.0.0.1:7005\" }\n"
                + "node f { os linux endpoint \"udp:10.0.0.1:7016\" }\n"));
  }

  @Test
  void aGateNeedsANetworkBetweenTheNodes() throws Exception {
    final String text =
        "tmo Server { svm get gct 2 ms wcet 1 ms; }\n"
            + "tmo Client { eac { gate server -> Server.get deadline 9 ms; } }\n"
            + "node a { os linux deploy Client as client }\n"
            + "node b { os linux endpoint \"tcp:127.0.0.1:7002\" deploy Server as server }\n";
    validation.assertError(
        parser.parse(text),
        Literals.GATE,
        IssueCodes.NO_NETWORK_PATH,
        text.indexOf("Server.get"),
        "Server".length());
  }

  @Test
  void anEmptyNodeIsAWarning() throws Exception {
    final String text = "node idle { os linux }\n";
    validation.assertWarning(
        parser.parse(text),
        Literals.NODE,
        IssueCodes.EMPTY_NODE,
        text.indexOf("idle"),
        "idle".length());
  }
}
