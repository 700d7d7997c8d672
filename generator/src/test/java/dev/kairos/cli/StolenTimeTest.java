package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kairos.reports.RunTable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The time a run's CPUs lost to the machine, read as the kernel writes it, and what the run says of
 * a hard method that went above its bound on a CPU that lost time, or lost none.
 */
class StolenTimeTest {
  @Test
  void theSchedulersClocksGiveEachCpusLostTimeToTheNanosecond() {
    final List<String> debug =
        List.of(
            "Sched Debug Version: v0.11, 6.18.0 #1",
            "ktime                                   : 23658631.600781",
            "cpu#0, 2596.142 MHz",
            "  .nr_running                    : 1",
            "  .clock                         : 23658631.600781",
            "  .clock_task                    : 23652493.791957",
            "cfs_rq[0]:/",
            "  .exec_clock                    : 0.000000",
            "cpu#1, 2596.142 MHz",
            "  .clock                         : 23658630.120435",
            "  .clock_task                    : 23658630.120435");
    assertEquals(Map.of(0, 6_137_808_824L, 1, 0L), StolenTime.fromSchedulerDebug(debug));
  }

  @Test
  void procStatGivesTheStealColumnInTicksOfTenMilliseconds() {
    final List<String> stat =
        List.of(
            "cpu  2174117 2679 383047 2100132 12866 0 5965 1257 0 0",
            "cpu0 1071428 1278 185369 1076554 1925 0 2124 635 0 0",
            "cpu1 1102688 1400 197678 1023578 10940 0 3840 622 0 0",
            "intr 1 2 3");
    assertEquals(Map.of(0, 6_350_000_000L, 1, 6_220_000_000L), StolenTime.fromProcStat(stat));
  }

  @Test
  void whatACpuLostIsTheDifferenceOfTwoReadings() {
    final StolenTime before = new StolenTime(Map.of(0, 100L, 1, 500L), "clocks");
    final StolenTime after = new StolenTime(Map.of(0, 3_100L, 1, 500L, 2, 9L), "clocks");
    assertEquals(Map.of(0, 3_000L, 1, 0L, 2, 0L), after.since(before));
  }

  @Test
  void aMethodAboveItsBoundIsSetBesideWhatItsCpuLost() {
    final List<RunTable.Row> rows =
        List.of(
            row("mission2", "sensors.poll", 0, 1_577_000, 1_150_000, RunTable.Verdict.ABOVE_BOUND),
            row(
                "mission2",
                "weapons.status",
                1,
                3_000_000,
                1_150_000,
                RunTable.Verdict.ABOVE_BOUND),
            row("mission1", "nav.update", 1, 100_000, 1_150_000, RunTable.Verdict.WITHIN),
            // A gate's round trip crosses CPUs: it is set beside what all of them lost.
            row(
                "mission1",
                "planner.sensors",
                -1,
                3_775_700,
                3_763_300,
                RunTable.Verdict.ABOVE_BOUND));
    final String text =
        RunTable.stallText(
            rows, Map.of(0, 3_100_000L, 1, 100_000L), cpu -> "CPU " + (cpu + 4), "clocks");
    assertEquals(
        "run: the machine took 3.1 ms from CPU 4, 100 us from CPU 5 while the nodes ran (by clocks);"
            + " the bounds assume CPUs that are never taken away\n"
            + "run: mission2 sensors.poll 427 us above its bound on CPU 4, which lost 3.1 ms to the"
            + " machine while the nodes ran: a stall of the machine may explain it\n"
            + "run: mission2 weapons.status 1.85 ms above its bound on CPU 5, which lost only 100 us"
            + " to the machine while the nodes ran: the rest is what the bounds do not charge"
            + " (interrupts; without a platform file, the nodes' own triggers, ORB readers and DDS"
            + " threads above it)\n"
            + "run: mission1 planner.sensors 12.4 us above its bound on the run's CPUs, which lost"
            + " 3.2 ms to the machine while the nodes ran: a stall of the machine may explain it\n",
        text);
  }

  @Test
  void aRunThatLostNothingAndFailedNothingSaysNothing() {
    final List<RunTable.Row> rows =
        List.of(row("mission1", "nav.update", 0, 100_000, 1_150_000, RunTable.Verdict.WITHIN));
    assertEquals("", RunTable.stallText(rows, Map.of(0, 0L), cpu -> "CPU " + cpu, "clocks"));
  }

  private static RunTable.Row row(
      String node, String item, int cpu, long max, long bound, RunTable.Verdict verdict) {
    return new RunTable.Row(
        node, item, "spm", "hard", true, cpu, 40, max, 0, bound, 5_000_000, verdict);
  }
}
