"""A LAN on one machine (tools/lan, docs/lan.md): the link emulator's behaviour (order, delay,
bandwidth, bad arguments) and the avionics mission computer with each node in a network namespace
of its own, talking TCP across the model's link (`make demo-lan` in short).

Namespace tests skip where namespaces are not permitted; each makes namespaces of a unique name
and removes them in finally. Bounds are generous: figures live in the demo and bench/."""

import statistics
import subprocess
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT / "tools" / "lan"))
import demo_lan  # noqa: E402
import lan as lans  # noqa: E402

MS = 1000.0  # microseconds


def require_namespaces():
    permitted, why = lans.namespaces_permitted()
    if not permitted:
        pytest.skip(f"network namespaces are not permitted here: {why}")


def emulator():
    path = lans.emulator_path()
    if path is None:
        pytest.fail("kairos-link-emulator is not built: run `make cpp` first")
    return path


# ---- the emulator's arguments ----------------------------------------------------------------

@pytest.mark.parametrize("arguments, message", [
    ([], "--between <if-a> <if-b> is required"),
    (["--between", "a"], "--between needs two interface names"),
    (["--between", "a", "a"], "--between needs two different interfaces"),
    (["--between", "a", "b", "--latency", "5 parsecs"],
     "--latency is not a time with a unit (ns, us, ms, s): '5 parsecs'"),
    (["--between", "a", "b", "--bandwidth", "fast"],
     "--bandwidth is not a rate with a unit (bps, Kbps, Mbps, Gbps): 'fast'"),
    (["--between", "a", "b", "--distribution", "pareto"],
     "--distribution is uniform or normal, not 'pareto'"),
    (["--between", "a", "b", "--latency", "10us", "--jitter", "20us"],
     "is larger than --latency"),
    (["--between", "a", "b", "--limit", "0"], "--limit is a number of frames from 1 to 4096"),
    (["--between", "a", "b", "--bogus"], "unknown option '--bogus'"),
])
def test_the_link_emulator_refuses_bad_arguments_clearly(arguments, message):
    result = run([emulator(), *arguments], check=False, timeout=10)
    assert result.returncode == 2, result
    assert message in result.stderr, result.stderr
    assert "terminate" not in result.stderr


def test_the_link_emulator_says_which_interface_is_missing():
    result = run([emulator(), "--between", "kairos-none0", "kairos-none1"], check=False,
                 timeout=10)
    assert result.returncode == 1
    assert "no interface 'kairos-none0' here" in result.stderr


def test_the_lan_link_is_the_model_network_block():
    model = (demo_lan.EXAMPLE / demo_lan.MODEL_NAME).read_text()
    assert demo_lan.network_between(model, "mission1", "mission2") == lans.LinkSpec(
        100.0, 50.0, 100_000_000)
    with pytest.raises(ValueError, match="no network block of the model connects"):
        demo_lan.network_between(model, "mission1", "nowhere")


def test_the_lan_model_differs_from_the_example_only_in_endpoints(tmp_path):
    model = demo_lan.lan_model(demo_lan.EXAMPLE, tmp_path,
                               {"mission1": "10.231.0.1", "mission2": "10.231.0.2"})
    original = (demo_lan.EXAMPLE / demo_lan.MODEL_NAME).read_text().splitlines()
    copied = model.read_text().splitlines()
    # Same lines, so every source= reference of the nodes points at the example's line.
    changed = [(a, b) for a, b in zip(original, copied) if a != b]
    assert [b.strip().split("//")[0].strip() for _, b in changed] == [
        'endpoint "tcp:10.231.0.1:7001"', 'endpoint "tcp:10.231.0.2:7002"']
    assert all(line.startswith("//") for line in copied[len(original):] if line)
    assert (tmp_path / "model" / "src").is_dir()  # the method bodies come along


# ---- the emulated link -----------------------------------------------------------------------

