package dev.kairos.cli;

import static dev.kairos.cli.KairosCli.OK;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Spec;

/**
 * `kairos manual`: the kairos(1) manual page in roff, from the same picocli definitions as `kairos
 * help` (every command, its synopsis, description, parameters and options), so that the page and
 * the help cannot differ. `make dist` installs it as share/man/man1/kairos.1.
 */
@Command(
    name = "manual",
    mixinStandardHelpOptions = true,
    description =
        "Prints the kairos(1) manual page (roff) of every command and option: man <(kairos"
            + " manual), or installed by a release as share/man/man1/kairos.1.")
final class ManualCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    final var out = spec.commandLine().getOut();
    out.print(page(spec.parent()));
    out.flush();
    return OK;
  }

  /** The manual page of {@code root} and its subcommands, in roff (man(7) macros). */
  static String page(CommandSpec root) {
    final StringBuilder page = new StringBuilder();
    page.append(".TH KAIROS 1 \"\" \"kairos ")
        .append(KairosCli.version())
        .append("\" \"Kairos Manual\"\n");
    page.append(".SH NAME\n").append("kairos \\- ").append(text(description(root))).append('\n');
    page.append(".SH SYNOPSIS\n")
        .append(".B kairos\n")
        .append("\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n");
    page.append(".SH DESCRIPTION\n")
        .append(
            paragraph(
                "Each command below is also described by kairos COMMAND --help;"
                    + " the documentation in share/doc/kairos/docs (docs/cli.md in the source) says more."));
    page.append(".SH COMMANDS\n");
    for (CommandLine sub : root.subcommands().values()) {
      final CommandSpec command = sub.getCommandSpec();
      if (command.usageMessage().hidden()
          || command.userObject() instanceof CommandLine.HelpCommand) {
        continue;
      }
      page.append(".SS \"kairos ").append(command.name()).append("\"\n");
      page.append(".nf\n");
      for (String line : synopsis(command)) {
        page.append(text(line)).append('\n');
      }
      page.append(".fi\n");
      page.append(paragraph(description(command)));
      for (PositionalParamSpec parameter : command.positionalParameters()) {
        if (parameter.hidden()) {
          continue;
        }
        page.append(".TP\n\\fI").append(text(parameter.paramLabel())).append("\\fR\n");
        page.append(text(String.join(" ", parameter.description()))).append('\n');
      }
      for (OptionSpec option : command.options()) {
        if (option.hidden()) {
          continue;
        }
        page.append(".TP\n").append(optionNames(option)).append('\n');
        page.append(text(String.join(" ", option.description()))).append('\n');
      }
    }
    page.append(".SH EXIT STATUS\n");
    item(page, "0", "success: the models are valid and, where analysed, schedulable");
    item(
        page,
        "1",
        "errors in the models, a system that is not schedulable, or a run whose bounds did not"
            + " hold");
    item(page, "2", "wrong arguments, or a file that cannot be read or written");
    page.append(".SH ENVIRONMENT\n");
    item(
        page,
        "KAIROS_CLANG_FORMAT",
        "the clang-format generate lays the C++ out with (default: the pinned one the release"
            + " carries)");
    item(page, "KAIROS_KEYS", "the directory of a node's keys, where no --keys gives it");
    item(page, "NO_COLOR", "no colour in diagnostics on a terminal (--color=auto)");
    return page.toString();
  }

  private static String description(CommandSpec command) {
    return String.join(" ", command.usageMessage().description());
  }

  /** The synopsis as `kairos COMMAND --help` wraps it, its continuation lines indented. */
  private static List<String> synopsis(CommandSpec command) {
    final CommandLine.Help help =
        new CommandLine.Help(
            command, new CommandLine.Help.ColorScheme.Builder(CommandLine.Help.Ansi.OFF).build());
    final List<String> lines = new ArrayList<>();
    for (String line : help.synopsis(0).strip().split("\\R")) {
      lines.add(lines.isEmpty() ? line.strip() : "    " + line.strip());
    }
    return lines;
  }

  private static String optionNames(OptionSpec option) {
    final String names =
        Arrays.stream(option.names())
            .map(name -> "\\fB" + text(name) + "\\fR")
            .collect(java.util.stream.Collectors.joining(", "));
    return option.arity().max() > 0 ? names + "=\\fI" + text(option.paramLabel()) + "\\fR" : names;
  }

  private static void item(StringBuilder page, String tag, String words) {
    page.append(".TP\n").append(text(tag)).append('\n').append(text(words)).append('\n');
  }

  private static String paragraph(String words) {
    return ".PP\n" + text(words) + "\n";
  }

  /** {@code words} as roff text: backslashes and hyphens escaped, no line read as a request. */
  static String text(String words) {
    final String escaped =
        words
            .replace("\\", "\\e")
            .replace("-", "\\-")
            .replace("%n", " ")
            .replaceAll("(?<=\\S)\\s+", " ");
    return escaped.startsWith(".") || escaped.startsWith("'") ? "\\&" + escaped : escaped;
  }
}
