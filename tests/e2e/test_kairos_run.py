"""kairos run end to end: the demo system on two CPUs as deployed, run after run within its bounds,
and a run stopped by SIGTERM that still stops every node cleanly and prints its table."""

import contextlib
import json
import os
import re
import signal
import socket
import ssl
import struct
import subprocess
import time

import pytest

from conftest import (ROOT, finished_late, hard_spm_misses, kairos, machine_unfit_for_ideal_bounds,
                      parse_summary, tls_connect)
from test_attacks import frame, hello_answered

DEMO = ROOT / "examples" / "avionics" / "avionics.tmo"
# node, method or gate, kind, criticality, cpu, count, max, bound, deadline, verdict
ROW = re.compile(
    r"^(mission[12])\s+(\S+)\s+(spm|svm|gate|chan)\s+(hard|soft)\s+(\S+)\s+(\d+)\s+(-|\S+ \S+)\s+"
    r"(none|\S+ \S+)\s+(\S+ \S+)\s+(within|ABOVE BOUND|MISSED.*|no bound|not measured)$",
    re.M,
)
ITEMS = 21  # the demo's methods and gates, and the channel mission2 reads

pytestmark = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="the demo needs two CPUs for its two nodes' cores"
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """One run directory for the module: the nodes are built once; none is left running."""
    directory = tmp_path_factory.mktemp("kairos-run") / "run"
    yield directory
    kill_nodes_of(directory)


