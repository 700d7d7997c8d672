"""The tutorials (docs/tutorial.md, docs/timing-tutorial.md), run as a new user would follow them: every file it shows is written, every edit
applied and every command run, in order, in an empty directory, with the installed `kairos` on the
PATH; the output each command prints must match what the tutorial shows.

The tutorial's fences say what they are:
- ```<language> file=PATH``` — the content of PATH (relative to the tutorial's directory);
- ```diff file=PATH``` — an edit of PATH: the `-` lines, in order, become the `+` lines;
- ```console``` or ```console exit=N``` — commands after `$ `, then the output they print. A line
  `...` stands for any lines; within a line, `...` stands for any text (so a line ending in ` ...`
  is any line that begins like it, and `misses=...` is a count the machine decides); every line
  must appear, in order. The block's last command must exit with N (default 0) and
  every command before it with 0.
"""

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT, machine_unfit_for_ideal_bounds

TUTORIALS = [ROOT / "docs" / "tutorial.md", ROOT / "docs" / "timing-tutorial.md"]
PREFIX_BIN = ROOT / "build" / "prefix" / "bin"
STEP_TIMEOUT_S = 600
FENCE = re.compile(r"^```(\S*)(.*)$")


@dataclass
class Step:
    kind: str  # "file", "diff" or "console"
    line: int  # the fence's line in the tutorial, for messages
    body: list[str]
    path: str = ""
    exit_code: int = 0


def tutorial_steps(tutorial: Path) -> list[Step]:
    steps, lines, number = [], tutorial.read_text().splitlines(), 0
    while number < len(lines):
        fence = FENCE.match(lines[number])
        number += 1
        if not fence or not fence.group(1):
            continue
        language, options = fence.group(1), dict(
            option.split("=", 1) for option in fence.group(2).split() if "=" in option)
        body = []
        while not lines[number].startswith("```"):
            body.append(lines[number])
            number += 1
        number += 1
        if "file" in options:
            kind = "diff" if language == "diff" else "file"
            steps.append(Step(kind, number, body, path=options["file"]))
        elif language == "console":
            steps.append(Step("console", number, body, exit_code=int(options.get("exit", "0"))))
    return steps


def apply_diff(path: Path, step: Step):
    removed = [line[1:] for line in step.body if line.startswith("-")]
    added = [line[1:] for line in step.body if line.startswith("+")]
    text = path.read_text()
    old, new = "\n".join(removed) + "\n", "\n".join(added) + "\n"
    assert text.count(old) == 1, f"tutorial line {step.line}: the edit's old lines are not in {path.name} once"
    path.write_text(text.replace(old, new))


def commands_and_output(step: Step) -> tuple[list[str], list[str]]:
    commands, expected = [], []
    for line in step.body:
        if line.startswith("$ "):
            commands.append(line[2:])
        else:
            expected.append(line)
    return commands, expected


