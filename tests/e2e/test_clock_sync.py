"""Clock synchronisation end to end: a model whose system has a clock-sync, generated and built,
its two nodes run as two processes, the follower's clock skewed by --clock-skew (both read the
host's one monotonic clock, so the skew is the offset to find). Over loopback always; in two
network namespaces joined by a veth pair (bench/clock_sync.py's LAN) where namespaces are
permitted, over the link of 100 us latency and 50 us jitter (netem, or the link emulator where the
kernel has no netem: tools/lan/lan.py). Bounds are generous: accuracy figures live in bench/clock_sync.py."""

import statistics
import sys

import pytest

from conftest import ROOT, run

sys.path.insert(0, str(ROOT / "bench"))
import clock_sync  # noqa: E402  (the bench's model, LAN and runner)

SKEW = "5ms"
SKEW_NS = 5_000_000
MILLISECOND_NS = 1_000_000


@pytest.fixture(scope="module")
def loopback_nodes(tmp_path_factory):
    return clock_sync.build_nodes(tmp_path_factory.mktemp("clock-loopback"), "tcp:127.0.0.1:7361")


def check_synchronised(result: clock_sync.Run) -> None:
    follower = result.follower
    assert follower["role"] == "follower", follower
    assert follower["master"] == "reference", follower
    assert follower["synchronised"] == "yes", result.follower_stdout
    assert int(follower["rounds"]) >= 3, follower
    assert int(follower["exchanges"]) > 0, follower
    offset_ns = float(follower["offset_us"]) * 1000
    assert abs(offset_ns - SKEW_NS) < MILLISECOND_NS, follower
    assert 0 < float(follower["error_bound_us"]) * 1000 < MILLISECOND_NS, follower
    errors = result.errors_us(SKEW_NS)
    assert errors, result.follower_stdout
    assert statistics.fmean(errors) < 1000, errors
    # The master answered every exchange the follower counted.
    reference = [line for line in result.reference_stdout.splitlines() if line.startswith("clock ")]
    assert len(reference) == 1, result.reference_stdout
    answered = int(clock_sync.fields(reference[0].split(" ", 1)[1])["answered"])
    assert answered >= int(follower["exchanges"]), (reference, follower)


def test_over_loopback_the_follower_finds_its_skew(loopback_nodes):
    check_synchronised(clock_sync.run_nodes(loopback_nodes, 3, SKEW, None))


def test_a_node_rejects_a_malformed_clock_skew(loopback_nodes):
    result = run([loopback_nodes / "follower", "--clock-skew", "5 parsecs"], check=False)
    assert result.returncode == 2
    assert "--clock-skew '5 parsecs' is not a time with a unit" in result.stderr
    assert "Traceback" not in result.stderr and "terminate" not in result.stderr


def test_in_two_network_namespaces_the_follower_finds_its_skew(tmp_path):
    permitted, why = clock_sync.namespaces_permitted()
    if not permitted:
        pytest.skip(f"network namespaces are not permitted here: {why}")
    lan = clock_sync.make_lan(100, 50)
    try:
        build = clock_sync.build_nodes(tmp_path, f"tcp:{lan.node('reference').address}:7362")
        check_synchronised(clock_sync.run_nodes(build, 8, SKEW, lan))
        if lan.mode == "emulator":
            measured = lan.stop_link()
            assert int(measured["lateness"]["frames"]) > 0, measured
    finally:
        clock_sync.remove_lan(lan)
    assert not clock_sync.lans.leftover_namespaces(lan)
