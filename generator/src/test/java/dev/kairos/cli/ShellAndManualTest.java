package dev.kairos.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** `kairos completion` and `kairos manual`: made from the commands' own definitions. */
class ShellAndManualTest {
  private static final List<String> COMMANDS =
      new CommandLine(new KairosCli())
          .getSubcommands().keySet().stream().filter(name -> !name.equals("help")).toList();

  @Test
  void theManualPageHasEveryCommandAndEveryOptionOfIt() {
    final CliRun run = CliRun.kairos("manual");
    assertEquals(0, run.exit(), run.all());
    final String page = run.out();
    assertTrue(page.startsWith(".TH KAIROS 1 "), page);
    assertTrue(COMMANDS.containsAll(List.of("check", "run", "deploy", "completion", "manual")));
    final CommandLine root = new CommandLine(new KairosCli());
    for (String command : COMMANDS) {
      assertTrue(page.contains(".SS \"kairos " + command + "\"\n"), command);
      for (CommandLine.Model.OptionSpec option :
          root.getSubcommands().get(command).getCommandSpec().options()) {
        assertTrue(
            page.contains("\\fB" + ManualCommand.text(option.longestName()) + "\\fR"),
            command + " " + option.longestName());
      }
    }
    // No line of text is read as a roff request, and nothing is left unescaped.
    for (String line : page.lines().toList()) {
      if (!line.startsWith(".")) {
        assertFalse(line.startsWith("'"), line);
        assertFalse(line.matches("(.*[^\\\\])?-.*"), line);
      }
    }
  }

  @Test
  void completionIsMadeForBashAndZshAndRefusedForOtherShells() {
    final CliRun bash = CliRun.kairos("completion", "bash");
    assertEquals(0, bash.exit(), bash.all());
    assertTrue(bash.out().contains("complete -F _complete_kairos"), bash.out());
    for (String command : COMMANDS) {
      assertTrue(bash.out().contains(command), command);
    }
    final CliRun zsh = CliRun.kairos("completion", "zsh");
    assertEquals(0, zsh.exit(), zsh.all());
    assertTrue(zsh.out().startsWith("autoload -U +X compinit && compinit\n"), zsh.out());
    assertTrue(zsh.out().endsWith(bash.out()));
    final CliRun fish = CliRun.kairos("completion", "fish");
    assertEquals(KairosCli.USAGE, fish.exit(), fish.all());
    assertTrue(fish.err().contains("fish"), fish.err());
  }

  @Test
  void theVersionSaysTheReleaseTheCommitAndTheJava() {
    final CliRun run = CliRun.kairos("--version");
    assertEquals(0, run.exit(), run.all());
    final List<String> lines = run.out().lines().toList();
    assertTrue(lines.get(0).matches("kairos \\S+ \\(commit \\S+\\)"), lines.get(0));
    assertTrue(lines.get(1).startsWith("Java " + System.getProperty("java.version") + " in "));
  }
}
