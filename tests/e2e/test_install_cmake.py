"""Kairos inside someone else's build: an installed prefix, and CMake's kairos_generate().

Kairos is installed into a temporary prefix (`cmake --install` of the worktree's build/cpp, as
`make install PREFIX=...` does after building). examples/cmake-project is copied outside the
repository and built with Ninja against that prefix alone, with its bin/ first on the PATH; its
node runs briefly. Then the model and the project's files are edited, and the build log shows
which steps ran again: exactly those that depend on what changed. A node renamed in the model
leaves no files behind and keeps the hand-written bodies; a method added to the model is named,
with its model line, beside the starter file that now lacks it.
"""

import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, parse_summary, run

EXAMPLE = ROOT / "examples" / "cmake-project"
GENERATE = "Generating thermostat from thermostat.tmo with kairos"
COMPILE_MAIN = "Building CXX object CMakeFiles/thermostat_generated.dir/kairos/thermostat/{node}.main.cpp.o"
# The node's program (<node>.node.cpp) includes its schedule tables; its main only runs it.
COMPILE_PROGRAM = "Building CXX object CMakeFiles/thermostat_generated.dir/kairos/thermostat/{node}.node.cpp.o"
COMPILE_BODY = "Building CXX object CMakeFiles/thermostat.dir/src/plant/Regulator.cpp.o"
LINK = "Linking CXX executable thermostat"
RECONFIGURE = "Re-running CMake..."
# Every step Ninja runs is printed with this prefix, so the log says exactly what ran.
STEP = "[step] "


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """Kairos installed into a fresh prefix: runtime, CMake package and the kairos command."""
    build = ROOT / "build" / "cpp"
    if not (build / "cmake_install.cmake").is_file():
        pytest.fail("the runtime is not built in build/cpp: run `make cpp` first")
    installed = tmp_path_factory.mktemp("installed") / "prefix"
    run(["cmake", "--install", build, "--prefix", installed])
    return installed