def kill_nodes_of(run_directory):
    """Nodes kairos run started from `run_directory` and left behind (each has a session of its
    own, so killing kairos's process group does not reach them)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().decode(errors="replace")
        except OSError:
            continue
        if str(run_directory / "build") in command:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


@contextlib.contextmanager
def demo_running(out, *options: str, started_line: str):
    """kairos run of the demo into `out` with `options`, in a session of its own: yields the
    process and what it printed up to `started_line` (its nodes started); at the end kills it and
    its nodes, if still running."""
    process = subprocess.Popen(
        [str(ROOT / "kairos"), "run", str(DEMO), "--share-cpus", "--host-cpus", "0-1", *options,
         "-o", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    try:
        started = time.monotonic()
        seen = ""
        while started_line not in seen:
            line = process.stdout.readline()
            assert line, "kairos run ended before its nodes ran: " + seen + process.stderr.read()
            seen += line
            assert time.monotonic() - started < 300, seen
        yield process, seen
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        kill_nodes_of(out)


def nanos(figure: str) -> int:
    """A duration as the table prints it ("1.577 ms") in nanoseconds."""
    value, unit = figure.split()
    return round(float(value) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit])


def rows(stdout: str) -> dict[str, tuple]:
    return {f"{m[0]}/{m[1]}": m for m in ROW.findall(stdout)}


def test_the_demo_is_refused_on_two_cpus_until_they_are_shared_then_keeps_its_bounds_in_ten_runs(
    workdir, run_dir,
):
    refused = kairos("run", DEMO, "--host-cpus", "0-1", "--duration", "1s", "-o", workdir / "r")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "the nodes on this host have 4 cores and it gives them 2 CPUs (0-1)" in refused.stderr
    assert "--share-cpus" in refused.stderr
    assert not (workdir / "r").exists(), "nothing is built when nothing runs"
    out = run_dir
    if unfit := machine_unfit_for_ideal_bounds():
        pytest.skip(f"the demo's runs are held to ideal-processor bounds: {unfit}")

    # This machine is a virtual machine whose host takes a vCPU away for 1-10 ms now and then,
    # even from SCHED_FIFO lanes, and the demo's hardware names no platform file: its bounds, and
    # its start windows of 1 and 2 ms (sensors.poll, nav.update), are those of an ideal processor,
    # never taken away, with interrupts and the nodes' own triggers, ORB readers and DDS threads at
    # no cost. kairos run says, for each failing method, how much its CPU lost to the machine and
    # what that leaves unexplained (one fresh-clone run: sensors.poll 113 us above its 1.15 ms
    # bound on a CPU that lost 52 us). So a run may fail only in a hard SpM that the run explains
    # so, within its WCET, with no deadline miss, or in a hard gate's answered round trip that the
    # run sets beside what all its CPUs lost (one fresh-clone run: planner.sensors 12.4 us above
    # its 3.76 ms bound), in at most 3 of 10 runs. Everything else is held strictly: every channel
    # within its bound, no late or failed call, first calls included.
    stalled_runs = 0
    for attempt in range(10):
        done = kairos("run", DEMO, "--share-cpus", "--host-cpus", "0-1", "--duration", "1s",
                      "-o", out)
        context = f"run {attempt}:\n{done.stdout}\n{done.stderr}"
        table = rows(done.stdout)
        assert len(table) == ITEMS, context
        # What fails a run is what the run's verdict counts: a hard item (a soft one that came
        # late is what soft means; the lines below still hold its gates to answering).
        failing = {key: row for key, row in table.items() if row[3] == "hard" and row[-1] not in
                   ("within", "no bound", "not measured")}
        if failing and (unfit := machine_unfit_for_ideal_bounds()):
            pytest.skip(f"run {attempt} of the demo, held to ideal-processor bounds: {unfit}")
        for key, row in failing.items():
            node, method = key.split("/")
            assert row[2] in ("spm", "gate") and row[3] == "hard", (key, context)
            where = f"CPU {row[4]}" if row[2] == "spm" else "the run's CPUs"
            stall = re.search(r"^run: %s %s (.+) on %s, which lost (only )?(\S+ \S+|no time) "
                              r"to the machine while the nodes ran: "
                              % (node, re.escape(method), where), done.stdout, re.M)
            assert stall, (key, context)
            if row[2] == "gate":
                # A round trip above its bound: answered (no late call), and said whole below.
                assert row[-1] == "ABOVE BOUND", (key, context)
                covered = stall[2] is None and stall[3] != "no time"
                assert covered == (stall[3] != "no time"
                                   and nanos(row[6]) - nanos(row[7]) <= nanos(stall[3])), context
                continue
            timings = json.loads((out / f"{node}.timings.json").read_text())
            figures = next(m for m in timings["methods"]
                           if f"{m['instance']}.{m['method']}" == method)
            assert figures["deadline_misses"] == 0 and figures["overruns"] == 0, (key, context)
            assert figures["wcet_overruns"] == 0, (key, context)
            if row[-1] == "ABOVE BOUND":
                # Said whole: covered by the time lost, or what the bounds do not charge.
                covered = stall[2] is None and stall[3] != "no time"
                assert covered == (stall[3] != "no time"
                                   and nanos(row[6]) - nanos(row[7]) <= nanos(stall[3])), context
            else:
                assert row[-1].startswith("MISSED"), (key, context)
                assert figures["start_window_misses"] >= 1, (key, context)
        stalled_runs += bool(failing)
        assert done.returncode == (1 if failing else 0), context
        # Both nodes on both CPUs, each band at a host band of its own, one epoch for both.
        starts = re.findall(r"^start: (mission[12]) \(pid \d+\) (.*)$", done.stdout, re.M)
        assert [name for name, _ in starts] == ["mission1", "mission2"], context
        for _, options in starts:
            assert re.search(r"--cpus (0,1|1,0) ", options) and "--band-map " in options, context
        epochs = {re.search(r"--start-at (\d+)", options)[1] for _, options in starts}
        assert len(epochs) == 1, context
        assert "deploy: cores share CPUs; every deadline holds as deployed" in done.stdout
        # First calls included: every gate answered every call, within its bound.
        for key in ["mission2/tracker.navigation", "mission1/planner.sensors",
                    "mission1/hud.tracking", "mission1/nav.update", "mission2/sensors.poll"]:
            assert int(table[key][5]) > 0, (key, context)
        for key in ["mission2/tracker.navigation", "mission1/planner.sensors",
                    "mission1/hud.tracking"]:
            assert table[key][-1] == "within" or key in failing or (
                table[key][3] == "soft" and table[key][-1] in ("ABOVE BOUND", "MISSED (1)")), (
                    key, context)
        # mission1's nav.update publishes the track every 25 ms; tracker.fuse (hard) reads it on
        # mission2 over Cyclone DDS, held to the bound of the holistic analysis.
        track = table["mission2/tracker.track"]
        assert track[2:4] == ("chan", "hard") and int(track[5]) > 0, context  # best-effort
        assert track[-1] == "within", context
        if not failing:
            assert "run: every hard method and gate measured within its bound as deployed\n" in (
                done.stdout)
        # No warning but those of the gates judged above: a soft gate's late call, a hard gate's
        # round trip the run set beside what its CPUs lost.
        said = [key.split("/")[1] for key, row in table.items()
                if row[2] == "gate" and (row[3] == "soft" or key in failing)]
        warnings = [line for line in done.stderr.splitlines() if "warning" in line
                    and not any(f" gate {gate}: " in line for gate in said)]
        assert not warnings, context
    if stalled_runs > 3 and (unfit := machine_unfit_for_ideal_bounds()):
        pytest.skip(f"{stalled_runs} of 10 runs of the demo stalled: {unfit}")
    assert stalled_runs <= 3, f"{stalled_runs} of 10 runs stalled"

    # The last run's page: both nodes' activations drawn and held to their bounds as deployed.
    assert f"run: report: {out / 'report.html'} (the analysis, with the activations measured " \
           "drawn over it)" in done.stdout, done.stdout
    page = (out / "report.html").read_text()
    assert page.count("analysed bound as deployed") == 2, "a measured table per node"
    for node in ["mission1", "mission2"]:
        assert f"<code>{node}.log</code>" in page
        assert re.search(r"^activation .*method=", (out / f"{node}.log").read_text(), re.M)

    for node in ["mission1", "mission2"]:
        timings = json.loads((out / f"{node}.timings.json").read_text())
        assert timings["complete"] is True
        assert all(m["deadline_misses"] == 0 for m in timings["methods"]), timings
        # The summary counts a start window missed as a deadline missed too (not_run=): the
        # stalls the runs above allowed are those, and no activation that ran finished late.
        assert finished_late(parse_summary((out / f"{node}.log").read_text())) == 0


def test_sigterm_stops_every_node_at_a_clean_point_and_the_table_is_still_printed(run_dir):
    out = run_dir
    with demo_running(out, started_line="run: until Ctrl+C or SIGTERM") as (process, seen):
        time.sleep(4)  # the common epoch is two seconds after the start; then a run of two
        process.send_signal(signal.SIGTERM)
        rest, errors = process.communicate(timeout=90)
    stdout = seen + rest
    assert "kairos: SIGTERM: stopping the nodes" in errors
    table = rows(stdout)
    assert len(table) == ITEMS, stdout
    # What the stop is held to: every node stopped by itself and wrote its figures, and the exit
    # code is the table's verdict (the ten timed runs above hold the bounds themselves).
    failing = [key for key, row in table.items()
               if row[3] == "hard" and row[-1].startswith(("MISSED", "ABOVE"))]
    assert process.returncode == (1 if failing else 0), stdout + errors
    assert "killed" not in errors and "ended with exit code" not in errors, errors
    assert int(table["mission1/nav.update"][5]) > 0, stdout
    # The nodes call each other in a cycle and stop at one instant; each still takes in, after its
    # stop, the calls of activations released before it: none fails or comes late (a gate with
    # calls late or failed is MISSED; above its bound is what the timed runs above judge).
    for key in ["mission2/tracker.navigation", "mission1/planner.sensors", "mission1/hud.tracking"]:
        assert not table[key][-1].startswith("MISSED"), (key, stdout)
    assert "(the analysis only: nodes that run longer than a minute print no activation lines" \
        in stdout, stdout
    for node in ["mission1", "mission2"]:
        log = (out / f"{node}.log").read_text()
        assert not re.search(r"^activation ", log, re.M), "a run until stopped prints no activations"
        assert "SIGINT or SIGTERM came: the run ended at the first clean point" in log, log
        assert re.search(r"^summary node=%s " % node, log, re.M), log
        assert json.loads((out / f"{node}.timings.json").read_text())["complete"] is True


def test_a_flood_at_100k_requests_a_second_leaves_no_hard_activation_unrun(run_dir):
    """While the demo runs under kairos run, a client says hello to mission2 over TCP under
    mission1's name and sends sensors.sample requests as fast as 100,000 a second, never waiting
    for a reply. Past 8 refused in a row as beyond mission1's budget its connection is not read
    until the budget takes one again, so the kernel holds the flood back: no hard activation of
    either node is left unrun or late. Before, floods at 64-83 k/s left 42-70 hard activations
    unrun per run on both nodes, and the summaries said deadline_misses=0."""
    report = json.loads(kairos("check", DEMO, "--format", "json").stdout)
    band = next(task["priority"] for n in report["nodes"] if n["node"] == "mission2"
                for task in n["tasks"] if task["name"] == "sensors.sample")
    # No hard activation of either node unrun or late (one is allowed to a host that stalls a
    # vCPU for milliseconds, as the ten runs above allow three). Their start windows of 1 and
    # 2 ms are held to ideal-processor bounds: where this machine now wakes an idle real-time
    # thread later than that allows, the run says nothing of the flood, as for the ten runs.
    # Where the run says the machine took time from the CPU of every method that missed, it is
    # flooded once more: a host that took 240 ms of each CPU in 3 s once made seven miss.
    for attempt in range(2):
        missed, said = flood_the_demo(run_dir, band)
        if len(missed) <= 1:
            return
        if unfit := machine_unfit_for_ideal_bounds():
            pytest.skip(f"{len(missed)} hard activations missed under the flood: {unfit}")
        if not set(missed) <= stalled_methods(said):
            break
        print(f"\n  flood {attempt + 1}: {missed} missed, each on a CPU the machine took time "
              f"from: {said}")
    assert len(missed) <= 1, (missed, said)


# kairos run's line for a method that failed on a CPU the machine took time from.
STALLED = re.compile(r"^run: (\S+) (\S+) \S+ on CPU \d+, which lost (\d+(?:\.\d+)?) ms to the "
                     r"machine while the nodes ran")


def stalled_methods(said: list[str]) -> set[str]:
    """The node/method of every failing method whose CPU lost a millisecond or more to the
    machine, by the run's own lines."""
    return {f"{m[1]}/{m[2]}" for m in map(STALLED.match, said) if m and float(m[3]) >= 1.0}


