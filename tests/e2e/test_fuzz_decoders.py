"""The libFuzzer target over the generated decoders of examples/alltypes (tests/fuzz), built with
clang++ under AddressSanitizer and UndefinedBehaviorSanitizer, run for a bounded time from the
committed corpus. A crash, a sanitizer report or a timeout fails the test and shows the input
that caused it. tests/fuzz/README.md says how to run it longer."""

import base64
import os
import shutil

import pytest

from conftest import PREFIX, ROOT, kairos, run

FUZZ_DIR = ROOT / "tests" / "fuzz"
CORPUS = FUZZ_DIR / "corpus" / "alltypes"
VALUES_DIR = ROOT / "tests" / "e2e" / "marshalling"
# Bounded: `make test` spends this long fuzzing (KAIROS_FUZZ_SECONDS overrides it).
FUZZ_SECONDS = int(os.environ.get("KAIROS_FUZZ_SECONDS", "30"))
FLAGS = [
    "-std=c++20", "-Wall", "-Wextra", "-Werror", "-Wconversion", "-Wsign-conversion",
    "-Wold-style-cast",
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    if not (PREFIX / "include" / "kairos" / "cdr.hpp").is_file():
        pytest.fail("the runtime is not installed in build/prefix: run `make cpp` first")
    out = tmp_path_factory.mktemp("alltypes")
    result = kairos(
        "generate", "examples/alltypes/alltypes.tmo", "-o", out / "out", "--impl", out / "impl"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def includes(generated):
    return [f"-I{PREFIX / 'include'}", f"-I{generated / 'out'}", f"-I{VALUES_DIR}"]


def test_committed_corpus_is_what_the_seed_generator_writes(generated, tmp_path):
    seeds = tmp_path / "seeds"
    run(["g++", *FLAGS, *includes(generated), FUZZ_DIR / "alltypes_seeds.cpp", "-o", seeds])
    written = tmp_path / "corpus"
    written.mkdir()
    run([seeds, written])
    committed = {p.name: p.read_bytes() for p in CORPUS.iterdir()}
    fresh = {p.name: p.read_bytes() for p in written.iterdir()}
    assert sorted(fresh) == sorted(committed), (
        "tests/fuzz/corpus/alltypes is stale: regenerate it (tests/fuzz/README.md)"
    )
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"seeds differ from the committed corpus: {stale} (tests/fuzz/README.md)"


def test_decoders_survive_the_fuzzer(generated, tmp_path):
    if shutil.which("clang++") is None:
        pytest.fail("clang++ is not installed (scripts/setup-tests.sh installs it)")
    fuzzer = tmp_path / "alltypes_decoders"
    run([
        "clang++", *FLAGS, "-g", "-O1", "-fsanitize=fuzzer,address,undefined",
        "-fno-sanitize-recover=all", *includes(generated), FUZZ_DIR / "alltypes_decoders.cpp",
        "-o", fuzzer,
    ])
    # New inputs go to the first directory (a scratch one), so the committed corpus stays as is.
    scratch = tmp_path / "new"
    scratch.mkdir()
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    result = run(
        [
            fuzzer, f"-max_total_time={FUZZ_SECONDS}", "-timeout=10", "-rss_limit_mb=2048",
            "-print_final_stats=1", f"-artifact_prefix={artifacts}/", scratch, CORPUS,
        ],
        check=False,
        timeout=FUZZ_SECONDS + 240,
    )
    if result.returncode != 0:
        reproducers = []
        for artifact in sorted(artifacts.iterdir()):
            data = artifact.read_bytes()
            reproducers.append(
                f"{artifact.name} ({len(data)} bytes): hex {data.hex()} "
                f"base64 {base64.b64encode(data).decode()}"
            )
        pytest.fail(
            f"the fuzzer found an input the decoders do not survive (exit {result.returncode}).\n"
            "Reproduce: write the bytes to a file and run the fuzzer binary on it.\n"
            + "\n".join(reproducers)
            + "\n--- fuzzer output (tail)\n"
            + "\n".join(result.stderr.splitlines()[-60:])
        )
    assert "Done" in result.stderr, result.stderr[-2000:]
    runs = [line for line in result.stderr.splitlines() if line.startswith("stat::number_of_executed_units")]
    assert runs and int(runs[0].split(":")[-1]) > 1000, result.stderr[-2000:]
