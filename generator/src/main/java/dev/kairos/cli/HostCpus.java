package dev.kairos.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** The CPUs of this host that nodes may use, as Linux lists them (`0-3,6`). */
final class HostCpus {
  private HostCpus() {}

  /** Linux CPU numbers stop here (the kernel's fixed CPU set size). */
  private static final int MAX_CPU = 1023;

  /**
   * The CPUs this process may use: its affinity as the kernel reports it ({@code Cpus_allowed_list}
   * of /proc/self/status), else as many CPUs as the JVM sees, from 0.
   */
  static List<Integer> available() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Cpus_allowed_list:")) {
          return parse(line.substring(line.indexOf(':') + 1).strip());
        }
      }
    } catch (IOException | IllegalArgumentException notLinux) {
      // fall through: no affinity to read
    }
    final List<Integer> cpus = new ArrayList<>();
    for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++) {
      cpus.add(cpu);
    }
    return cpus;
  }

  /** A CPU list such as {@code 0-3,6}, in ascending order without repeats. */
  static List<Integer> parse(String text) {
    final TreeSet<Integer> cpus = new TreeSet<>();
    for (String part : text.split(",", -1)) {
      final String[] range = part.strip().split("-", -1);
      if (range.length > 2 || range[0].isEmpty()) {
        throw new IllegalArgumentException("expected CPU numbers and ranges, such as 0-3,6");
      }
      final int first = number(range[0]);
      final int last = range.length == 2 ? number(range[1]) : first;
      if (last < first) {
        throw new IllegalArgumentException("the range " + part.strip() + " runs backwards");
      }
      for (int cpu = first; cpu <= last; cpu++) {
        cpus.add(cpu);
      }
    }
    return List.copyOf(cpus);
  }

  private static int number(String text) {
    if (!text.matches("[0-9]{1,4}") || Integer.parseInt(text) > MAX_CPU) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a CPU number (0 to " + MAX_CPU + ")");
    }
    return Integer.parseInt(text);
  }

  /** The list as Linux writes it: ascending ranges, {@code 0-3,6}. */
  static String describe(List<Integer> cpus) {
    final StringBuilder out = new StringBuilder();
    for (int i = 0; i < cpus.size(); ) {
      int j = i;
      while (j + 1 < cpus.size() && cpus.get(j + 1) == cpus.get(j) + 1) {
        j++;
      }
      out.append(out.length() == 0 ? "" : ",").append(cpus.get(i));
      if (j > i) {
        out.append('-').append(cpus.get(j));
      }
      i = j + 1;
    }
    return out.toString();
  }
}
