"""The avionics system on sim as one process: both nodes, each on virtual processors of its own,
call each other over the model's network (latency, seeded jitter, bandwidth) in virtual time. A
run is exact: the same output every time, every call answered, no miss, and every round trip
carries the modelled latency both ways and stays within the bound `kairos check` computed."""

import json
import re

import pytest

from conftest import build_node_project, copy_example, kairos, parse_activations, run

SECONDS = 3
# Every gate of the mission computer: (node, caller.gate) -> (callee, calls per second).
GATES = {
    ("mission1", "planner.sensors"): ("sensors.sample", 10),
    ("mission1", "hud.tracking"): ("tracker.tracks", 5),
    ("mission2", "tracker.navigation"): ("nav.current", 20),
}
# Which node serves each callee.
SERVED_BY = {"sensors.sample": "mission2", "tracker.tracks": "mission2", "nav.current": "mission1"}


def lines(kind: str, stdout: str) -> dict[str, dict[str, str]]:
    """The `summary` or `clock` lines by node, or the `gate` lines by (node, gate)."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith(kind + " "):
            fields = dict(item.split("=", 1) for item in line.split()[1:])
            key = fields["node"] if kind != "gate" else (fields["node"], fields["gate"])
            found[key] = fields
    return found


@pytest.fixture(scope="module")
def avionics_on_sim(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("simsys")
    example = copy_example("avionics", workdir)
    model = example / "avionics.tmo"
    text = model.read_text()
    assert text.count("os linux") == 2
    model.write_text(text.replace("os linux", "os sim"))
    latency = re.search(r"network lan \{\s*latency (\d+) us;\s*jitter (\d+) us;", text)
    assert latency, "the avionics network's latency and jitter are written in us"
    out = workdir / "generated"
    generated = kairos("generate", model, "-o", out)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert (out / "Avionics.system.cpp").is_file()
    build_node_project(out, workdir / "build")
    return workdir / "build" / "Avionics", int(latency.group(1)), int(latency.group(2))


def test_the_avionics_system_runs_in_one_process_exactly_the_same_every_time(avionics_on_sim):
    system, latency_us, _ = avionics_on_sim
    first = run([system, "--duration", f"{SECONDS}s"], timeout=120)
    second = run([system, "--duration", f"{SECONDS}s"], timeout=120)
    assert first.stdout == second.stdout, "two runs of one system differ"
    assert first.stderr == "", first.stderr  # every node met its peers before the run

    gates = lines("gate", first.stdout)
    assert set(gates) == set(GATES), first.stdout
    served = {"mission1": 0, "mission2": 0}
    for key, (callee, rate) in GATES.items():
        fields = gates[key]
        assert fields["callee"] == callee
        # Every release of the calling method called once, and every call was answered in time.
        assert int(fields["calls"]) == rate * SECONDS, fields
        assert int(fields["answered"]) == int(fields["calls"]), fields
        assert fields["late"] == "0" and fields["failed"] == "0", fields
        # A round trip crosses the network twice: at least the latency each way, and never
        # beyond what the analysis bounds it by (network both ways plus the callee's response).
        round_trip = float(fields["max_round_trip_us"])
        assert 2 * latency_us <= round_trip <= float(fields["analysed_bound_us"]), fields
        served[SERVED_BY[callee]] += int(fields["answered"])

    summaries = lines("summary", first.stdout)
    assert set(summaries) == {"mission1", "mission2"}, first.stdout
    activations = parse_activations(first.stdout)
    for node, summary in summaries.items():
        assert summary["scheduling"] == "simulated", summary
        for count in ("start_window_misses", "deadline_misses", "overruns", "trace_drops",
                      "requests_refused", "gct_misses"):
            assert summary[count] == "0", summary
        # Each request the node served was a call of another node's gate, and nothing else.
        assert int(summary["requests_served"]) == served[node], summary
        # Activation lines name their node; the summary counts that node's lines.
        own = [line for line in first.stdout.splitlines()
               if line.startswith(f"activation node={node} ")]
        assert int(summary["activations"]) == len(own) > 0, summary
    assert len(activations) == sum(int(s["activations"]) for s in summaries.values())
    # One epoch for the whole system: both nodes release their first methods at 0.
    for node in summaries:
        first_release = min(
            int(re.search(r" release_ns=(\d+) ", line).group(1))
            for line in first.stdout.splitlines()
            if line.startswith(f"activation node={node} ")
        )
        assert first_release == 0, node


def test_the_follower_keeps_the_masters_time_within_the_modelled_jitter(avionics_on_sim):
    system, latency_us, jitter_us = avionics_on_sim
    result = run([system, "--duration", f"{SECONDS}s", "--quiet"], timeout=120)
    clocks = lines("clock", result.stdout)
    assert set(clocks) == {"mission1", "mission2"}, result.stdout
    master, follower = clocks["mission1"], clocks["mission2"]
    assert master["role"] == "master" and follower["role"] == "follower", clocks
    assert follower["master"] == "mission1" and follower["synchronised"] == "yes", follower
    # A round at once, then one a second (the model's period), each a burst of exchanges.
    assert int(follower["rounds"]) >= SECONDS and follower["failed"] == "0", follower
    assert int(master["answered"]) == int(follower["exchanges"]) > 0, clocks
    # Both nodes run on one virtual clock: the true offset is 0, and the estimate is off by at
    # most half the difference of the two directions' jitters (and of their messages'
    # serialisation at the link's bandwidth: a few microseconds).
    serialisation_us = 10
    assert abs(float(follower["offset_us"])) <= jitter_us / 2 + serialisation_us, follower
    assert abs(float(follower["offset_us"])) <= float(follower["error_bound_us"]), follower
    round_trip = float(follower["max_round_trip_us"])
    assert 2 * latency_us <= round_trip <= 2 * (latency_us + jitter_us) + serialisation_us


def test_the_seed_draws_the_jitter_and_nothing_else(avionics_on_sim):
    system, _, _ = avionics_on_sim
    one = run([system, "--duration", f"{SECONDS}s", "--quiet", "--seed", "1"], timeout=120)
    default = run([system, "--duration", f"{SECONDS}s", "--quiet"], timeout=120)
    other = run([system, "--duration", f"{SECONDS}s", "--quiet", "--seed", "2"], timeout=120)
    assert one.stdout == default.stdout, "the default seed is 1"
    assert other.stdout != one.stdout, "another seed draws other jitters"
    for key in GATES:
        a, b = lines("gate", one.stdout)[key], lines("gate", other.stdout)[key]
        assert (a["calls"], a["answered"]) == (b["calls"], b["answered"]), (a, b)
    assert not parse_activations(one.stdout), "--quiet prints no activation lines"


def test_the_system_program_explains_bad_arguments(avionics_on_sim):
    system, _, _ = avionics_on_sim
    helped = run([system, "--help"])
    assert "--seed <n>" in helped.stdout
    for args in (["--seed", "minus"], ["--duration", "3"], ["--cpus", "0,1"]):
        refused = run([system, *args], check=False)
        assert refused.returncode == 2, args
        assert "error:" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr


def test_navigations_track_channel_reaches_the_tracker_over_the_simulated_link(avionics_on_sim):
    system, latency_us, jitter_us = avionics_on_sim
    ran = run([system, "--duration", f"{SECONDS}s", "--quiet"], timeout=120)
    channels = {}
    for line in ran.stdout.splitlines():
        if line.startswith("channel "):
            fields = dict(item.split("=", 1) for item in line.split()[1:])
            channels[fields["node"]] = fields
    assert set(channels) == {"mission1", "mission2"}, ran.stdout
    published = int(channels["mission1"]["published"])
    # nav.update publishes at 40 Hz; over the 100 us link every sample arrives well within its
    # 50 ms validity, but the last ones may still be in flight when the run ends.
    assert published == 40 * SECONDS, channels
    delivered = int(channels["mission2"]["delivered"])
    assert published - 2 <= delivered <= published, channels
    assert channels["mission2"]["dropped_late"] == "0", channels
    # tracker.fuse takes only the newest at 20 Hz (depth 1): it skips about every other sample.
    skipped = int(channels["mission2"]["dropped_overflow"])
    assert delivered - skipped <= 20 * SECONDS + 1, channels
    assert channels["mission1"]["delivered"] == "0" and channels["mission2"]["published"] == "0"
    # A sample is as old, when the tracker's reader gets it, as the link's latency (and a seeded
    # share of its jitter) plus the wait for mission1's hub, which sends only when no lane of its
    # processor has work (nav.update's own 1.5 ms first): never as old as its 50 ms validity.
    ages = [float(channels["mission2"][f"delivery_{k}_us"]) for k in ("p50", "p99", "max")]
    assert latency_us + 1500 <= ages[0] <= ages[1] <= ages[2] < 50_000, channels
    # ... and never older than the holistic analysis's bound on its delivery (the chain's deliver
    # hop), which the node prints beside it; mission1 only publishes, so no chain ends there.
    assert ages[2] <= float(channels["mission2"]["analysed_bound_us"]), channels
    assert channels["mission1"]["analysed_bound_us"] == "none", channels


def test_the_system_writes_each_nodes_timings_for_calibrate(avionics_on_sim, tmp_path):
    system, _, _ = avionics_on_sim
    model = system.parent.parent / "avionics" / "avionics.tmo"
    directory = tmp_path / "timings"
    directory.mkdir()
    ran = run([system, "--duration", f"{SECONDS}s", "--quiet", "--timings", directory], timeout=120)
    files = sorted(directory.iterdir())
    assert [f.name for f in files] == ["mission1.timings.json", "mission2.timings.json"], ran.stdout
    for file in files:
        measured = json.loads(file.read_text())
        node = file.name.split(".")[0]
        assert measured["node"] == node and measured["complete"] is True, measured
        assert measured["execution_clock"] == "modelled", measured
        spms = [m for m in measured["methods"] if m["kind"] == "spm"]
        assert spms, measured
        for row in spms:
            # On sim a method computes exactly its row's WCET each time it runs.
            assert row["execution"]["count"] > 0, row
            assert row["execution"]["max_ns"] == row["wcet_ns"], row
            assert row["response"]["max_ns"] <= row["deadline_ns"], row
            assert row["wcet_overruns"] == 0, row

    # A row's WCET is what its method computes, without the waits of the gates it calls
    # (hud.survey: 500 us declared, up to 40 ms waiting on its tracking gate, which is no
    # processor time), so with no margin every measured method is at its declared WCET and the
    # analysis is the declared one.
    calibrated = kairos("calibrate", model, *files, "--margin", "0%", "--format", "json")
    assert calibrated.returncode == 0, calibrated.stdout + calibrated.stderr
    report = json.loads(calibrated.stdout)
    assert [r["node"] for r in report["runs"]] == ["mission1", "mission2"], report["runs"]
    assert report["within_bounds"] and report["schedulable_measured"], report
    survey = next(r for r in report["methods"] if r["instance"] == "hud" and r["method"] == "survey")
    assert survey["execution"]["max_ns"] == survey["declared_wcet_ns"] == 500_000, survey
    assert all(r["verdict"] in ("ok", "not-measured") for r in report["methods"]), report


def test_the_system_refuses_a_timings_directory_that_does_not_exist(avionics_on_sim, tmp_path):
    system, _, _ = avionics_on_sim
    refused = run([system, "--timings", tmp_path / "missing"], check=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "--timings" in refused.stderr and "no such directory" in refused.stderr, refused.stderr
