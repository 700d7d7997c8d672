"""The channel benchmark (bench/channels.py), cheaply: one publisher and two subscriber nodes for a
second, beside ddsperf, checking what it prints and writes (never a timing bound).

Needs `make java cpp` (the kairos command and the runtime in build/prefix) and Cyclone DDS's tools.
"""

import json
import subprocess
import sys

from conftest import ROOT


def test_the_channel_bench_measures_every_subscriber_beside_ddsperf(tmp_path):
    report = tmp_path / "channels.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "channels.py"), "--subscribers", "2",
         "--seconds", "1", "--json", str(report)],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line.split()[:1] == ["2"]]
    assert len(rows) == 1, result.stdout
    (run,) = json.loads(report.read_text())["runs"]
    assert run["subscribers"] == 2
    kairos, dds = run["kairos"], run["ddsperf"]
    # 100 samples in 1 s to each of two subscribers that were up before the source: DDS
    # discovery may cost the first few.
    assert 95 <= kairos["published"] <= 101, run
    assert kairos["delivered"] >= 0.8 * 2 * kairos["published"], run
    assert 0 < kairos["p50_us"] <= kairos["p99_us"] <= kairos["max_us"] < 100_000, run
    assert dds["samples"] > 0 and 0 < dds["rtt_p50_us"] <= dds["rtt_max_us"], run
    assert run["ratio_p50"] == kairos["p50_us"] / (dds["rtt_p50_us"] / 2)


def test_the_channel_bench_refuses_bad_arguments():
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "channels.py"), "--subscribers", "17"],
        capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 2
    assert "subscribers 1..16" in result.stderr
    assert "Traceback" not in result.stderr
