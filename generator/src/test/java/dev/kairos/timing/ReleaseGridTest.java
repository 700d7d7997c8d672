package dev.kairos.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The one place a hyperperiod is derived, and the one cap on unrolling it. */
class ReleaseGridTest {
  private static final long MS = 1_000_000;

  @Test
  void aCycleIsTheLeastCommonMultipleAndCountsEveryRelease() {
    final ReleaseGrid grid = ReleaseGrid.of(LongStream.of(4 * MS, 6 * MS, 0));
    assertEquals(ReleaseGrid.Size.CYCLE, grid.size());
    assertEquals(12 * MS, grid.hyperperiodNs());
    assertEquals(3 + 2, grid.releasesPerCycle(), "the one-shot (period 0) repeats nowhere");
    assertTrue(grid.unrollable(1));
  }

  @Test
  void oneShotsAloneMakeNoCycle() {
    final ReleaseGrid grid = ReleaseGrid.of(LongStream.of(0, 0));
    assertEquals(ReleaseGrid.Size.NONE, grid.size());
    assertEquals(0, grid.hyperperiodNs());
    assertFalse(grid.cyclic());
    assertFalse(grid.unrollable(1));
  }

  @Test
  void aCycleBeyond64BitsStaysBeyondWhateverPeriodFollows() {
    // Four large coprime periods overflow; short periods after them must not bring back a
    // small, wrong cycle.
    final ReleaseGrid grid =
        ReleaseGrid.of(LongStream.of(1_000_003, 1_000_033, 1_000_037, 1_000_039, 2, 3));
    assertTrue(grid.beyond64Bits());
    assertEquals(0, grid.hyperperiodNs());
    assertFalse(grid.unrollable(1));
  }

  @Test
  void theCapHoldsForEveryCycleAnAnalysisPlays() {
    // 1 us against 200 ms: 200,000 releases of the short period in one cycle, and one more.
    final ReleaseGrid grid = ReleaseGrid.of(LongStream.of(1_000, 200 * MS));
    assertEquals(ReleaseGrid.MAX_RELEASES + 1, grid.releasesPerCycle());
    assertFalse(grid.unrollable(1));
    final ReleaseGrid half = ReleaseGrid.of(LongStream.of(2_000, 200 * MS));
    assertTrue(half.unrollable(1));
    assertFalse(half.unrollable(2), "two cycles of it hold more than the cap");
  }

  @Test
  void coresCombineIntoTheNodesCycleWithTheirReleasesRepeated() {
    final ReleaseGrid core0 = ReleaseGrid.of(LongStream.of(4 * MS, 2 * MS)); // 4 ms: 1 + 2
    final ReleaseGrid core1 = ReleaseGrid.of(LongStream.of(6 * MS)); // 6 ms: 1
    final ReleaseGrid node = ReleaseGrid.combined(List.of(core0, core1));
    assertEquals(12 * MS, node.hyperperiodNs());
    assertEquals(3 * 3 + 2 * 1, node.releasesPerCycle());
    assertEquals(ReleaseGrid.of(LongStream.of(4 * MS, 2 * MS, 6 * MS)), node, "as if on one core");
    final ReleaseGrid idle = ReleaseGrid.of(LongStream.empty());
    assertEquals(core1, ReleaseGrid.combined(List.of(idle, core1)), "an idle core adds nothing");
    final ReleaseGrid beyond = ReleaseGrid.of(LongStream.of(Long.MAX_VALUE, Long.MAX_VALUE - 1));
    assertTrue(ReleaseGrid.combined(List.of(core0, beyond)).beyond64Bits());
  }
}
