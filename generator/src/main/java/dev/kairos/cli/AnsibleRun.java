package dev.kairos.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The playbooks of a deployment run with ansible-playbook, one after another, with the user's
 * inventory and the bundle's: each run's output appended to DIR/ansible.log, a line each here, and
 * on a failure the lines that say what failed. SIGINT and SIGTERM to kairos end the waiting for a
 * run until stopped ({@link #awaitStop}); a signal while a playbook runs reaches ansible-playbook
 * too where it came from the terminal, and kairos then stops the nodes (stop.yml).
 */
final class AnsibleRun implements AutoCloseable {
  /** The most lines of a failed playbook's output shown here (the log keeps them all). */
  private static final int FAILURE_LINES = 40;

  private final Path directory;
  private final Path inventory;
  private final PrintWriter out;
  private final PrintWriter err;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final StopSignals signals;

  AnsibleRun(Path directory, Path inventory, PrintWriter out, PrintWriter err) {
    this.directory = directory;
    this.inventory = inventory.toAbsolutePath();
    this.out = out;
    this.err = err;
    this.signals =
        new StopSignals(
            name -> {
              if (stop.getCount() > 0) {
                err.println("kairos: SIG" + name + ": stopping the nodes");
                err.flush();
              }
              stop.countDown();
              // A playbook that installs, starts or runs the nodes ends here; stop.yml follows
              // (never a stop.yml itself: it is what stopping runs).
              final Process playing = current;
              if (playing != null && !playingStop) {
                end(playing);
              }
            });
  }

  /**
   * SIGTERM to a playbook and every process it started (its workers, their SSH clients), so that
   * none is left to start a node after stop.yml has stopped them.
   */
  private static void end(Process playbook) {
    playbook.descendants().forEach(ProcessHandle::destroy);
    playbook.destroy();
  }

  /** The playbook running now, which a stop ends (unless it is stop.yml). */
  private volatile Process current;

  private volatile boolean playingStop;

  boolean stopAsked() {
    return stop.getCount() == 0;
  }

  /** Waits for SIGINT or SIGTERM. */
  void awaitStop() {
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs one playbook of the bundle; false after saying what failed. */
  boolean play(String playbook, String what) throws IOException {
    out.println(
        "ansible: " + playbook + ": " + what + " (log: " + RunCommand.shownPath(log()) + ")");
    out.flush();
    final long start = System.nanoTime();
    final List<String> command =
        List.of(
            "ansible-playbook",
            "-i",
            inventory.toString(),
            "-i",
            directory.resolve("inventory.yml").toString(),
            directory.resolve(playbook).toString());
    final ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
    builder.environment().put("ANSIBLE_CONFIG", directory.resolve("ansible.cfg").toString());
    builder.environment().put("ANSIBLE_NOCOLOR", "1");
    // Its SSH connections are this deployment's own: a master connection another run left to a
    // host of the same address is never reused, and close() ends them.
    builder.environment().put("ANSIBLE_SSH_CONTROL_PATH_DIR", controlDirectory().toString());
    builder.environment().put("ANSIBLE_FORCE_COLOR", "0");
    builder.redirectErrorStream(true);
    // Appended as it comes, so that the log shows how far a playbook got while it runs.
    final long logStart = Files.exists(log()) ? Files.size(log()) : 0;
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
    final int exit;
    try {
      final Process process;
      try {
        process = builder.start();
      } catch (IOException notInstalled) {
        err.println(
            "kairos: error: ansible-playbook is not installed: install ansible-core (python3 -m"
                + " pip install ansible-core)");
        return false;
      }
      process.getOutputStream().close();
      playingStop = playbook.equals("stop.yml");
      current = process;
      if (stopAsked() && !playingStop) {
        end(process); // the signal came while it started
      }
      exit = process.waitFor();
      current = null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    final long seconds = (System.nanoTime() - start) / 1_000_000_000L;
    if (exit != 0 && stopAsked() && !playbook.equals("stop.yml")) {
      out.println("ansible: " + playbook + ": ended early (asked to stop) after " + seconds + " s");
      out.flush();
      return false;
    }
    if (exit == 0) {
      out.println("ansible: " + playbook + ": done in " + seconds + " s");
      out.flush();
      return true;
    }
    err.println("kairos: error: ansible-playbook " + playbook + " failed (exit " + exit + "):");
    final byte[] all = Files.readAllBytes(log());
    final String written =
        new String(
            all,
            (int) Math.min(logStart, all.length),
            (int) Math.max(0, all.length - logStart),
            StandardCharsets.UTF_8);
    failureLines(written.lines().toList()).forEach(l -> err.println("  " + l));
    err.flush();
    return false;
  }

  /** What says why a playbook failed: its failed tasks' lines, and its recap. */
  static List<String> failureLines(List<String> lines) {
    final List<String> shown = new ArrayList<>();
    boolean recap = false;
    String task = "";
    for (String line : lines) {
      if (line.startsWith("TASK [")) {
        task = line.replaceAll("\\s*\\*+$", "");
      }
      recap |= line.startsWith("PLAY RECAP");
      final boolean failed =
          line.startsWith("fatal:")
              || line.startsWith("failed:")
              || line.startsWith("ERROR!")
              || line.startsWith("[ERROR]");
      if (failed && !task.isEmpty() && !shown.contains(task)) {
        shown.add(task);
      }
      if (failed || (recap && !line.isBlank())) {
        shown.add(line.length() > 400 ? line.substring(0, 400) + " ..." : line);
      }
    }
    if (shown.isEmpty()) {
      shown.addAll(lines.subList(Math.max(0, lines.size() - FAILURE_LINES), lines.size()));
    }
    return shown.size() > FAILURE_LINES ? shown.subList(0, FAILURE_LINES) : shown;
  }

  private Path log() {
    return directory.resolve("ansible.log");
  }

  /**
   * Where ssh keeps this run's master connections: a directory of its own under the system's
   * temporary directory (a socket's path must fit in 108 bytes, which a deployment's directory may
   * not leave room for), made on first use and removed by close().
   */
  private Path controlDirectory() {
    if (controlDirectory == null) {
      try {
        controlDirectory =
            Files.createTempDirectory(
                "kairos-ssh-",
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return controlDirectory;
  }

  private Path controlDirectory;

  /** Ends the SSH master connections the playbooks left (ssh -O exit on each socket). */
  private void endConnections() {
    if (controlDirectory == null) {
      return;
    }
    try (var sockets = Files.list(controlDirectory())) {
      for (Path socket : sockets.toList()) {
        try {
          final Process exit =
              new ProcessBuilder("ssh", "-o", "ControlPath=" + socket, "-O", "exit", "kairos")
                  .redirectErrorStream(true)
                  .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                  .start();
          if (!exit.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            exit.destroyForcibly();
          }
        } catch (IOException e) {
          return; // no ssh here: the masters end on their own (ControlPersist)
        }
      }
    } catch (IOException e) {
      // Nothing to end.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (var left = Files.list(controlDirectory)) {
      for (Path socket : left.toList()) {
        Files.deleteIfExists(socket);
      }
      Files.deleteIfExists(controlDirectory);
    } catch (IOException e) {
      // A socket ssh still holds goes with its master.
    }
  }

  @Override
  public void close() {
    endConnections();
    signals.close();
  }
}
