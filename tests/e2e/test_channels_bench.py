"""The channel benchmark (bench/channels.py), cheaply: one publisher and two subscriber nodes for a
second, beside raw Cyclone DDS and ddsperf, and again under DDS Security, checking what it prints
and writes (never a timing bound).

Needs `make java cpp` (the kairos command and the runtime in build/prefix) and Cyclone DDS's tools.
"""

import json
import subprocess
import sys

from conftest import ROOT


def test_the_channel_bench_measures_every_subscriber_beside_raw_dds_and_ddsperf(tmp_path):
    report = tmp_path / "channels.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "channels.py"), "--subscribers", "2",
         "--seconds", "1", "--rounds", "2", "--publisher-cpu", "0", "--subscriber-cpu", "0",
         "--json",
         str(report)],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line.split()[:1] == ["2"]]
    assert len(rows) == 1, result.stdout
    (run,) = json.loads(report.read_text())["runs"]
    assert run["subscribers"] == 2
    kairos, raw, dds = run["kairos"], run["raw_dds"], run["ddsperf"]
    # Two rounds of 100 samples in 1 s to each of two subscribers that were up before the
    # source: DDS discovery may cost the first few. The source, whose SpM must start within 1 ms
    # of each release, shares CPU 0 with both subscribers here, which the model does not assume
    # (each node's processor its own): on a busy host it misses a few windows, and publishes
    # nothing for those (188 of 200 seen once).
    secure = run["kairos_dds_security"]
    for one_way in (kairos, raw, secure):
        assert 150 <= one_way["published"] <= 202, run
        assert len(one_way["rounds_p50_us"]) == 2, run
        assert one_way["delivered"] >= 0.8 * 2 * one_way["published"], run
        assert 0 < one_way["p50_us"] <= one_way["p99_us"] <= one_way["max_us"] < 100_000, run
    assert dds["samples"] > 0 and 0 < dds["rtt_p50_us"] <= dds["rtt_max_us"], run
    assert run["ratio_p50_raw"] == kairos["p50_us"] / raw["p50_us"]
    assert run["ratio_p50_ddsperf"] == kairos["p50_us"] / (dds["rtt_p50_us"] / 2)
    assert run["ratio_p50_security"] == secure["p50_us"] / kairos["p50_us"]


def test_the_channel_bench_refuses_bad_arguments():
    for args, says in ((["--subscribers", "17"], "subscribers 1..16"),
                       (["--publisher-cpu", "4096"], "CPU 4096: this machine has CPUs 0..")):
        result = subprocess.run([sys.executable, str(ROOT / "bench" / "channels.py"), *args],
                                capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert result.returncode == 2, args
        assert says in result.stderr
        assert "Traceback" not in result.stderr
