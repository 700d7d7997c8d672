"""The Kairos ORB's benchmarks, cheaply: the `kairos` stack of cubit beside the raw baselines of its
transports for a few hundred round trips, every reply verified, a wrong reply caught; mt_cubit and
inversion for a second each, checking the shape of their output (never a timing bound).

Needs `make cpp` (build/cpp/bench/kairos_bench_{cubit,mt_cubit,inversion,tls_records}).
"""

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from conftest import ROOT
from test_cubit_bench import PLOT, ROW, client_pid, cubit, servers_of

BENCH = ROOT / "build" / "cpp" / "bench"
MT_CUBIT = BENCH / "kairos_bench_mt_cubit"
INVERSION = BENCH / "kairos_bench_inversion"
TLS_RECORDS = BENCH / "kairos_bench_tls_records"
PAYLOADS = ["octet", "short", "long", "struct", "seq1", "seq16", "seq64", "seq256", "seq1024"]
# raw ones, then kairos ones; the kairos stack carries oneways only over UDP
RAW_TRANSPORTS = ["uds-stream", "uds-seqpacket", "tcp", "udp", "shm-futex", "shm-spin"]
KAIROS_TWO_WAY = ["uds", "tcp", "tcp-tls", "shm"]  # tcp-tls: TLS 1.3 with the nodes' keys
KAIROS_ONEWAY = ["uds", "tcp", "tcp-tls", "udp", "shm"]
NUMBER = r"[\d.]+"


@pytest.fixture(scope="session", autouse=True)
def built_toolchain():
    """Overrides conftest's check of the kairos CLI: this suite needs the C++ build only."""


