package dev.kairos.generator.emit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.Tmos.Access;
import dev.kairos.ir.Tmos.SegmentAccess;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Declared segment use is the access a body gets: each method's view holds exactly the segments it
 * uses, const where it reads; the object data store is private to the base; starters and the check
 * of kept headers spell the same signatures.
 */
class SegmentAccessTest {
  private static final TypeUse U64 = new TypeUse.Primitive(TypeUse.PrimitiveKind.UINT64);
  private static final TypeUse U32 = new TypeUse.Primitive(TypeUse.PrimitiveKind.UINT32);

  private static SourceRef line(int line) {
    return new SourceRef("nav.tmo", line);
  }

  private static Tmos.Segment segment(String name, int line) {
    return new Tmos.Segment(name, List.of(new Types.Field("n", U64, 0, line(line))), line(line));
  }

  private static Tmos.Spm spm(String name, int line, SegmentAccess... uses) {
    return new Tmos.Spm(
        name,
        0,
        Tmos.FOREVER,
        10_000_000,
        0,
        1_000_000,
        10_000_000,
        100_000,
        Tmos.Criticality.HARD,
        0,
        List.of(uses),
        line(line));
  }

  /**
   * Nav: state (written by update, read by current), cfg (read by update), log (nobody's); update
   * and current use segments, calibrate none; current serves an operation with a parameter.
   */
  private static Tmos.TmoClass nav() {
    final Types.Operation current =
        new Types.Operation(
            "current",
            false,
            U64,
            List.of(new Types.Parameter(Types.Direction.IN, U32, "extra")),
            List.of(),
            line(3));
    final Tmos.Svm svm =
        new Tmos.Svm(
            "current",
            5_000_000,
            100_000,
            Tmos.Criticality.HARD,
            0,
            100_000_000,
            List.of(new SegmentAccess("state", Access.READ)),
            Optional.of(current),
            line(14));
    return new Tmos.TmoClass(
        List.of("nav"),
        "Nav",
        List.of("Query"),
        List.of(segment("state", 6), segment("cfg", 7), segment("log", 8)),
        List.of(
            spm(
                "update",
                10,
                new SegmentAccess("state", Access.WRITE),
                new SegmentAccess("cfg", Access.READ)),
            spm("calibrate", 12)),
        List.of(svm),
        List.of(),
        List.of(),
        line(5));
  }

  /** The system around nav(): its interface Query, which declares the SvM's operation. */
  private static SystemModel system() {
    final Tmos.TmoClass nav = nav();
    final Types.Operation current = nav.svms().get(0).signature().orElseThrow();
    return new SystemModel(
        "nav",
        List.of(),
        List.of(),
        List.of(new Types.Interface(List.of("nav"), "Query", List.of(current), line(2))),
        List.of(nav),
        List.of(),
        List.of(),
        List.of());
  }

  @Test
  void eachMethodGetsAViewOfExactlyItsSegmentsConstWhereItReads() {
    final String base = ServantEmitter.emit(system(), nav()).content();
    assertTrue(
        base.contains(
            "  // from nav.tmo:10\n"
                + "  /// spm update uses state write, cfg read: all of the object data store its"
                + " body can reach.\n"
                + "  struct UpdateAccess {\n"
                + "    NavOds::State& state;\n"
                + "    const NavOds::Cfg& cfg;\n"
                + "  };\n"),
        base);
    assertTrue(
        base.contains("  struct CurrentAccess {\n    const NavOds::State& state;\n  };\n"), base);
    // A segment no method uses is in no view; a method that uses none gets no view.
    assertFalse(base.contains("NavOds::Log&"), base);
    assertFalse(base.contains("CalibrateAccess"), base);

    assertTrue(base.contains("  virtual void update(UpdateAccess ods) = 0;\n"), base);
    assertTrue(base.contains("  virtual void calibrate() = 0;\n"), base);
    assertTrue(
        base.contains(
            "  virtual ::std::uint64_t current(CurrentAccess ods, ::std::uint32_t extra) = 0;\n"),
        base);
  }

