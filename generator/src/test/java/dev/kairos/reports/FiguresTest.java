package dev.kairos.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FiguresTest {
  @Test
  void durationsAreWrittenInTheLargestUnitReachedWithAtMostThreeDecimals() {
    assertEquals("2.7 ms", Figures.duration(2_700_000));
    assertEquals("300 us", Figures.duration(300_000));
    assertEquals("1.234 us", Figures.duration(1_234));
    assertEquals("999 ns", Figures.duration(999));
    assertEquals("0 ns", Figures.duration(0));
    assertEquals("1.5 s", Figures.duration(1_500_000_000));
    assertEquals("59.999 s", Figures.duration(59_999_000_000L));
    assertEquals("1 min", Figures.duration(60_000_000_000L));
    assertEquals("1.5 min", Figures.duration(90_000_000_000L));
    assertEquals("2.066 h", Figures.duration(7_436_429_000_000L));
    assertEquals("16.8 ms", Figures.duration(16_800_000));
    assertEquals("1 ms", Figures.duration(1_000_400)); // rounded to three decimals
  }

  @Test
  void percentagesHaveOneDecimal() {
    assertEquals("17.4%", Figures.percent(0.1744));
    assertEquals("100.0%", Figures.percent(1.0));
  }
}