def line_pattern(want: str) -> re.Pattern:
    """What an expected line matches: its text, where each `...` is any text."""
    want = want.rstrip()
    if want.endswith(" ..."):
        want = want[:-4] + "..."
    return re.compile(".*".join(re.escape(part) for part in want.split("...")) + r"\s*")


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the actual lines show the expected ones in order (see the module's docstring)."""
    position, skipping = 0, False
    for want in expected:
        if want == "...":
            skipping = True
            continue
        fits = line_pattern(want).fullmatch
        while position < len(actual) and not fits(actual[position]):
            if not skipping:
                return False
            position += 1
        if position == len(actual):
            return False
        position += 1
        skipping = False
    return skipping or position == len(actual)


TABLE_ROW = re.compile(r"^(\S+)\s+(\S+)\s+(spm|svm|gate|chan)\s+(hard|soft)\s+(\S+)\s+(\d+)\s+(\S+ \S+)\s+"
                       r"(\S+ \S+)\s+\S+ \S+\s+(ABOVE BOUND|MISSED.*)$")
# A row the tutorial shows: (node, method) and its count.
SHOWN_ROW = re.compile(r"^(\S+)\s+(\S+)\s+(?:spm|svm|gate|chan)\s+(?:hard|soft)\s+\S+\s+(\d+) ")
STALL = re.compile(r"^run: (\S+) (\S+) (.+) on (?:CPU (\d+)|the run's CPUs), which lost (?:only )?"
                   r"(\S+ \S+|no time) to the machine while the nodes ran: ")


GATE_ABOVE = re.compile(r"^(\S+): kairos: warning: \S+: gate (\S+): an answered call took .* beyond "
                        r"the analysed bound ")


def as_if_no_stall(printed: list[str], where: str, expected: list[str]) -> list[str]:
    """A `kairos run` that failed only in methods whose delay the run explains (time the machine
    took from their CPU, or what the ideal-processor bounds do not charge: the lines after the
    table say which), as it would have printed on a machine that takes nothing away: each failing
    row must be a method with such a line on its CPU, or a gate's answered round trip with one on
    the run's CPUs. An SpM whose start window such a stall made it miss was not run: its row
    counts up to three runs fewer than the tutorial shows."""
    stalls = {(m[1], m[2]): m for m in map(STALL.match, printed) if m}
    shown_counts = {(m[1], m[2]): m[3] for m in map(SHOWN_ROW.match, expected) if m}
    shown = []
    for line in printed:
        # A node's warning of a round trip above its bound, for a gate the lines below explain.
        if (warning := GATE_ABOVE.match(line)) and (warning[1], warning[2]) in stalls:
            continue
        row = TABLE_ROW.match(line)
        if row:
            stall = stalls.get((row[1], row[2]))
            on_its_cpus = stall and (stall[4] == row[5] if row[3] != "gate"
                                     else stall[4] is None and row[9] == "ABOVE BOUND")
            assert row[3] != "chan" and on_its_cpus, f"{where}: not a stall:\n{line}"
            line = line[: row.start(9)] + "within"
            want = shown_counts.get((row[1], row[2]))
            if row[3] == "spm" and want and 0 < int(want) - int(row[6]) <= 3:
                line = line[: row.end(6) - len(want)] + want + line[row.end(6):]
        elif re.fullmatch(r"run: \d+ hard items? missed or measured above (its|their) bound", line):
            line = "run: every hard method and gate measured within its bound"
        shown.append(line)
    return shown


def run_step(commands: list[str], cwd: Path, env: dict,
             as_user=()) -> subprocess.CompletedProcess:
    """A console block's commands in one shell: every one but the last must succeed. `as_user`
    is the command that runs the shell as another user (empty: as this process), or a function
    of `cwd` that gives it (a command that enters another root, and `cwd` there)."""
    script = "\n".join(["set -e"] + commands[:-1] + ["set +e", commands[-1], "status=$?", "wait",
                                                     "exit $status"])
    prefix = as_user(cwd) if callable(as_user) else as_user
    return subprocess.run([*prefix, "bash", "-c", script], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=STEP_TIMEOUT_S)


LONE_RUN = re.compile(r"^\S+: (\S+): 1 run of \d+ above its WCET: on a virtual machine ")
EXCEEDED = re.compile(r"^\S+: (\S+) on node \S+ ran up to .*, beyond its WCET of ")


def only_lone_runs_above_their_wcet(printed: list[str]) -> bool:
    """Whether every method calibrate found above its WCET went there in one run of many, the case
    it calls out as possibly the machine's."""
    exceeded = {m[1] for m in map(EXCEEDED.match, printed) if m}
    lone = {m[1] for m in map(LONE_RUN.match, printed) if m}
    return bool(exceeded) and exceeded == lone


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=[t.name for t in TUTORIALS])
def test_every_command_of_the_tutorial_runs_as_shown(tutorial, tmp_path):
    assert (PREFIX_BIN / "kairos").is_file(), "make cpp installs kairos into build/prefix"
    env = dict(os.environ, PATH=f"{PREFIX_BIN}{os.pathsep}{os.environ['PATH']}")
    env.pop("CMAKE_PREFIX_PATH", None)
    follow(tutorial, tmp_path, env)


def follow(tutorial: Path, cwd: Path, env: dict, as_user=(), hand_over=lambda path: None):
    """Every step of `tutorial` in `cwd`, each command with `env` (run through `as_user`), its
    output held to what the tutorial shows. `hand_over(cwd)` runs after each file the test writes,
    so that the user who runs the commands owns it."""
    steps = tutorial_steps(tutorial)
    assert [s.kind for s in steps].count("console") >= 6, "the tutorial lost its commands"
    previous_run = None
    for step in steps:
        if step.kind == "file":
            target = cwd / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(step.body) + "\n")
            hand_over(cwd)
            continue
        if step.kind == "diff":
            apply_diff(cwd / step.path, step)
            hand_over(cwd)
            continue
        commands, expected = commands_and_output(step)
        # `mkdir x && cd x` moves the rest of the tutorial into x, as it would move the reader.
        if len(commands) == 1 and (move := re.fullmatch(r"mkdir (\S+) && cd \1", commands[0])):
            cwd = cwd / move.group(1)
            cwd.mkdir()
            hand_over(cwd)
            continue
        where = f"{tutorial.name} line {step.line}: {commands}"
        result = run_step(commands, cwd, env, as_user)
        printed = result.stdout.splitlines()
        if (commands[-1].startswith("kairos calibrate ") and step.exit_code == 0
                and result.returncode == 1 and only_lone_runs_above_their_wcet(printed)):
            # The node's run before this step measured one activation above its WCET among
            # hundreds, and calibrate says the machine may have charged it (a thread's CPU clock
            # counts time the host takes while the body runs). Measure once more, as calibrate
            # advises a user to, and hold the second run to the tutorial.
            assert previous_run is not None, where
            rerun = run_step(previous_run, cwd, env, as_user)
            assert rerun.returncode == 0, f"{where}: the run again:\n{rerun.stdout}"
            result = run_step(commands, cwd, env, as_user)
            printed = result.stdout.splitlines()
        if any("--timings" in command for command in commands):
            previous_run = commands
        if commands[-1].startswith("kairos run ") and result.returncode == 1 == step.exit_code + 1:
            if unfit := machine_unfit_for_ideal_bounds():
                # The run is not held to ideal-processor bounds on a machine that cannot keep
                # them: it ran to its end and printed its table; the steps after it read its logs.
                print(f"{where}: not held to its bounds: {unfit}")
                assert any(line.startswith("run directory: ") for line in printed), printed
                continue
            printed = as_if_no_stall(printed, where, expected)
            result.returncode = 0
        assert result.returncode == step.exit_code, f"{where} exited {result.returncode}:\n" + "\n".join(printed)
        assert matches(expected, printed), f"{where} printed:\n" + "\n".join(printed)