  @Test
  void theObjectDataStoreIsReachableOnlyThroughTheEntryPoints() {
    final String base = ServantEmitter.emit(system(), nav()).content();
    final int privateAt = base.indexOf(" private:\n");
    assertTrue(privateAt > 0, base);
    assertFalse(base.contains(" protected:"), base);
    assertTrue(base.indexOf("  NavOds ods_{};\n") > privateAt, base);
    // The methods themselves are private too: only run_<method> lends them their segments.
    assertTrue(base.indexOf("virtual void update(") > privateAt, base);
    assertTrue(
        base.contains("  void run_update() { update(UpdateAccess{ods_.state, ods_.cfg}); }\n"));
    assertTrue(base.contains("  void run_calibrate() { calibrate(); }\n"), base);
    assertTrue(
        base.contains(
            "  ::std::uint64_t run_current(::std::uint32_t extra) {\n"
                + "    return current(CurrentAccess{ods_.state}, extra);\n"
                + "  }\n"),
        base);
    assertEquals(1, base.split("ods_\\{\\}", -1).length - 1, "one object data store");
  }

  @Test
  void theEntryPointsAreTheNodeProgramsAlone() {
    final String base = ServantEmitter.emit(system(), nav()).content();
    final int privateAt = base.indexOf(" private:\n");
    // The base only declares the way in; the entry points and skeletons are private, so a body
    // cannot run another method (and its segments) by calling them.
    final int declared = base.indexOf("  struct EntryPoints;\n");
    assertTrue(declared > 0 && declared < privateAt, base);
    assertFalse(base.contains("struct EntryPoints {"), base);
    assertTrue(base.indexOf("  void run_update()") > privateAt, base);
    assertTrue(base.indexOf("  ::std::uint64_t run_current(") > privateAt, base);
    assertTrue(base.indexOf("static void serve_current(") > privateAt, base);
  }

  @Test
  void segmentFieldsStartWithTheirInitialValues() {
    final TypeUse f32 = new TypeUse.Primitive(TypeUse.PrimitiveKind.FLOAT);
    final TypeUse f64 = new TypeUse.Primitive(TypeUse.PrimitiveKind.DOUBLE);
    final Tmos.Segment state =
        new Tmos.Segment(
            "state",
            List.of(
                new Types.Field(
                    "speed", f64, 0, Optional.of(new Types.NumberValue(false, "2")), line(7)),
                new Types.Field(
                    "gain", f32, 0, Optional.of(new Types.NumberValue(false, "0.1")), line(8)),
                new Types.Field(
                    "mode", U32, 0, Optional.of(new Types.NumberValue(false, "010")), line(9)),
                new Types.Field(
                    "limit",
                    U64,
                    0,
                    Optional.of(new Types.ConstantValue(List.of("nav"), "LIMIT")),
                    line(10)),
                new Types.Field(
                    "label",
                    new TypeUse.BoundedString(8),
                    0,
                    Optional.of(new Types.TextValue("a\"b")),
                    line(11)),
                new Types.Field("count", U64, 0, line(12))),
            line(6));
    final Tmos.TmoClass nav = nav();
    final Tmos.TmoClass seeded =
        new Tmos.TmoClass(
            nav.namespace(),
            nav.name(),
            nav.interfaces(),
            List.of(state, segment("cfg", 13), segment("log", 14)),
            nav.spms(),
            nav.svms(),
            nav.gates(),
            nav.channels(),
            nav.source());
    final String base = ServantEmitter.emit(system(), seeded).content();
    assertTrue(
        base.contains(
            "  struct State {\n"
                + "    // from nav.tmo:7\n"
                + "    double speed{2.0};\n"
                + "    // from nav.tmo:8\n"
                + "    float gain{0.1F};\n"
                + "    // from nav.tmo:9\n"
                + "    ::std::uint32_t mode{10};\n"
                + "    // from nav.tmo:10\n"
                + "    ::std::uint64_t limit{::nav::LIMIT};\n"
                + "    // from nav.tmo:11\n"
                + "    ::kairos::BoundedString<8> label{\"a\\\"b\"};\n"
                + "    ::std::uint64_t count{};\n"
                + "  };\n"),
        base);
  }

