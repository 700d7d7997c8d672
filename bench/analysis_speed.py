#!/usr/bin/env python3
"""Speed of the toolchain on large models: `kairos check` and `kairos generate` of a synthetic
system with many TMOs, wall time including JVM start-up, with the phase timings kairos reports.

    bench/analysis_speed.py [--tmos N] [--nodes K]

Each node deploys at most 50 TMOs (the runtime holds 64 SpMs per node) unless --nodes says
otherwise.

Targets: analysis of 10,000 tasks <= 1 s; check + generate of 1,000 TMOs <= 5 s wall.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PERIODS_MS = [5, 10, 20, 40, 50, 100, 200, 1000]


def model(tmos: int, nodes: int) -> str:
    lines = ["package synthetic", ""]
    for i in range(tmos):
        period = PERIODS_MS[i % len(PERIODS_MS)]
        lines += [
            f"tmo Unit{i} {{",
            "  ods { segment state { uint64 count; } }",
            f"  spm tick for t = from 0 s to forever every {period} ms",
            "    start-during (t, t + 1 ms) finish-by t + 2 ms",
            "    wcet 1 us criticality hard uses state write;",
            "  svm fetch gct 1 ms wcet 1 us criticality soft max-rate 10 Hz uses state read;",
            "}",
        ]
    lines.append("hardware Big { cores 8; speed 1.0; }")
    for n in range(nodes):
        lines.append(f"node n{n} {{ hardware Big os linux scheduling rms")
        lines += [f"  deploy Unit{i} as u{i}" for i in range(n, tmos, nodes)]
        lines.append("}")
    return "\n".join(lines) + "\n"


def timed(args, cwd):
    start = time.monotonic()
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - start
    timings = [l for l in result.stderr.splitlines() if "timings:" in l]
    return elapsed, result.returncode, timings[0] if timings else result.stderr[-300:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tmos", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=0, help="nodes (default: 50 TMOs each)")
    options = parser.parse_args()
    kairos = ROOT / "kairos"
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as scratch:
        for tmos, label in ((options.tmos, "check + generate"), (5000, "analysis of 10,000 tasks")):
            path = Path(scratch) / f"synthetic{tmos}.tmo"
            nodes = options.nodes or -(-tmos // 50)
            path.write_text(model(tmos, nodes))
            seconds, code, timings = timed([kairos, "check", "--timings", path.name], scratch)
            print(f"{label}: kairos check, {tmos} TMOs ({2 * tmos} tasks, {nodes} nodes): "
                  f"{seconds:.2f} s wall, exit {code}; {timings}")
            if tmos == options.tmos:
                out = Path(scratch) / "out"
                seconds_g, code_g, timings_g = timed(
                    [kairos, "generate", "--timings", path.name, "-o", out, "--impl", Path(scratch) / "impl"],
                    scratch)
                print(f"{label}: kairos generate, {tmos} TMOs: {seconds_g:.2f} s wall, exit {code_g}; "
                      f"{timings_g}")
                print(f"{label}: total {seconds + seconds_g:.2f} s wall (target <= 5 s)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
