"""Remote calls end to end: the two avionics nodes as two processes that call each other through
their gates (UDS one way, TCP the other), a server node killed and restarted under a client, and
oneway calls to a node listening on UDP."""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (ROOT, build_node_project, built_example, finished_late, kairos,
                      host_taken_ns, parse_activations, parse_summary)

# Every gate of the mission computer: (node, caller.gate) -> (callee, calls per second).
GATES = {
    ("mission1", "planner.sensors"): ("sensors.sample", 10),
    ("mission1", "hud.tracking"): ("tracker.tracks", 5),
    ("mission2", "tracker.navigation"): ("nav.current", 20),
}

GATE_LINE = re.compile(r"^gate (?P<fields>.*)$", re.MULTILINE)


def parse_gates(node: str, stdout: str) -> dict[tuple[str, str], dict[str, str]]:
    gates = {}
    for match in GATE_LINE.finditer(stdout):
        fields = dict(item.split("=", 1) for item in match.group("fields").split())
        assert fields["node"] == node, stdout
        gates[(node, fields["gate"])] = fields
    return gates


@pytest.fixture(scope="module")
def avionics(tmp_path_factory):
    return built_example(tmp_path_factory, "avionics")


def start(build, node, *args, verbose=False):
    return subprocess.Popen(
        [str(build / node), *([] if verbose else ["--quiet"]), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process, timeout=60):
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        pytest.fail(f"node did not end in time\n{stdout}\n{stderr}")
    assert process.returncode == 0, stdout + stderr
    return stdout


def summary_lines(stdout: str) -> str:
    """A node's output without its activation lines."""
    return "\n".join(line for line in stdout.splitlines() if not line.startswith("activation "))


def run_missions(build, seconds: int) -> dict[str, str]:
    """Both mission nodes for `seconds`, together: their outputs."""
    mission2 = start(build, "mission2", "--duration", f"{seconds}s")
    mission1 = start(build, "mission1", "--duration", f"{seconds}s")
    return {"mission1": finish(mission1), "mission2": finish(mission2)}


def missed(outputs: dict[str, str]) -> list[dict[str, str]]:
    """The summaries of the nodes that missed a deadline or a GCT. (Not start windows: the two
    nodes' four cores share this machine's CPUs here, unpinned, where the analysis takes each
    node's processors to be its own, and a window of 1 ms may open while the other node runs;
    tests/e2e/test_measured_within_bounds.py pins them to hold that premise.)"""
    summaries = [parse_summary(stdout) for stdout in outputs.values()]
    return [s for s in summaries if finished_late(s) or s["gct_misses"] != "0"]


def test_the_mission_nodes_call_each_other_through_every_gate(avionics):
    seconds = 3
    # The avionics nodes name no platform file: they are analysed as ideal processors, with
    # milliseconds of slack that only a host taking the processor from the whole machine uses
    # up. A run in which a node missed a deadline or a GCT is played once more; a defect misses
    # both times.
    outputs = run_missions(avionics, seconds)
    if missed(outputs):
        print(f"\n  missed in the first run, played again: {missed(outputs)}")
        outputs = run_missions(avionics, seconds)

    gates = {}
    for node, stdout in outputs.items():
        gates.update(parse_gates(node, stdout))
    assert set(gates) == set(GATES), outputs
    for key, (callee, rate) in GATES.items():
        fields = gates[key]
        assert fields["callee"] == callee
        calls, answered = int(fields["calls"]), int(fields["answered"])
        late, failed = int(fields["late"]), int(fields["failed"])
        # Every call has one outcome; the method calling the gate ran at its rate for the run.
        assert calls == answered + late + failed, fields
        assert calls >= rate * seconds * 0.9, fields
        # The nodes start and stop within a few milliseconds of each other: a call at either
        # edge may find the other's engine not running yet or any more, and is refused. Any
        # other failure would be a defect. A call is late when the host holds the caller's lane
        # past the deadline (a shared machine does now and then): a few may be.
        assert failed <= 4, fields
        assert late <= max(2, calls // 5), fields
        assert 0 < float(fields["max_round_trip_us"]) <= float(fields["deadline_us"]), fields
        assert float(fields["analysed_bound_us"]) <= float(fields["deadline_us"]), fields

    # Each answered call was a request served by the callee's engine, under its GCT.
    served = parse_summary(outputs["mission2"])
    answered_by_mission2 = sum(
        int(gates[k]["answered"]) for k in GATES if k[0] == "mission1"
    )
    assert int(served["requests_served"]) >= answered_by_mission2
    assert not missed(outputs), outputs


def crash_and_restart_server(avionics) -> tuple[str, str, float, dict[int, int]]:
    """mission2 serves sensors.sample to mission1's planner.replan (10 Hz) and tracker.tracks to
    its hud (5 Hz). It crashes (SIGKILL: no orderly close of its connections) about 1.5 s into
    mission1's run, is gone for about a second, and a new one serves for 2 s, while mission1 runs
    throughout. mission1's output, the second mission2's, how long of mission1's run the first
    server was there, and what the host took from each CPU meanwhile."""
    taken_before = host_taken_ns()
    first = start(avionics, "mission2", "--duration", "60s", "--peer-wait", "0s")
    time.sleep(0.2)
    client = start(avionics, "mission1", "--duration", "5s", "--peer-wait", "0s", verbose=True)
    client_started = time.monotonic()
    time.sleep(1.5)
    first.kill()
    killed = time.monotonic()
    first.wait(timeout=60)
    first.stdout.close()
    first.stderr.close()
    assert first.returncode == -signal.SIGKILL, first.returncode
    time.sleep(1.0)
    second = start(avionics, "mission2", "--duration", "2s", "--peer-wait", "0s")
    second_out = finish(second)
    stdout = finish(client)
    taken = {cpu: ns - taken_before.get(cpu, 0) for cpu, ns in host_taken_ns().items()}
    # The host may have stretched the sleep: how long the first server was there is measured.
    return stdout, second_out, killed - client_started, taken


def test_a_client_survives_its_server_dying_and_calls_it_again_once_back(avionics):
    # The crash must disturb no lane of mission1 but the calling ones: its methods keep their
    # deadlines. A host that takes a CPU away for milliseconds makes any run miss, with or
    # without a crash: a run with a miss is played once more, and two fail the test.
    for attempt in range(2):
        stdout, second_out, first_share_s, taken = crash_and_restart_server(avionics)
        late = [a for a in parse_activations(stdout) if a.deadline == "missed"]
        if not late:
            break
        print(f"\n  run {attempt + 1}: {late}; the host took {taken} ns from its CPUs")
    assert not late, (late, taken, summary_lines(stdout))
    assert finished_late(parse_summary(stdout)) == 0, summary_lines(stdout)

    gates = parse_gates("mission1", stdout)
    assert set(gates) == {k for k in GATES if k[0] == "mission1"}, summary_lines(stdout)
    # The gap of about a second fails at least this many calls of each gate.
    for gate, gap_failures in (("planner.sensors", 5), ("hud.tracking", 2)):
        fields, (callee, rate) = gates[("mission1", gate)], GATES[("mission1", gate)]
        assert fields["callee"] == callee, fields
        calls, answered = int(fields["calls"]), int(fields["answered"])
        failed, late = int(fields["failed"]), int(fields["late"])
        assert calls == answered + late + failed, fields
        # The gap made calls fail at once (no connection), never hang until their deadline: they
        # failed, at most a few (the one in flight at the kill, a busy host) were late, and the
        # run kept its rate.
        assert failed >= gap_failures, fields
        assert late <= max(3, calls // 5), fields
        assert calls >= 5 * rate * 0.9, fields
        # More answers than the first server could give: the restarted one answered too.
        assert answered > first_share_s * rate + gap_failures, (first_share_s, fields)
    # mission1 served the restarted mission2's calls (tracker.navigation, 20 Hz for 2 s).
    navigation = parse_gates("mission2", second_out)[("mission2", "tracker.navigation")]
    assert int(navigation["answered"]) >= 2 * 20 * 0.5, navigation


def serve_b_while_a_calls(build) -> str:
    """Runs server node b for 1.5 s and client node a, started 0.1 s later, for 1 s; a's output."""
    server = start(build, "b", "--duration", "1500ms", "--peer-wait", "0s")
    time.sleep(0.1)
    client = start(build, "a", "--duration", "1s")
    client_out = finish(client)
    finish(server)
    return client_out


def activations_that_ran(summary: dict) -> int:
    """The releases of a node's one SpM (every 20 ms, for 1 s) that ran: 50, less those the
    machine made miss their 1 ms start window or overrun (a busy host takes the processor away
    for milliseconds now and then), which the summary counts; most of them must have run."""
    activations = int(summary["activations"])
    assert 49 <= activations <= 51, summary
    ran = activations - int(summary["start_window_misses"]) - int(summary["overruns"])
    assert ran >= 40, summary
    return ran


def checked_by_client(stdout: str) -> dict[str, int]:
    """The line the calls model's client prints as it ends: what each gate's answered calls
    brought as it checked them (results, the declared exception Missing), and how many were
    wrong."""
    lines = [line for line in stdout.splitlines() if line.startswith("client checked ")]
    assert len(lines) == 1, stdout
    return {k: int(v) for k, v in (item.split("=", 1) for item in lines[0].split()[2:])}


def test_blocking_and_non_blocking_gates_carry_in_and_out_arguments(tmp_path):
    # A client calls one server operation through a blocking gate and a non-blocking one (started
    # in one activation, collected in the next), with the keys 0..6 in turn; the server answers
    # with the cube of the key and an out argument, which the client checks, except for key 5,
    # for which it raises the declared exception Missing, naming the key.
    model_dir = ROOT / "tests" / "e2e" / "models" / "calls"
    impl = tmp_path / "impl"
    shutil.copytree(model_dir / "src", impl)
    out = tmp_path / "generated"
    result = kairos("generate", model_dir / "calls.tmo", "-o", out, "--impl", impl)
    assert result.returncode == 0, result.stdout + result.stderr
    build_node_project(out, tmp_path / "build", impl)
    client_out = serve_b_while_a_calls(tmp_path / "build")
    assert "did not answer its request" not in client_out
    gates = parse_gates("a", client_out)
    blocking, later = gates[("a", "client.server")], gates[("a", "client.async")]
    ran = activations_that_ran(parse_summary(client_out))
    checked = checked_by_client(client_out)
    # No result answered another request or came for key 5, no Missing named another key than
    # the one called or came for a stored key.
    assert checked["wrong"] == 0 and checked["wrong_key"] == 0, checked
    for fields, gate in ((blocking, "blocking"), (later, "async")):
        calls, answered = int(fields["calls"]), int(fields["answered"])
        assert calls == answered + int(fields["late"]) + int(fields["failed"])
        assert calls >= ran - 1, fields  # each activation that ran made its calls
        assert int(fields["failed"]) <= 2 and answered >= 0.8 * calls, fields
        # A raised exception is an answer: the gate counts it as answered, the client got it as
        # the typed Missing. Every answered call reached the client as one or the other.
        values, raised = checked[f"{gate}_values"], checked[f"{gate}_raised"]
        assert values + raised == answered, (checked, fields)
        # Key 5 is one call in seven (less those a busy host made late or skipped).
        assert 1 <= raised and answered / 7 - 3 <= raised <= answered / 7 + 3, (checked, fields)


def edf_calls_model(tmp_path, os_name: str):
    """The calls model with node a scheduled by preemptive EDF, running Client and a twin of it
    (the same TMO under another name, whose poll may start up to 5 ms late), every node on
    `os_name`; on sim the nodes form a system, which runs in one process. Returns the generated
    directory and the method bodies'."""
    model_dir = ROOT / "tests" / "e2e" / "models" / "calls"
    impl = tmp_path / "impl"
    shutil.copytree(model_dir / "src", impl)
    for suffix in ("hpp", "cpp"):
        client = (impl / "calls" / f"Client.{suffix}").read_text()
        (impl / "calls" / f"Twin.{suffix}").write_text(client.replace("Client", "Twin"))
    text = (model_dir / "calls.tmo").read_text()
    client_tmo = re.search(r"^tmo Client \{.*?^\}\n", text, re.MULTILINE | re.DOTALL).group(0)
    twin_tmo = client_tmo.replace("tmo Client", "tmo Twin").replace(
        "start-during (t, t + 1 ms)", "start-during (t, t + 5 ms)")
    node_a = 'node a {\n  os linux\n  endpoint "uds:/tmp/kairos-calls-a"\n  deploy Client as client\n}'
    assert node_a in text and twin_tmo != client_tmo
    edf_node_a = node_a.replace("os linux", "os linux\n  scheduling edf").replace(
        "deploy Client as client", "deploy Client as client\n  deploy Twin as twin")
    text = text.replace(client_tmo, client_tmo + "\n" + twin_tmo).replace(node_a, edf_node_a)
    if os_name == "sim":
        text = text.replace("os linux", "os sim") + "\nsystem Calls {\n  nodes a, b;\n}\n"
    model = tmp_path / "calls.tmo"
    model.write_text(text)
    out = tmp_path / "generated"
    result = kairos("generate", model, "-o", out, "--impl", impl)
    assert result.returncode == 0, result.stdout + result.stderr
    # Server band 1 of peer b, from core 0, band 1: the twin's lane is the second of that band.
    routes = re.findall(r"orb\.add_route\(([^)]*)\)", (out / "a.node.cpp").read_text())
    assert routes == ["peer_b, 1, 0, 1", "peer_b, 1, 0, 1, 1"], routes
    return out, impl


def test_each_lane_of_a_preemptive_edf_node_calls_on_a_connection_of_its_own(tmp_path):
    # Each poll has a lane of its own in node a's one band. While one waits for its reply the
    # other runs and calls the same server, on a connection of its own; one connection shared by
    # both lanes would mix their replies.
    out, impl = edf_calls_model(tmp_path, "linux")
    build_node_project(out, tmp_path / "build", impl)
    client_out = serve_b_while_a_calls(tmp_path / "build")
    assert "did not answer its request" not in client_out, client_out
    gates = parse_gates("a", client_out)
    summary = parse_summary(client_out)
    ran = int(summary["activations"]) - int(summary["start_window_misses"]) - int(summary["overruns"])
    assert 2 * 49 <= int(summary["activations"]) <= 2 * 51, summary  # two polls every 20 ms, 1 s
    # Half the releases at least: on a host busier than the model's processor (other programs on
    # its CPUs) both polls lose start windows (21 of 100 seen, load average 2 on 2 CPUs).
    assert ran >= 50, summary
    for instance in ("client", "twin"):
        for gate in ("server", "async"):
            fields = gates[("a", f"{instance}.{gate}")]
            calls = int(fields["calls"])
            assert calls == int(fields["answered"]) + int(fields["late"]) + int(fields["failed"])
            # Half its 50 releases at least: on a host busier than the model's own processor one
            # poll may lose more releases than the other (36 of 50 seen with both together
            # running 80 of 100); which lane calls on which connection is what is checked here.
            assert calls >= 25, fields
            assert int(fields["failed"]) <= 2 and int(fields["answered"]) >= 0.8 * calls, fields
    # On one CPU of several while the kernel's deadline admission control is on, its deadline
    # lanes would run on every CPU, ahead of other nodes' lanes: the node refuses to start.
    if deadline_admission_control_on() and len(os.sched_getaffinity(0)) > 1:
        refused = subprocess.run([str(tmp_path / "build" / "a"), "--cpu", "0", "--duration", "1s"],
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "kernel.sched_rt_runtime_us=-1" in refused.stderr, refused.stderr
        assert "activation " not in refused.stdout, refused.stdout


def deadline_admission_control_on() -> bool:
    try:
        return Path("/proc/sys/kernel/sched_rt_runtime_us").read_text().strip() != "-1"
    except OSError:
        return True


def test_a_preemptive_edf_node_calls_gates_on_sim_exactly(tmp_path):
    # The same system on sim, in one process and virtual time: every call of both lanes is
    # answered, each blocking one within the round trip kairos check bounds, the same every run.
    out, impl = edf_calls_model(tmp_path, "sim")
    build_node_project(out, tmp_path / "build", impl)
    runs = [subprocess.run([str(tmp_path / "build" / "Calls"), "--duration", "1s", "--quiet"],
                           capture_output=True, text=True, timeout=120) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stdout + runs[0].stderr
    assert runs[0].stdout == runs[1].stdout, "two runs of one system differ"
    stdout = runs[0].stdout
    assert "did not answer its request" not in stdout, stdout
    gates = parse_gates("a", stdout)  # b calls nothing: every gate line is a's
    for instance in ("client", "twin"):
        blocking, later = gates[("a", f"{instance}.server")], gates[("a", f"{instance}.async")]
        # 50 activations in 1 s; the non-blocking call of the last is still in flight at the end.
        assert (blocking["calls"], blocking["answered"]) == ("50", "50"), blocking
        assert (later["calls"], later["answered"]) == ("49", "49"), later
        assert float(blocking["max_round_trip_us"]) <= float(blocking["analysed_bound_us"]), blocking
    summaries = [dict(item.split("=", 1) for item in line.split()[1:])
                 for line in stdout.splitlines() if line.startswith("summary ")]
    a, b = (next(s for s in summaries if s["node"] == n) for n in ("a", "b"))
    assert a["activations"] == "100" and finished_late(a) == 0, a
    assert b["requests_served"] == "200" and b["gct_misses"] == "0", b


def test_oneway_gates_reach_a_node_listening_on_udp(tmp_path):
    # Node a's SpM sends a oneway note every 20 ms to node b, which listens on udp:: each note is
    # one datagram to the port of the recorder's band, never answered.
    model_dir = ROOT / "tests" / "e2e" / "models" / "oneway"
    impl = tmp_path / "impl"
    shutil.copytree(model_dir / "src", impl)
    out = tmp_path / "generated"
    result = kairos("generate", model_dir / "oneway.tmo", "-o", out, "--impl", impl)
    assert result.returncode == 0, result.stdout + result.stderr
    build_node_project(out, tmp_path / "build", impl)
    server = start(tmp_path / "build", "b", "--duration", "1500ms")
    time.sleep(0.1)
    client = start(tmp_path / "build", "a", "--duration", "1s")
    client_out = finish(client)
    server_out = finish(server)
    assert "not sent" not in client_out, client_out
    assert "without a sequence number" not in server_out, server_out
    note = parse_gates("a", client_out)[("a", "source.recorder")]
    calls = int(note["calls"])
    assert calls >= activations_that_ran(parse_summary(client_out)) - 1, note
    assert int(note["answered"]) == calls, note  # a oneway is over once sent
    served = parse_summary(server_out)
    # Every note arrived and was served by the recorder's SvM (loopback loses none at 50 Hz).
    assert int(served["requests_served"]) >= calls - 2, server_out
    assert served["gct_misses"] == "0", server_out