  @Test
  void startersOverrideWhatTheBaseDeclares() {
    final List<GeneratedFile> starters = UserCodeEmitter.emit(nav());
    final String header = starters.get(0).content();
    final String source = starters.get(1).content();
    assertTrue(header.contains("  void update(UpdateAccess ods) override;\n"), header);
    assertTrue(header.contains("  void calibrate() override;\n"), header);
    assertTrue(
        header.contains(
            "  ::std::uint64_t current(CurrentAccess ods, ::std::uint32_t extra) override;\n"),
        header);
    // Names are comments in empty bodies, so starters compile without unused-parameter warnings.
    assertTrue(source.contains("void Nav::update(UpdateAccess /*ods*/) {\n"), source);
    assertTrue(
        source.contains(
            "::std::uint64_t Nav::current(CurrentAccess /*ods*/, ::std::uint32_t /*extra*/) {\n"),
        source);
    // A fresh starter matches its base.
    assertEquals(List.of(), HandWrittenSignatures.check(nav(), "nav/Nav.hpp", header));
    // A destructor the user adds is not a method the model dropped.
    final String withDestructor =
        header.replace(
            "  void calibrate() override;\n", "  void calibrate() override;\n  ~Nav() override;\n");
    assertTrue(withDestructor.contains("~Nav() override;"), withDestructor);
    assertEquals(List.of(), HandWrittenSignatures.check(nav(), "nav/Nav.hpp", withDestructor));
  }

  @Test
  void aKeptHeaderThatNoLongerMatchesIsNamedWithTheMethodsModelLine() {
    final String stale =
        "class Nav final : public NavBase {\n"
            + " private:\n"
            + "  void update() override;  // update(UpdateAccess ods) in a comment does not count\n"
            + "  void calibrate(CalibrateAccess ods) override;\n"
            + "};\n";
    final List<HandWrittenSignatures.Mismatch> mismatches =
        HandWrittenSignatures.check(nav(), "src/nav/Nav.hpp", stale);
    assertEquals(3, mismatches.size(), mismatches.toString());
    assertEquals(line(10), mismatches.get(0).source());
    assertEquals(
        "spm update now uses state write, cfg read, but src/nav/Nav.hpp declares it without the"
            + " view UpdateAccess; the base declares void update(UpdateAccess ods): change the"
            + " declaration there and the body in src/nav/Nav.cpp",
        mismatches.get(0).message());
    assertEquals(line(12), mismatches.get(1).source());
    assertEquals(
        "spm calibrate uses no segment any more, but src/nav/Nav.hpp declares it with the view"
            + " CalibrateAccess; the base declares void calibrate(): change the declaration there"
            + " and the body in src/nav/Nav.cpp",
        mismatches.get(1).message());
    assertEquals(line(14), mismatches.get(2).source());
    assertEquals(
        "svm current is not declared in src/nav/Nav.hpp: add `::std::uint64_t"
            + " current(CurrentAccess ods, ::std::uint32_t extra) override;` to the class there and"
            + " its body to src/nav/Nav.cpp",
        mismatches.get(2).message());
  }

  @Test
  void aKeptHeaderThatStillOverridesAMethodTheModelDroppedIsNamedWithTheTmosModelLine() {
    final String stale =
        "class Nav final : public NavBase {\n"
            + " private:\n"
            + "  void update(UpdateAccess ods) override;\n"
            + "  void calibrate() override;\n"
            + "  ::std::uint64_t current(CurrentAccess ods, ::std::uint32_t extra) override;\n"
            + "  void recalibrate(RecalibrateAccess ods)   // gone from the model\n"
            + "      override;\n"
            + "  void on_deadline_miss(const ::kairos::MissReport& miss) noexcept override;\n"
            + "  // void retired() override;  (a comment does not count)\n"
            + "};\n";
    final List<HandWrittenSignatures.Mismatch> mismatches =
        HandWrittenSignatures.check(nav(), "src/nav/Nav.hpp", "src/nav/Nav.cpp", stale);
    assertEquals(1, mismatches.size(), mismatches.toString());
    assertEquals(nav().source(), mismatches.get(0).source());
    assertEquals(
        "tmo Nav has no method recalibrate any more, but src/nav/Nav.hpp still declares"
            + " recalibrate(...) override: remove it there and its body from src/nav/Nav.cpp",
        mismatches.get(0).message());
  }
}
