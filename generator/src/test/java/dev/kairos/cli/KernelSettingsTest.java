package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kernel settings kairos run checks, read from a made-up /proc and /sys. */
class KernelSettingsTest {
  @TempDir Path root;

  private void write(String path, String text) throws IOException {
    final Path file = root.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  /** An unprivileged process with the default limits and Debian's throttling. */
  private void unprivileged() throws IOException {
    write("proc/self/status", "Name:\tjava\nCapEff:\t0000000000000000\n");
    write(
        "proc/self/limits",
        "Limit                     Soft Limit           Hard Limit           Units     \n"
            + "Max locked memory         8388608              8388608              bytes     \n"
            + "Max realtime priority     0                    0                    \n");
    write("proc/sys/kernel/sched_rt_runtime_us", "950000\n");
    write("proc/sys/kernel/sched_rt_period_us", "1000000\n");
    write("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC\n");
    write("sys/devices/system/cpu/isolated", "\n");
  }

  private List<KernelSettings.Finding> check(double utilization, List<String> deadlineNodes) {
    return new KernelSettings(root)
        .check(new KernelSettings.Needs(List.of(0, 1), utilization, deadlineNodes, true));
  }

  private static KernelSettings.Finding about(List<KernelSettings.Finding> all, String words) {
    return all.stream().filter(f -> f.text().contains(words)).findFirst().orElseThrow();
  }

  @Test
  void withoutRealTimePermissionTheRunIsRefused() throws IOException {
    unprivileged();
    final List<KernelSettings.Finding> findings = check(0.5, List.of());
    final KernelSettings.Finding permission = about(findings, "real-time priorities");
    assertEquals(KernelSettings.Level.ERROR, permission.level());
    assertTrue(permission.line().contains("ulimit -r 83"), permission.line());
    assertEquals(KernelSettings.Level.WARNING, about(findings, "lock all their memory").level());
    assertEquals(KernelSettings.Level.NOTE, about(findings, "throttling").level());
    assertEquals(KernelSettings.Level.NOTE, about(findings, "PREEMPT_DYNAMIC").level());
    assertEquals(KernelSettings.Level.NOTE, about(findings, "not isolated").level());
    assertEquals(KernelSettings.Level.OK, about(findings, "frequency scaling").level());
  }

  @Test
  void capabilitiesOrLimitsPermitWhatTheNodesNeed() throws IOException {
    unprivileged();
    // CAP_IPC_LOCK (14) and CAP_SYS_NICE (23).
    write("proc/self/status", "CapEff:\t0000000000804000\n");
    final List<KernelSettings.Finding> findings = check(0.5, List.of());
    assertEquals(KernelSettings.Level.OK, about(findings, "real-time priorities").level());
    assertEquals(KernelSettings.Level.OK, about(findings, "memory locking").level());
    write("proc/self/status", "CapEff:\t0000000000000000\n");
    write(
        "proc/self/limits",
        "Max locked memory         unlimited            unlimited            bytes     \n"
            + "Max realtime priority     99                   99                   \n");
    final List<KernelSettings.Finding> limits = check(0.5, List.of());
    assertEquals(KernelSettings.Level.OK, about(limits, "real-time priorities").level());
    assertEquals(KernelSettings.Level.OK, about(limits, "memory locking").level());
  }

  @Test
  void throttlingBelowWhatACpuNeedsAndDeadlineAdmissionArePointedOut() throws IOException {
    unprivileged();
    final KernelSettings.Finding throttled = about(check(0.97, List.of()), "throttling");
    assertEquals(KernelSettings.Level.ERROR, throttled.level());
    assertTrue(throttled.text().contains("95.0%") && throttled.text().contains("97.0%"));
    final KernelSettings.Finding admission = about(check(0.5, List.of("m")), "SCHED_DEADLINE");
    assertEquals(KernelSettings.Level.ERROR, admission.level());
    write("proc/sys/kernel/sched_rt_runtime_us", "-1\n");
    assertEquals(KernelSettings.Level.OK, about(check(0.97, List.of()), "throttling").level());
    assertEquals(
        KernelSettings.Level.OK, about(check(0.5, List.of("m")), "SCHED_DEADLINE").level());
  }

  @Test
  void aGovernorOtherThanPerformanceAndIsolatedCpusAreSaid() throws IOException {
    unprivileged();
    write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    write("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    write("sys/devices/system/cpu/isolated", "0-1\n");
    final List<KernelSettings.Finding> findings = check(0.5, List.of());
    final KernelSettings.Finding governor = about(findings, "governor");
    assertEquals(KernelSettings.Level.WARNING, governor.level());
    assertTrue(governor.text().startsWith("CPU 1 (powersave)"), governor.text());
    assertEquals(KernelSettings.Level.OK, about(findings, "isolated").level());
  }
}