@pytest.fixture(scope="module")
def environment(prefix):
    """The PATH of a user of the installation: its bin/ first; nothing points into the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAIROS_")}
    env["PATH"] = f"{prefix / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    env["NINJA_STATUS"] = STEP
    return env


@pytest.fixture(scope="module")
def project(prefix, environment, tmp_path_factory):
    """examples/cmake-project, copied outside the repository, configured and built once."""
    project = tmp_path_factory.mktemp("elsewhere") / "thermostat"
    assert ROOT not in project.parents
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("build"))
    run(
        ["cmake", "-S", project, "-B", project / "build", "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={prefix}"],
        cwd=project, env=environment,
    )
    steps = build(project, environment)
    assert LINK in steps, steps
    return project


def build(project: Path, environment):
    """Builds the project: the descriptions of the steps Ninja ran, in order."""
    steps, _ = attempt_build(project, environment, check=True)
    return steps


def attempt_build(project: Path, environment, check=False):
    """Builds the project, whatever the outcome: the steps that ran, and the finished process."""
    result = run(["ninja", "-C", project / "build"], cwd=project, env=environment, check=check)
    steps = [line[len(STEP):] for line in result.stdout.splitlines() if line.startswith(STEP)]
    return steps, result


def edit(path: Path, old: str, new: str):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_installation_holds_the_command_and_the_package(prefix, environment):
    for path in [
        "bin/kairos",
        "share/kairos/kairos.jar",
        "lib/cmake/Kairos/KairosConfig.cmake",
        "lib/cmake/Kairos/KairosGenerate.cmake",
        "include/kairos/engine.hpp",
    ]:
        assert (prefix / path).is_file(), path
    formatters = list((prefix / "share" / "kairos").glob("clang-format-*/clang-format"))
    assert len(formatters) == 1 and os.access(formatters[0], os.X_OK), formatters
    assert shutil.which("kairos", path=environment["PATH"]) == str(prefix / "bin" / "kairos")
    version = run(["kairos", "--version"], cwd=prefix, env=environment)
    assert version.stdout.startswith("kairos "), version.stdout


def test_a_project_elsewhere_builds_its_node_against_the_installation(project, prefix, environment):
    cache = (project / "build" / "CMakeCache.txt").read_text()
    assert f"KAIROS_EXECUTABLE:FILEPATH={prefix / 'bin' / 'kairos'}" in cache
    assert str(ROOT) not in cache, "the project found something in the Kairos checkout"
    # Generated code gets the strict warnings; the hand-written bodies the compiler's defaults.
    commands = run(["ninja", "-C", project / "build", "-t", "commands", "thermostat"],
                   env=environment).stdout.splitlines()
    main = next(c for c in commands if c.endswith("controller.main.cpp"))
    body = next(c for c in commands if c.endswith("Regulator.cpp"))
    assert "-Werror" in main and "-Wconversion" in main, main
    assert "-Werror" not in body and "-Wconversion" not in body, body

    node = run([project / "build" / "thermostat", "--duration", "1s", "--quiet"], env=environment)
    summary = parse_summary(node.stdout)
    assert summary["node"] == "controller"
    # One release every 50 ms in [0, 1 s).
    assert summary["activations"] == "20", node.stdout


def test_only_the_steps_that_depend_on_an_edit_run_again(project, environment):
    model = project / "thermostat.tmo"
    assert build(project, environment) == []

    # Touched, not changed: the generator runs and writes nothing, so nothing else runs.
    os.utime(model)
    assert build(project, environment) == [GENERATE]

    # Faster hardware scales the WCETs: only the schedule tables change, so only the node's
    # program, which includes them, is compiled again; its main and the bodies are not.
    edit(model, "speed 1.0;", "speed 2.0;")
    steps = build(project, environment)
    assert steps == [GENERATE, COMPILE_PROGRAM.format(node="controller"), LINK], steps

    # A hand-written body: compiled and linked again, not generated.
    body = project / "src" / "plant" / "Regulator.cpp"
    body.write_text(body.read_text() + "// tuned\n")
    assert build(project, environment) == [COMPILE_BODY, LINK]

    # A file the build does not read: nothing runs.
    (project / "NOTES.md").write_text("not part of the build\n")
    assert build(project, environment) == []


def test_a_renamed_node_leaves_no_files_behind_and_keeps_the_bodies(project, environment):
    model = project / "thermostat.tmo"
    bodies = {p: p.read_bytes() for p in (project / "src").rglob("*") if p.is_file()}
    generated = project / "build" / "kairos" / "thermostat"
    assert (generated / "controller.main.cpp").is_file()

    model.write_text(model.read_text().replace("node controller {", "node boiler {"))
    steps = build(project, environment)
    # The set of generated files changed: CMake runs again (once), then the new main compiles.
    assert steps.count(RECONFIGURE) == 1, steps
    assert COMPILE_MAIN.format(node="boiler") in steps and COMPILE_BODY not in steps, steps
    assert COMPILE_PROGRAM.format(node="boiler") in steps, steps
    for stale in ("main.cpp", "node.cpp", "node.hpp", "schedule.hpp"):
        assert not (generated / f"controller.{stale}").exists(), stale
    assert (generated / "boiler.main.cpp").is_file()
    assert "controller" not in (generated / "kairos.manifest").read_text()
    assert {p: p.read_bytes() for p in (project / "src").rglob("*") if p.is_file()} == bodies

    node = run([project / "build" / "thermostat", "--duration", "100ms", "--quiet"],
               env=environment)
    assert parse_summary(node.stdout)["node"] == "boiler"
    assert build(project, environment) == []


def test_a_method_added_to_the_model_names_the_starter_to_change(project, environment):
    model = project / "thermostat.tmo"
    edit(model, "  void hold(in double celsius);\n",
         "  void hold(in double celsius);\n  // Whether the heater runs.\n  bool heating();\n")
    edit(model, "  svm hold ",
         "  svm heating gct 5 ms wcet 100 us criticality soft max-rate 5 Hz uses room read;\n"
         "  svm hold ")
    line = model.read_text().splitlines().index(
        "  svm heating gct 5 ms wcet 100 us criticality soft max-rate 5 Hz uses room read;") + 1
    header = project / "src" / "plant" / "Regulator.hpp"
    source = project / "src" / "plant" / "Regulator.cpp"

    steps, result = attempt_build(project, environment)
    # The kept class lacks the new method: the compiler refuses it, and kairos said why first.
    assert result.returncode != 0
    assert (
        f"{model}:{line}: warning: svm heating is not declared in {header}: add "
        f"`bool heating(HeatingAccess ods) override;` to the class there and its body to {source}"
    ) in result.stdout, result.stdout
    assert GENERATE in steps and RECONFIGURE not in steps, steps

    # Doing what it says mends the build.
    edit(header, "  void hold(HoldAccess ods, double celsius) override;\n",
         "  void hold(HoldAccess ods, double celsius) override;\n"
         "  bool heating(HeatingAccess ods) override;\n")
    source.write_text(source.read_text().replace(
        "}  // namespace plant",
        "bool Regulator::heating(HeatingAccess ods) {\n  return ods.room.heating;\n}\n\n"
        "}  // namespace plant"))
    # Hand-written files are not inputs of the generator: it does not run again for them.
    steps = build(project, environment)
    assert GENERATE not in steps and COMPILE_BODY in steps and LINK in steps, steps
