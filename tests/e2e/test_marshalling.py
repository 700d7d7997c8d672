"""Marshalling of every IDL construct: examples/alltypes generated, then a round-trip program
(tests/e2e/marshalling/alltypes_roundtrip.cpp) built with g++ and with clang++ under the project's
strict warnings, run, and held to its verdict: every type and every request/reply encodes,
decodes to an equal value in both byte orders, rejects every truncation, oversized length, bad
enum, bool and exception index, and never encodes beyond its generated maximum size."""

import shutil

import pytest

from conftest import PREFIX, ROOT, kairos, run

ROUNDTRIP_SOURCE = ROOT / "tests" / "e2e" / "marshalling" / "alltypes_roundtrip.cpp"
STRICT_FLAGS = [
    "-std=c++20", "-Wall", "-Wextra", "-Werror", "-Wpedantic", "-Wshadow", "-Wconversion",
    "-Wsign-conversion", "-Wold-style-cast", "-Wcast-align", "-Wimplicit-fallthrough",
    "-Wnull-dereference", "-Wdouble-promotion",
]
# Every type and message of alltypes the program checks, by the names it prints.
EXPECTED = [
    "Primitives", "Point", "Empty", "Segment", "Grid", "Collections", "Typedefs", "Overload",
    "Unavailable", "Everything", "Color", "Single", "Count", "Path", "Vector", "Paths",
    "Location", "RoundTripRequest", "RoundTripReply", "RoundTripException", "StoreRequest",
    "StoreReply", "StoreException", "PickRequest", "PickReply", "NotifyRequest", "CountRequest",
    "CountReply",
]


@pytest.fixture(scope="module")
def alltypes_generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("alltypes")
    result = kairos(
        "generate", "examples/alltypes/alltypes.tmo", "-o", out / "out", "--impl", out / "impl"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / "out" / "types.cdr.hpp").is_file()
    assert (out / "out" / "alltypes" / "Exchange.cdr.hpp").is_file()
    return out / "out"


def test_alltypes_model_checks():
    result = kairos("check", "examples/alltypes/alltypes.tmo")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_every_type_round_trips(compiler, alltypes_generated, tmp_path):
    if shutil.which(compiler) is None:
        pytest.fail(f"{compiler} is not installed (scripts/setup-tests.sh installs it)")
    if not (PREFIX / "include" / "kairos" / "cdr.hpp").is_file():
        pytest.fail("the runtime is not installed in build/prefix: run `make cpp` first")
    program = tmp_path / "roundtrip"
    run([
        compiler, *STRICT_FLAGS, f"-I{PREFIX / 'include'}", f"-I{alltypes_generated}",
        ROUNDTRIP_SOURCE, "-o", program,
    ])
    result = run([program], check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert not [line for line in lines if line.startswith("FAIL")]
    checked = [line.split()[1] for line in lines if line.startswith("ok ") and "trials=" in line]
    assert checked == EXPECTED
    rejected = [line for line in lines if line.startswith("ok rejected")]
    assert len(rejected) == 7, result.stdout
    assert lines[-1] == "roundtrip: every type and message of alltypes held"