def flood_the_demo(out, band: int) -> tuple[list[str], list[str]]:
    """One run of the demo under the flood: the hard activations that missed, and the run's own
    lines."""
    attempted = held_back = 0
    with demo_running(out, "--duration", "3s", started_line="run: for 3s") as (process, seen):
        listening_by = time.monotonic() + 10
        while True:  # mission2 listens once set up
            try:
                # mission1's key, as kairos run made it: an insider that floods
                connection = tls_connect(("127.0.0.1", 7002), "mission1", out / "keys", 5)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < listening_by, "mission2 does not listen"
                time.sleep(0.02)
        with connection:
            assert hello_answered(connection, "mission1", band)
            connection.setblocking(False)
            # sensors.sample(channel 0): object 0, operation 0 of mission2
            request = frame(1, band, 1, struct.pack("<B", 0), obj=0, operation=0,
                            budget_ns=4_000_000)
            flood_started = time.monotonic()
            while time.monotonic() - flood_started < 5.5:  # the epoch 2 s on, then 3 s of run
                for _ in range(100):
                    attempted += 1
                    try:
                        connection.send(request)
                    except (BlockingIOError, ssl.SSLWantWriteError):
                        held_back += 1
                    except OSError:
                        break  # mission2 ended
                time.sleep(max(0.0, flood_started + attempted / 100_000 - time.monotonic()))
        rest, errors = process.communicate(timeout=120)
    stdout = seen + rest
    assert attempted >= 200_000 and held_back >= attempted // 2, (attempted, held_back)
    mission2 = (out / "mission2.log").read_text()
    caller = next(dict(item.split("=", 1) for item in line.split()[1:])
                  for line in mission2.splitlines() if line.startswith("orb-caller "))
    assert caller["caller"] == "mission1", caller
    taken = int(caller["requests"]) - int(caller["over_budget"])
    assert int(caller["over_budget"]) <= 8 * (taken + 1), caller  # the rest never read
    missed = hard_spm_misses(out / "mission1.timings.json", out / "mission2.timings.json")
    # What the run said of them (the CPUs' lost time), not its whole output, which is cut.
    return missed, [line for line in stdout.splitlines() if line.startswith("run:")]


