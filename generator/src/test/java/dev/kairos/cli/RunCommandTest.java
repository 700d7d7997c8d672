package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What `kairos run` refuses before it builds or starts anything: bad arguments, a system it cannot
 * find, and a host with too few CPUs for the cores kairos check assumed, or on which the cores that
 * share a CPU miss a deadline. Runs that start nodes are in the end-to-end tests.
 */
class RunCommandTest {
  @TempDir Path temp;

  /** Two single-core Linux nodes, each 60% busy at one band: fine alone, not on one CPU. */
  private Path twoBusyNodes() throws IOException {
    final String spm =
        " for t = from 0 s to forever every 10 ms start-during (t, t + 10 ms) finish-by t + 10 ms"
            + " wcet 6 ms;";
    final Path model = temp.resolve("busy.tmo");
    Files.writeString(
        model,
        "tmo Worker { spm run"
            + spm
            + " }\n"
            + "hardware One { cores 1; }\n"
            + "node a { hardware One os linux scheduling rms deploy Worker as w }\n"
            + "tmo Other { spm run"
            + spm
            + " }\n"
            + "node b { hardware One os linux scheduling rms deploy Other as o }\n"
            + "system Busy { nodes a, b; }\n");
    return model;
  }

  @Test
  void aHostWithFewerCpusThanCoresIsRefusedWithoutShareCpus() throws IOException {
    final CliRun run =
        CliRun.kairos(
            "run",
            "--host-cpus",
            "0",
            "-o",
            temp.resolve("run").toString(),
            twoBusyNodes().toString());
    assertEquals(1, run.exit(), run.all());
    assertTrue(
        run.err().contains("the nodes on this host have 2 cores and it gives them 1 CPU (0)"),
        run.err());
    assertTrue(run.err().contains("--share-cpus"), run.err());
    assertFalse(Files.exists(temp.resolve("run")), "nothing is built when nothing runs");
  }

  @Test
  void sharedCpusThatMissADeadlineAsDeployedAreRefused() throws IOException {
    final CliRun run =
        CliRun.kairos(
            "run",
            "--share-cpus",
            "--host-cpus",
            "3",
            "-o",
            temp.resolve("run").toString(),
            twoBusyNodes().toString());
    assertEquals(1, run.exit(), run.all());
    assertTrue(
        run.out().contains("deploy: CPU 3 runs a core 0, b core 0 (utilization 120.0%)"),
        run.out());
    assertTrue(run.out().contains("MISSES as deployed"), run.out());
    assertTrue(run.err().contains("not schedulable as deployed on 1 CPU"), run.err());
    assertFalse(Files.exists(temp.resolve("run")));
  }

  @Test
  void aDryRunAnalysesTheDemoAsDeployedOnTwoCpusAndOnFourAndStartsNothing() {
    final String demo =
        Path.of("")
            .toAbsolutePath()
            .getParent()
            .resolve("examples/avionics/avionics.tmo")
            .toString();
    final Path out = temp.resolve("run");
    final CliRun shared =
        CliRun.kairos(
            "run", demo, "--share-cpus", "--host-cpus", "0-1", "--dry-run", "-o", out.toString());
    // Each CPU runs a core of each node; every deadline holds with their bands in one order.
    assertTrue(
        shared.out().contains("deploy: CPU 0 runs mission1 core 0, mission2 core "), shared.out());
    assertTrue(
        shared.out().contains("deploy: CPU 1 runs mission1 core 1, mission2 core "), shared.out());
    assertTrue(
        shared.out().contains("deploy: cores share CPUs; every deadline holds as deployed"),
        shared.out());
    assertTrue(shared.out().contains("as deployed (63.5 ms alone)"), shared.out());
    assertTrue(shared.out().contains("kernel: "), shared.out());
    assertTrue(shared.out().contains("dry run: nothing built or started") || shared.exit() == 1);
    assertFalse(Files.exists(out), "a dry run builds nothing");

    final CliRun own =
        CliRun.kairos("run", demo, "--host-cpus", "0-3", "--dry-run", "-o", out.toString());
    assertTrue(
        own.out().contains("deploy: every core on a CPU of its own, as kairos check analysed it"),
        own.out());
    assertFalse(own.out().contains("as deployed ("), own.out());
    assertFalse(Files.exists(out));
  }

  @Test
  void durationsAreMoreThanNothingAndAtMostAYear() throws IOException {
    final String model = twoBusyNodes().toString();
    for (String bad : List.of("0s", "400d", "999999999999min", "367000000s")) {
      final CliRun run = CliRun.kairos("run", "--duration", bad, "--dry-run", model);
      assertEquals(2, run.exit(), bad + ": " + run.all());
      assertTrue(run.err().contains("--duration " + bad + ": expected a time"), run.err());
    }
  }

  @Test
  void badArgumentsAreUsageErrors() throws IOException {
    final String model = twoBusyNodes().toString();
    final CliRun duration = CliRun.kairos("run", "--duration", "2 s", model);
    assertEquals(2, duration.exit(), duration.all());
    assertTrue(
        duration.err().contains("--duration 2 s: expected a time such as 2s"), duration.err());
    final CliRun cpus = CliRun.kairos("run", "--host-cpus", "3-1", model);
    assertEquals(2, cpus.exit(), cpus.all());
    assertTrue(cpus.err().contains("the range 3-1 runs backwards"), cpus.err());
    final CliRun system = CliRun.kairos("run", "--system", "Nope", model);
    assertEquals(2, system.exit(), system.all());
    assertTrue(
        system.err().contains("no such system in the model (its systems: Busy)"), system.err());
    final CliRun nodes = CliRun.kairos("run", "--nodes", "a,c", model);
    assertEquals(2, nodes.exit(), nodes.all());
    assertTrue(
        nodes.err().contains("c is not a node of the system (its nodes: a, b)"), nodes.err());
  }

  @Test
  void hostCpuListsReadAsLinuxWritesThem() {
    assertEquals(List.of(0, 1, 2, 3, 6), HostCpus.parse("0-3,6"));
    assertEquals(List.of(2, 3), HostCpus.parse("3,2,3"));
    assertEquals("0-3,6", HostCpus.describe(List.of(0, 1, 2, 3, 6)));
    assertThrows(IllegalArgumentException.class, () -> HostCpus.parse(""));
    assertThrows(IllegalArgumentException.class, () -> HostCpus.parse("1-"));
    assertThrows(IllegalArgumentException.class, () -> HostCpus.parse("x"));
    assertThrows(IllegalArgumentException.class, () -> HostCpus.parse("99999"));
    assertFalse(HostCpus.available().isEmpty());
  }
}
