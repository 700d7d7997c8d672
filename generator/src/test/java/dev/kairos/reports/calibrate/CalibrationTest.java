package dev.kairos.reports.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The arithmetic of calibration and the reader of timings files, apart from any model. */
class CalibrationTest {
  @Test
  void measuredTimesBecomeReferenceWcetsWithTheMarginAndTheNodesSpeed() {
    // 400 us measured + 20% on the reference machine
    assertEquals(480_000, Calibration.toReference(400_000, new BigDecimal("0.2"), BigDecimal.ONE));
    // on hardware of half the reference speed the same code would take half as long there
    assertEquals(
        240_000, Calibration.toReference(400_000, new BigDecimal("0.2"), new BigDecimal("0.5")));
    assertEquals(1, Calibration.toReference(1, BigDecimal.ZERO, new BigDecimal("0.3")));
  }

  @Test
  void writtenWcetsAreRoundedUpToThreeDigitsAndSpelledAsTheLanguageWritesThem() {
    assertEquals(615_000, Calibration.roundUp(614_400));
    assertEquals(5_390, Calibration.roundUp(5_386));
    assertEquals(999, Calibration.roundUp(999));
    assertEquals(2_460_000, Calibration.roundUp(2_460_000));
    assertEquals("615 us", Calibration.spell(615_000));
    assertEquals("5.39 us", Calibration.spell(5_390));
    assertEquals("2.46 ms", Calibration.spell(2_460_000));
    assertEquals("1.5 s", Calibration.spell(1_500_000_000));
    assertEquals("999 ns", Calibration.spell(999));
  }

  @Test
  void malformedDocumentsAreRefusedAtTheirLine() {
    final JsonText.Malformed unclosed =
        assertThrows(JsonText.Malformed.class, () -> JsonText.parse("{\n  \"a\": [1,\n  2\n"));
    assertEquals(4, unclosed.line());
    final JsonText.Malformed twice =
        assertThrows(JsonText.Malformed.class, () -> JsonText.parse("{\"a\": 1,\n\"a\": 2}"));
    assertEquals(2, twice.line());
    assertTrue(twice.getMessage().contains("given twice"));
    assertThrows(JsonText.Malformed.class, () -> JsonText.parse(""));
    assertThrows(JsonText.Malformed.class, () -> JsonText.parse("[".repeat(100)));
    assertThrows(JsonText.Malformed.class, () -> JsonText.parse("{} {}"));
    final JsonText.Malformed notTimings =
        assertThrows(
            JsonText.Malformed.class, () -> TimingRun.parse("x.json", "{\n\"format\": \"sarif\"}"));
    assertEquals(2, notTimings.line());
  }
}
