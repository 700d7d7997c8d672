"""Initial values of segment fields: a generated node's TMO starts with what the model declares.

A model gives the fields of one segment initial values of every kind (numbers of each width and
sign, a float, text, an enum literal, constants, a typedef); the generated node is built with the
project's warnings by both compilers, and run on sim, where the first activation of its SpM
prints what it finds in the segment before it changes anything.
"""

import re
import shutil

import pytest

from conftest import PREFIX, build_node_project, kairos, run
from test_segment_access import COMPILERS, project_warnings

MODEL = """\
package seed

enum Phase { IDLE, CRUISE }
typedef double Ratio;
const uint32 LEGS = 16;
const float HALF = 0.5;
const string<8> CALLSIGN = "KAIROS";

tmo Seeded {
  ods {
    segment state {
      double speed = 12.5;
      float gain = 0.1;
      double whole = 3;
      int8 low = -128;
      uint32 mode = 2;
      uint64 most = 18446744073709551615;
      int64 least = -9223372036854775808;
      uint16 padded = 010;
      bool on = true;
      string<16> label = "idle \\"now\\"";
      Phase phase = CRUISE;
      uint32 legs = LEGS;
      float half = HALF;
      string<8> callsign = CALLSIGN;
      Ratio ratio = 0.25;
      uint64 untouched;
    }
  }
  spm report
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 1 ms) finish-by t + 10 ms
    wcet 100 us
    uses state write;
}

node seed_node { os sim deploy Seeded as seeded }
"""

# The body of Seeded::report: the first activation prints the segment as the node started it.
REPORT = r"""void Seeded::report(ReportAccess ods) {
  static bool reported = false;
  if (!reported) {
    reported = true;
    const auto& s = ods.state;
    std::printf("seed: speed=%g gain=%.9g whole=%g low=%d mode=%u most=%llu least=%lld "
                "padded=%u on=%d label=%.*s phase=%u legs=%u half=%g callsign=%.*s ratio=%g "
                "untouched=%llu\n",
                s.speed, static_cast<double>(s.gain), s.whole, s.low, s.mode,
                static_cast<unsigned long long>(s.most), static_cast<long long>(s.least),
                s.padded, s.on ? 1 : 0, static_cast<int>(s.label.size()), s.label.data(),
                static_cast<unsigned>(s.phase), s.legs, static_cast<double>(s.half),
                static_cast<int>(s.callsign.size()), s.callsign.data(), s.ratio,
                static_cast<unsigned long long>(s.untouched));
  }
  ods.state.mode += 1;
}
"""

EXPECTED = {
    "speed": "12.5", "gain": "0.100000001", "whole": "3", "low": "-128", "mode": "2",
    "most": "18446744073709551615", "least": "-9223372036854775808", "padded": "10",
    "on": "1", "label": 'idle "now"', "phase": "1", "legs": "16", "half": "0.5",
    "callsign": "KAIROS", "ratio": "0.25", "untouched": "0",
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The generated project and the hand-written class with REPORT: (root, output dir, impl)."""
    if not (PREFIX / "include" / "kairos" / "engine.hpp").is_file():
        pytest.fail("Kairos runtime is not installed in build/prefix: run `make cpp` first")
    root = tmp_path_factory.mktemp("initial")
    model = root / "seed.tmo"
    model.write_text(MODEL)
    out, impl = root / "out", root / "impl"
    result = kairos("generate", model, "-o", out, "--impl", impl)
    assert result.returncode == 0, result.stdout + result.stderr
    source = impl / "seed" / "Seeded.cpp"
    starter = re.compile(r"void Seeded::report\(ReportAccess /\*ods\*/\) \{\n.*?\n\}\n", re.S)
    text = source.read_text()
    assert starter.search(text), text
    text = starter.sub(lambda _: REPORT, text)
    source.write_text(text.replace('#include "seed/Seeded.hpp"\n',
                                   '#include "seed/Seeded.hpp"\n\n#include <cstdio>\n', 1))
    return root, out, impl


def test_the_segment_struct_starts_with_the_declared_values(generated):
    _, out, _ = generated
    base = (out / "seed" / "Seeded.base.hpp").read_text()
    assert "    // from seed.tmo:12\n    double speed{12.5};\n" in base, base
    for member in [
        "float gain{0.1F};", "double whole{3.0};", "::std::int8_t low{-128};",
        "::std::uint64_t most{18446744073709551615U};",
        "::std::int64_t least{(-9223372036854775807 - 1)};", "::std::uint16_t padded{10};",
        '::kairos::BoundedString<16> label{"idle \\"now\\""};',
        "::seed::Phase phase{::seed::Phase::CRUISE};", "::std::uint32_t legs{::seed::LEGS};",
        "float half{::seed::HALF};", "::kairos::BoundedString<8> callsign{::seed::CALLSIGN};",
        "::seed::Ratio ratio{0.25};", "::std::uint64_t untouched{};",
    ]:
        assert member in base, member + "\n" + base


@pytest.mark.parametrize("compiler", COMPILERS)
def test_the_initialised_segment_compiles_without_warnings(compiler, generated, tmp_path):
    _, out, impl = generated
    result = run(
        [
            compiler, "-std=c++20", "-fsyntax-only", *project_warnings(),
            f"-I{out}", f"-I{impl}", f"-I{PREFIX / 'include'}",
            f"-I{PREFIX / 'include' / 'kairos-platform-sim'}",
            out / "seed_node.node.cpp",
        ],
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_a_generated_node_starts_with_the_declared_values(generated):
    root, out, impl = generated
    build = root / "build"
    shutil.rmtree(build, ignore_errors=True)
    build_node_project(out, build, impl)
    result = run([build / "seed_node", "--duration", "1s"], timeout=60)
    lines = [line for line in result.stdout.splitlines() if line.startswith("seed: ")]
    assert len(lines) == 1, result.stdout
    found = dict(re.findall(r"(\w+)=((?:[^=])*?)(?= \w+=|$)", lines[0][len("seed: "):]))
    assert found == EXPECTED, lines[0]
