"""Declared segment use is the access a body gets, checked by the C++ compiler.

A small model is generated; then method bodies are written that keep to what the method declares
(`uses state write, cfg read`), write a segment it only reads, and touch one it does not use. The
first must compile with both compilers and the project's warnings; the others must not, and the
compiler must say which segment. Nor may a body run another method: its entry point is private to
the base, and the way the node program reaches it, `EntryPoints`, is incomplete outside it.
"""

import re
import shutil

import pytest

from conftest import PREFIX, ROOT, copy_example, kairos, run

MODEL = """\
package probe

tmo Probe {
  ods {
    segment state { uint64 count; }
    segment cfg { uint32 gain; }
    segment journal { uint64 entries; }
  }
  spm step
    for t = from 0 s to forever every 10 ms
    start-during (t, t + 1 ms) finish-by t + 10 ms
    wcet 100 us
    uses state write, cfg read;
  spm audit
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 10 ms) finish-by t + 100 ms
    wcet 100 us criticality soft
    uses journal write;
}

node probe_node { os sim deploy Probe as probe }
"""

# The body of Probe::step; each case replaces it.
KEEPS_TO_ITS_DECLARATION = "ods.state.count += ods.cfg.gain;"
WRITES_WHAT_IT_READS = "ods.cfg.gain = 3;"
TOUCHES_AN_UNUSED_SEGMENT = "ods.journal.entries = 1;"
REACHES_FOR_THE_STORE = "++ods_.journal.entries;"
RUNS_ANOTHER_METHOD = "run_audit();"
SERVES_ITSELF_ANOTHER_METHOD = "ProbeBase::EntryPoints::audit(this);"

COMPILERS = ["g++", "clang++"]


def project_warnings() -> list[str]:
    """The warning flags generated node projects are built with (cmake/KairosCompileOptions.cmake)."""
    text = (ROOT / "cmake" / "KairosCompileOptions.cmake").read_text()
    options = re.search(r"set\(options(.*?)\)", text, re.S)
    assert options, "no warning options in KairosCompileOptions.cmake"
    return options.group(1).split() + ["-Werror"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The generated project and starter files of MODEL: (output dir, impl dir)."""
    if not (PREFIX / "include" / "kairos" / "engine.hpp").is_file():
        pytest.fail("Kairos runtime is not installed in build/prefix: run `make cpp` first")
    root = tmp_path_factory.mktemp("segments")
    model = root / "probe.tmo"
    model.write_text(MODEL)
    out, impl = root / "out", root / "impl"
    result = kairos("generate", model, "-o", out, "--impl", impl)
    assert result.returncode == 0, result.stdout + result.stderr
    return out, impl


def compile_with_step_body(compiler, generated, body, tmp_path):
    """Compiles the node's program and the hand-written class whose step() runs `body`."""
    out, impl = generated
    sources = tmp_path / "impl"
    shutil.copytree(impl, sources)
    source = sources / "probe" / "Probe.cpp"
    text = source.read_text()
    # The starter's step: `void Probe::step(StepAccess /*ods*/) { ...comments... }`.
    starter = re.compile(r"void Probe::step\(StepAccess /\*ods\*/\) \{\n(.*?)\n\}", re.S)
    assert starter.search(text), text
    source.write_text(
        starter.sub(lambda _: "void Probe::step(StepAccess ods) {\n  " + body + "\n}", text)
    )
    return run(
        [
            compiler, "-std=c++20", "-fsyntax-only", *project_warnings(),
            f"-I{out}", f"-I{sources}", f"-I{PREFIX / 'include'}",
            f"-I{PREFIX / 'include' / 'kairos-platform-sim'}",
            out / "probe_node.node.cpp", source,
        ],
        check=False,
    )


@pytest.mark.parametrize("compiler", COMPILERS)
def test_a_body_that_keeps_to_its_declaration_compiles(compiler, generated, tmp_path):
    result = compile_with_step_body(compiler, generated, KEEPS_TO_ITS_DECLARATION, tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("compiler", COMPILERS)
def test_writing_a_segment_declared_read_does_not_compile(compiler, generated, tmp_path):
    result = compile_with_step_body(compiler, generated, WRITES_WHAT_IT_READS, tmp_path)
    assert result.returncode != 0, "a write to a segment declared `read` compiled"
    assert re.search(r"\bcfg\b", result.stderr, re.I), result.stderr
    assert re.search(r"read-only|const-qualified", result.stderr), result.stderr


@pytest.mark.parametrize("compiler", COMPILERS)
def test_touching_an_undeclared_segment_does_not_compile(compiler, generated, tmp_path):
    result = compile_with_step_body(compiler, generated, TOUCHES_AN_UNUSED_SEGMENT, tmp_path)
    assert result.returncode != 0, "a segment the method does not use was reachable"
    assert re.search(r"no member named .?journal", result.stderr), result.stderr


@pytest.mark.parametrize("compiler", COMPILERS)
def test_the_object_data_store_itself_is_out_of_reach(compiler, generated, tmp_path):
    result = compile_with_step_body(compiler, generated, REACHES_FOR_THE_STORE, tmp_path)
    assert result.returncode != 0, "a body reached the object data store past its view"
    assert "ods_" in result.stderr and "private" in result.stderr, result.stderr


@pytest.mark.parametrize("compiler", COMPILERS)
def test_running_another_methods_entry_point_does_not_compile(compiler, generated, tmp_path):
    result = compile_with_step_body(compiler, generated, RUNS_ANOTHER_METHOD, tmp_path)
    assert result.returncode != 0, "a body ran another method past its declared segments"
    assert "run_audit" in result.stderr and "private" in result.stderr, result.stderr


@pytest.mark.parametrize("compiler", COMPILERS)
def test_the_node_programs_way_in_is_out_of_reach(compiler, generated, tmp_path):
    result = compile_with_step_body(compiler, generated, SERVES_ITSELF_ANOTHER_METHOD, tmp_path)
    assert result.returncode != 0, "a body reached the entry points the node program defines"
    assert "EntryPoints" in result.stderr and "incomplete" in result.stderr, result.stderr


def test_generate_names_methods_whose_kept_declaration_no_longer_matches(workdir):
    example = copy_example("hello", workdir)
    model = example / "hello.tmo"
    first = kairos("generate", model, "-o", workdir / "out")
    assert first.returncode == 0, first.stderr
    assert "warning" not in first.stderr, "the example's own class matches its base"

    # greetings stops using the counters: its kept declaration still takes GreetingsAccess.
    model.write_text(model.read_text().replace(" uses counters read;", ";"))
    second = kairos("generate", model, "-o", workdir / "out")
    assert second.returncode == 0, second.stderr
    assert (
        f"{model}:24: warning: svm greetings uses no segment any more, but" in second.stderr
    ), second.stderr
    assert "the base declares ::std::uint64_t greetings(::std::uint32_t extra)" in second.stderr
    assert "tick" not in second.stderr, second.stderr