def run(program, *args, timeout=120):
    if not program.is_file():
        pytest.fail(f"{program} is not built: run `make cpp` first")
    return subprocess.run([str(program), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def kairos_run():
    return cubit("--stack", "raw,kairos", "--transport", "uds,tcp,udp,shm", "--samples", 200,
                 "--oneway", 2000)


def test_kairos_stack_verifies_every_reply_beside_the_raw_baselines(kairos_run):
    result = kairos_run
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ERROR" not in result.stdout
    verified = re.search(r"^verified: (\d+) two-way replies .*; (\d+) oneway bursts", result.stdout,
                         re.M)
    assert verified, result.stdout
    two_way = len(RAW_TRANSPORTS) + len(KAIROS_TWO_WAY)
    assert int(verified.group(1)) == 200 * len(PAYLOADS) * two_way
    assert int(verified.group(2)) == 4 * (len(RAW_TRANSPORTS) + len(KAIROS_ONEWAY))
    assert servers_of(client_pid(result.stdout)) == []


def test_kairos_rows_carry_the_ratio_to_the_raw_transport_of_their_family(kairos_run):
    tables = re.split(r"^== ", kairos_run.stdout, flags=re.M)[1:]
    two_way = [t for t in tables if t.startswith("two-way")]
    assert [t.split()[1] for t in two_way] == PAYLOADS
    for table in two_way:
        rows = [r for r in (ROW.match(line) for line in table.splitlines()[2:]) if r]
        kairos = {r.group(2): r for r in rows if r.group(1) == "kairos"}
        assert sorted(kairos) == sorted(KAIROS_TWO_WAY), table
        for transport, row in kairos.items():
            p50, p99, maximum = float(row.group(3)), float(row.group(4)), float(row.group(5))
            assert 0 < p50 <= p99 <= maximum, table
            family = transport.split("-")[0]  # tcp-tls beside raw tcp
            assert re.match(rf"\d+\.\d\dx {family}", row.group(7)), table
    oneway = [t for t in tables if t.startswith("oneway")]
    assert len(re.findall(r"^kairos\s", oneway[0], re.M)) == 4 * len(KAIROS_ONEWAY)
    # Oneways over UDP: one datagram each, beside raw UDP; what arrived is counted (at most all).
    udp = re.findall(rf"^kairos +udp +\w+ +({NUMBER}) +(\d+) +({NUMBER})x udp$", oneway[0], re.M)
    assert len(udp) == 4, oneway[0]
    for rate, received, _ in udp:
        assert float(rate) > 0 and 0 < int(received) <= 2000, oneway[0]


@pytest.mark.parametrize("transport", ["uds", "tcp", "shm"])
def test_a_wrong_reply_of_the_kairos_server_fails_the_run(transport):
    result = cubit("--stack", "kairos", "--transport", transport, "--payload", "long", "--samples",
                   200, "--oneway", 0, "--wrong-reply", 57)
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(rf"ERROR: kairos {transport} long: wrong reply to call 57: long: expected",
                     result.stdout), result.stdout
    assert "verified:" not in result.stdout
    assert servers_of(client_pid(result.stdout)) == []


def test_breakdown_names_every_step_of_a_request_on_the_server():
    result = cubit("--stack", "kairos", "--transport", "uds", "--payload", "long", "--samples", 200,
                   "--oneway", 0, "--breakdown")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "where 220 two-way requests spent their time" in result.stderr
    for step in ("reader:", "time trigger:", "lane:", "method:", "complete():", "total:"):
        assert re.search(rf"^{re.escape(step)}.* p50 +{NUMBER} us .*\(n=220\)$", result.stderr,
                         re.M), result.stderr


@pytest.fixture(scope="module")
def priority_runs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("priority")
    mt = run(MT_CUBIT, "--clients", "0,5", "--seconds", 1, "--json", directory / "mt_cubit.json")
    inversion = run(INVERSION, "--seconds", 1, "--json", directory / "inversion.json")
    return mt, inversion, directory


def test_mt_cubit_prints_one_row_per_number_of_low_priority_clients(priority_runs):
    result = priority_runs[0]
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert re.search(rf"^load average: {NUMBER} {NUMBER} {NUMBER}$", out, re.M)
    assert re.search(r"^scheduling: (SCHED_FIFO|time-shared)", out, re.M)
    rows = re.findall(rf"^ +(\d+) +(\d+) +({NUMBER}) +({NUMBER}) +({NUMBER}) +(\S+) +(\S+)", out,
                      re.M)
    assert [int(r[0]) for r in rows] == [0, 5], out
    for n, samples, p50, p99, maximum, ratio, low_calls in rows:
        assert int(samples) > 0 and 0 < float(p50) <= float(p99) <= float(maximum), out
        assert (low_calls == "-") == (n == "0"), out
    assert re.search(r"^high-priority p99 from N=0 to N=5: [+-][\d.]+% \(target <= \+10%\): "
                     r"(met|missed)$", out, re.M), out
    assert re.search(r"^verified: \d+ replies were the cubes of their requests$", out, re.M)


def test_inversion_prints_each_rate_and_whether_they_form_a_staircase(priority_runs):
    result = priority_runs[1]
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    names = re.findall(rf"^(baseline: 20 Hz alone|\d+ Hz) +(\d+) +(\d+) +{NUMBER}", out, re.M)
    assert [n[0] for n in names] == ["baseline: 20 Hz alone", "20 Hz", "10 Hz", "5 Hz", "1 Hz"]
    assert [int(n[1]) for n in names] == [40, 40, 30, 20, 10]
    assert all(int(n[2]) > 0 for n in names), out
    assert re.search(r"^staircase: (yes|no) ", out, re.M), out
    assert re.search(r"^verified: \d+ replies were the cubes of their requests$", out, re.M)


def test_priority_results_are_json_and_plot_as_svg(priority_runs, tmp_path):
    _, _, directory = priority_runs
    mt = json.loads((directory / "mt_cubit.json").read_text())
    assert mt["benchmark"] == "mt_cubit" and mt["errors"] == []
    assert [r["n"] for r in mt["results"]] == [0, 5]
    inversion = json.loads((directory / "inversion.json").read_text())
    assert inversion["benchmark"] == "inversion" and inversion["errors"] == []
    assert [r["hz"] for r in inversion["results"]] == [20, 20, 10, 5, 1]
    assert isinstance(inversion["staircase"], bool)
    plotted = subprocess.run([sys.executable, str(PLOT), str(directory / "mt_cubit.json"),
                              str(directory / "inversion.json"), "-o", str(tmp_path)],
                             capture_output=True, text=True, timeout=60)
    assert plotted.returncode == 0, plotted.stderr
    svg = "{http://www.w3.org/2000/svg}"
    root = ElementTree.parse(tmp_path / "mt_cubit.svg").getroot()
    assert len(root.findall(f".//{svg}polyline")) >= 3
    root = ElementTree.parse(tmp_path / "inversion.svg").getroot()
    assert len(root.findall(f".//{svg}rect")) >= 2 * 5


@pytest.mark.parametrize("program,args", [
    (MT_CUBIT, ["--clients", "0,500"]), (MT_CUBIT, ["--seconds", "0"]),
    (MT_CUBIT, ["--transport", "shm"]), (INVERSION, ["--clients", "5"]),
    (INVERSION, ["--work-us", "many"]), (INVERSION, ["--seconds"]),
])
def test_bad_arguments_exit_2_with_usage(program, args):
    result = run(program, *args, timeout=30)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "usage:" in result.stderr


def test_tls_records_prints_what_tls_adds_beside_the_clear_round_trip():
    result = run(TLS_RECORDS, "--samples", 300)
    assert result.returncode == 0, result.stdout + result.stderr
    for what in ("round trip, clear TCP (the baseline)",
                 "round trip, TLS 1.3 (records sealed and opened)"):
        assert re.search(rf"^{re.escape(what)} +p50 +{NUMBER} us .*\(n=300\)$", result.stdout,
                         re.M), result.stdout
    assert re.search(rf"^TLS adds -?{NUMBER} us at the median", result.stdout, re.M), \
        result.stdout
    assert result.stdout.count("load average:") == 2, result.stdout