SENDER = """
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
count, size = int(sys.argv[3]), int(sys.argv[4])
for k in range(count):
    body = bytes([k % 251]) * (size - 12)
    s.sendto(struct.pack("!IQ", k, time.monotonic_ns()) + body, (sys.argv[1], int(sys.argv[2])))
"""

RECEIVER = """
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE (root): keep every datagram
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(5)
print("ready", flush=True)
for _ in range(int(sys.argv[3])):
    try:
        data = s.recv(2048)
    except socket.timeout:
        break
    k, sent = struct.unpack("!IQ", data[:12])
    intact = int(data[12:] == bytes([k % 251]) * (len(data) - 12))
    print(k, sent, time.monotonic_ns(), len(data), intact, flush=True)
"""


def send_across(lan, count: int, size: int) -> list[tuple[int, float, float]]:
    """`count` numbered UDP datagrams of `size` bytes from node a to node b, back to back;
    returns (number, sent us, received us) in the order received (both ends read the host's
    one monotonic clock), after checking that each arrived whole and unchanged."""
    b = lan.node("b").address
    receiver = subprocess.Popen(lan.exec("b", sys.executable, "-c", RECEIVER, b, 7391, count),
                                stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout.readline().strip() == "ready"
        # One datagram first so the ARP exchange is done before the timed burst.
        run(lan.exec("a", sys.executable, "-c", SENDER, b, 7392, 1, 64), timeout=30)
        run(lan.exec("a", sys.executable, "-c", SENDER, b, 7391, count, size), timeout=30)
        output, _ = receiver.communicate(timeout=30)
    finally:
        if receiver.poll() is None:
            receiver.kill()
            receiver.wait()
    rows = [line.split() for line in output.splitlines()]
    assert all(int(length) == size and intact == "1" for *_, length, intact in rows), rows
    return [(int(k), int(sent) / 1000, int(got) / 1000) for k, sent, got, _, _ in rows]


def test_the_emulated_link_delays_every_frame_in_order_within_latency_and_jitter():
    require_namespaces()
    lan = lans.make_lan(["a", "b"], lans.LinkSpec(2000, 1000), mode="emulator")
    try:
        received = send_across(lan, 200, 100)
        measured = lan.stop_link()
    finally:
        lans.remove_lan(lan)
    assert not lans.leftover_namespaces(lan)
    assert lan.mode == "emulator" and "kairos-link-emulator" in lan.describe()
    # Every datagram, in the order sent: jitter never reorders frames.
    assert [k for k, _, _ in received] == list(range(200))
    delays = [got - sent for _, sent, got in received]
    # Nothing arrives before latency - jitter; the spread shows the jitter was drawn.
    assert min(delays) >= 1 * MS, delays
    assert max(delays) - min(delays) >= 0.3 * MS, delays
    assert statistics.fmean(delays) < 50 * MS, delays
    assert measured["link"]["mode"] == "emulator"
    assert int(measured["a->b"]["frames"]) >= 200, measured
    assert int(measured["a->b"]["dropped_queue_full"]) == 0, measured
    assert float(measured["lateness"]["p50_us"]) < 1 * MS, measured


def test_the_emulated_link_serialises_frames_at_its_bandwidth():
    require_namespaces()
    # 50 datagrams of 1200 bytes (1242 on the wire) at 10 Mbps: at least 994 us apart.
    lan = lans.make_lan(["a", "b"], lans.LinkSpec(100, 0, 10_000_000), mode="emulator")
    try:
        received = send_across(lan, 50, 1200)
    finally:
        lans.remove_lan(lan)
    assert [k for k, _, _ in received] == list(range(50))
    spread_us = received[-1][2] - received[0][2]
    assert spread_us >= 0.8 * 49 * 1242 * 8 / 10, spread_us  # the emulator cannot send early


def test_the_emulated_link_carries_more_than_its_queue_holds_unchanged():
    require_namespaces()
    # 3,000 frames of 1,242 bytes: 3.7 MB through a queue of 2 MiB per direction, so its
    # storage wraps around; every datagram must arrive once, whole and in order.
    lan = lans.make_lan(["a", "b"], lans.LinkSpec(100, 50), mode="emulator")
    try:
        received = send_across(lan, 3000, 1200)
        measured = lan.stop_link()
    finally:
        lans.remove_lan(lan)
    assert [k for k, _, _ in received] == list(range(3000))
    assert int(measured["a->b"]["bytes"]) >= 3000 * 1242, measured


# ---- the mission computer on the LAN ---------------------------------------------------------

SKEW_US = 3000


def test_the_mission_computer_runs_across_the_lan_within_its_analysed_bounds(tmp_path):
    require_namespaces()
    link = demo_lan.network_between(
        (demo_lan.EXAMPLE / demo_lan.MODEL_NAME).read_text(), *demo_lan.NODES)
    lan = lans.make_lan(list(demo_lan.NODES), link)
    try:
        model = demo_lan.lan_model(demo_lan.EXAMPLE, tmp_path,
                                   {n.name: n.address for n in lan.nodes})
        build, _ = demo_lan.generate_and_build(model, tmp_path)
        runs = demo_lan.run_nodes(build, lan, 4, {"mission2": ["--clock-skew", f"{SKEW_US}us"]})
        measured = lan.stop_link()
        shown = demo_lan.report(lan, runs, measured, 4)
    finally:
        lans.remove_lan(lan)
    assert not lans.leftover_namespaces(lan)
    for node in runs.values():
        assert node.returncode == 0, (node.name, node.stdout[-2000:], node.stderr)

    # What the user-space link emulator was late itself, beyond the model's latency and jitter, in
    # this run: the analysis cannot know it, so each crossing of the link may add it (none under
    # netem).
    emulator_late_us = float(measured.get("lateness", {}).get("max_us", 0))
    gates = {gate["gate"]: gate for gate in demo_lan.gate_rows(runs)}
    assert set(gates) == {"hud.tracking", "planner.sensors", "tracker.navigation"}, shown
    for name, gate in gates.items():
        calls, answered = int(gate["calls"]), int(gate["answered"])
        assert calls > 0 and answered >= max(1, calls // 4), gate
        # Every answered round trip within its analysed bound: the chain's request and reply
        # crossed the link once each.
        assert (float(gate["max_round_trip_us"])
                <= float(gate["analysed_bound_us"]) + 2 * emulator_late_us), (gate, shown)
        # A call left unanswered past its deadline (the peer not yet up, or gone at the end of the
        # run) is said to be over the bound.
        line = next(line for line in shown.splitlines() if line.strip().startswith(name))
        assert demo_lan.within_bound(gate) or "OVER the analysed bound" in line, line
        # It crossed the link: at least the latency both ways.
        assert float(gate["max_round_trip_us"]) >= 2 * link.latency_us - 2 * link.jitter_us, gate

    # nav's track samples reach mission2's tracker over DDS across the namespaces, each no older on
    # delivery than the analysed bound.
    channels = {(c["node"], c["channel"]): c for c in demo_lan.channel_rows(runs)}
    assert set(channels) == {("mission2", "track")}, shown
    track = channels[("mission2", "track")]
    assert int(track["delivered"]) > 0, shown
    assert (float(track["delivery_max_us"])
            <= float(track["analysed_bound_us"]) + emulator_late_us), (track, shown)
    line = next(line for line in shown.splitlines() if line.strip().startswith("track "))
    assert demo_lan.channel_within_bound(track) or "OVER the analysed bound" in line, line

    follower = runs["mission2"].lines("clock")
    assert len(follower) == 1 and follower[0]["synchronised"] == "yes", runs["mission2"].stdout
    assert abs(float(follower[0]["offset_us"]) - SKEW_US) < 1 * MS, follower
    master = runs["mission1"].lines("clock")
    assert master and master[0]["role"] == "master", runs["mission1"].stdout

    assert f"link: {lan.describe()}" in shown
    if lan.mode == "emulator":
        assert int(measured["a->b"]["frames"]) > 0 and int(measured["b->a"]["frames"]) > 0
        assert "link emulator's own lateness" in shown