def test_the_demos_channel_runs_under_dds_security_and_takes_no_forged_sample(run_dir):
    """kairos run makes the system's keys and starts each node with its DDS Security
    configuration: the track channel from mission1 to mission2 runs as before, and a participant
    without the system's keys that writes forged samples on its topic the whole run gets none
    delivered (without security every one of them reaches mission2's tracker:
    test_dds_security.py)."""
    pytest.importorskip("cyclonedds", reason="the cyclonedds package from PyPI is not installed")
    from test_dds_security import forge

    out = run_dir
    with demo_running(out, "--duration", "3s", started_line="run: for 3s") as (process, seen):
        forged = forge(seconds=8, until=lambda: process.poll() is not None)
        rest, errors = process.communicate(timeout=120)
    stdout = seen + rest
    assert f"channels: DDS Security, the keys in {out / 'keys'}" in stdout, stdout + errors
    assert forged >= 300, forged
    lines = {}
    for node in ["mission1", "mission2"]:
        line = next(line for line in (out / f"{node}.log").read_text().splitlines()
                    if line.startswith("channel ") and " channel=track " in line)
        lines[node] = dict(item.split("=", 1) for item in line.split()[1:])
    published, delivered = int(lines["mission1"]["published"]), int(lines["mission2"]["delivered"])
    assert published >= 100 and 0.8 * published <= delivered <= published, (lines, forged)
    assert rows(stdout)["mission2/tracker.track"][-1] == "within", stdout
