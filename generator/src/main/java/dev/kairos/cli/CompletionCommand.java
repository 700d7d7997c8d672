package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.OK;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * `kairos completion bash|zsh`: the shell's completion script for every command and option, made by
 * picocli from the same definitions as `kairos help`.
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description =
        "Prints the completion script of a shell for every kairos command and option: source it,"
            + " e.g. in ~/.bashrc: source <(kairos completion bash); zsh: source <(kairos"
            + " completion zsh).")
final class CompletionCommand implements Callable<Integer> {
  /** The shells a script is made for. */
  enum Shell {
    bash,
    zsh
  }

  @Parameters(paramLabel = "SHELL", description = "bash or zsh")
  Shell shell;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    final String script = AutoComplete.bash("kairos", spec.parent().commandLine());
    final var out = spec.commandLine().getOut();
    if (shell == Shell.zsh) {
      // zsh runs bash completion scripts through its bashcompinit.
      out.println("autoload -U +X compinit && compinit");
      out.println("autoload -U +X bashcompinit && bashcompinit");
    }
    out.print(script);
    out.flush();
    return OK;
  }
}
