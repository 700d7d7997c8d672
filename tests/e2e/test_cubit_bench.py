"""The cubit benchmark's raw baselines, cheaply: every transport for a few hundred round trips,
a well-formed table, every reply verified, a wrong reply caught, no server left behind.

Needs `make cpp` (build/cpp/bench/kairos_bench_cubit); never the peers (gRPC, Cyclone DDS),
which are measured by `make bench` only.
"""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import ROOT

CUBIT = ROOT / "build" / "cpp" / "bench" / "kairos_bench_cubit"
PLOT = ROOT / "bench" / "cubit_plot.py"
RAW_TRANSPORTS = ["uds-stream", "uds-seqpacket", "tcp", "udp", "shm-futex", "shm-spin"]
PAYLOADS = ["octet", "short", "long", "struct", "seq1", "seq16", "seq64", "seq256", "seq1024"]
ROW = re.compile(r"^(\w+)\s+([\w-]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S.*)$")


@pytest.fixture(scope="session", autouse=True)
def built_toolchain():
    """Overrides conftest's check of the kairos CLI: this suite needs the C++ build only."""


def cubit(*args, timeout=240):
    if not CUBIT.is_file():
        pytest.fail(f"{CUBIT} is not built: run `make cpp` first")
    return subprocess.run([str(CUBIT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def servers_of(client_pid):
    """Serving children of a run, found by the token the driver gives them."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--serve" in command and any(a.startswith(f"{client_pid}-".encode()) for a in command):
            found.append(proc.name)
    return found


def client_pid(stdout):
    match = re.search(r"client pid (\d+)", stdout)
    assert match, stdout
    return int(match.group(1))


@pytest.fixture(scope="module")
def raw_run(tmp_path_factory):
    json_file = tmp_path_factory.mktemp("cubit") / "cubit.json"
    result = cubit("--stack", "raw", "--samples", 200, "--oneway", 2000, "--json", json_file)
    return result, json_file


def test_raw_baselines_verify_every_reply_of_every_transport(raw_run):
    result, _ = raw_run
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ERROR" not in result.stdout
    assert re.search(r"^load average: [\d.]+ [\d.]+ [\d.]+$", result.stdout, re.M)
    verified = re.search(r"^verified: (\d+) two-way replies .*; (\d+) oneway bursts", result.stdout,
                         re.M)
    assert verified, result.stdout
    assert int(verified.group(1)) == 200 * len(PAYLOADS) * len(RAW_TRANSPORTS)
    assert int(verified.group(2)) == 4 * len(RAW_TRANSPORTS)  # octet, short, long, struct


def test_raw_table_has_one_well_formed_row_per_transport_and_payload(raw_run):
    result, _ = raw_run
    tables = re.split(r"^== ", result.stdout, flags=re.M)[1:]
    two_way = [t for t in tables if t.startswith("two-way")]
    assert [t.split()[1] for t in two_way] == PAYLOADS
    for table in two_way:
        rows = [ROW.match(line) for line in table.splitlines()[2:] if line.strip()]
        rows = [r for r in rows if r]
        assert [r.group(2) for r in rows] == RAW_TRANSPORTS, table
        for r in rows:
            p50, p99, maximum = float(r.group(3)), float(r.group(4)), float(r.group(5))
            assert 0 < p50 <= p99 <= maximum, table
            assert re.match(r"\d+\.\d\dx (uds|tcp|udp|shm)", r.group(7)), table
    oneway = [t for t in tables if t.startswith("oneway")]
    assert len(oneway) == 1
    assert len(re.findall(r"^raw\s", oneway[0], re.M)) == 4 * len(RAW_TRANSPORTS)


def test_json_holds_the_same_cells_and_plots_as_svg(raw_run, tmp_path):
    result, json_file = raw_run
    data = json.loads(json_file.read_text())
    assert data["samples"] == 200 and data["errors"] == []
    two_way = [r for r in data["results"] if r["mode"] == "two-way"]
    assert len(two_way) == len(PAYLOADS) * len(RAW_TRANSPORTS)
    assert all(r["samples"] == 200 and r["p50_us"] > 0 and r["ratio"] >= 1.0 for r in two_way)
    assert {r["baseline"] for r in two_way} <= set(RAW_TRANSPORTS)
    plotted = subprocess.run([sys.executable, str(PLOT), str(json_file), "-o", str(tmp_path)],
                             capture_output=True, text=True, timeout=60)
    assert plotted.returncode == 0, plotted.stderr
    for name in ("cubit_latency.svg", "cubit_oneway.svg"):
        root = ElementTree.parse(tmp_path / name).getroot()
        assert root.tag.endswith("svg")
        assert len(root.findall(".//{http://www.w3.org/2000/svg}polyline")) > 0 or \
            name == "cubit_oneway.svg"


@pytest.mark.parametrize("transport", ["uds", "tcp", "udp", "shm"])
def test_a_wrong_reply_fails_the_run_and_leaves_no_server(transport):
    result = cubit("--stack", "raw", "--transport", transport, "--payload", "long", "--samples",
                   200, "--oneway", 0, "--wrong-reply", 57)
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"ERROR: raw [\w-]+ long: wrong reply to call 57: long: expected", result.stdout)
    assert "verified:" not in result.stdout
    assert servers_of(client_pid(result.stdout)) == []


@pytest.mark.parametrize("args", [
    ["--samples", "0"], ["--samples", "many"], ["--transport", "carrier-pigeon"],
    ["--payload", "seq2048"], ["--oneway"], ["--cpu-server", "x"], ["--frobnicate"],
])
def test_bad_arguments_exit_2_with_usage(args):
    result = cubit(*args, timeout=30)
    assert result.returncode == 2
    assert "usage:" in result.stderr
    assert "Traceback" not in result.stderr and "terminate" not in result.stderr


def test_a_stack_not_built_is_a_clear_error():
    result = cubit("--stack", "corba", timeout=30)
    assert result.returncode == 2
    assert "no stack 'corba'" in result.stderr


def test_plot_rejects_a_file_that_is_not_a_cubit_result(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text('{"hello": 1}')
    result = subprocess.run([sys.executable, str(PLOT), str(bogus)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode != 0
    assert "not a cubit result" in result.stderr
    assert "Traceback" not in result.stderr
