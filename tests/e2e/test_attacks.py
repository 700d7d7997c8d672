"""What a node withstands from whoever reaches it, end to end: the avionics nodes as processes on
loopback, attacked within a bounded count and time."""

import fcntl
import os
import socket
import subprocess
import time

import pytest

from conftest import built_example, parse_summary
from test_remote_calls import parse_gates

MISSION2 = ("127.0.0.1", 7002)  # examples/avionics: node mission2's endpoint


@pytest.fixture(scope="module")
def avionics(tmp_path_factory):
    return built_example(tmp_path_factory, "avionics")


def full_pipe() -> tuple[int, int]:
    """A pipe filled to the brim, which nobody will read: a process whose error stream it is
    blocks at its first write there, unless it never writes there itself."""
    read_end, write_end = os.pipe()
    flags = fcntl.fcntl(write_end, fcntl.F_GETFL)
    fcntl.fcntl(write_end, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    fcntl.fcntl(write_end, fcntl.F_SETFL, flags)
    return read_end, write_end


def refused_connections(address, count: int, within_s: float) -> int:
    """`count` connections that each send garbage instead of a hello (each makes the node warn
    and close it), spread over at most `within_s`; how many were made."""
    made = 0
    deadline = time.monotonic() + within_s
    while made < count and time.monotonic() < deadline:
        try:
            with socket.create_connection(address, timeout=0.5) as connection:
                connection.sendall(os.urandom(64))
            made += 1
        except OSError:
            time.sleep(0.01)  # not listening yet, or its backlog is full for a moment
        time.sleep(within_s / count / 2)
    return made


def test_a_node_whose_error_stream_nobody_reads_serves_its_calls_and_ends_on_time(avionics):
    """Each garbage connection makes mission2 warn on its error stream, a pipe that is full and
    never read. Its threads never wait for it: the calls mission1 makes are answered as on any run,
    and mission2 ends on time, its summary counting the warnings it could not write."""
    read_end, write_end = full_pipe()
    try:
        started = time.monotonic()
        mission2 = subprocess.Popen(
            [str(avionics / "mission2"), "--quiet", "--duration", "3s"],
            stdout=subprocess.PIPE, stderr=write_end, text=True,
        )
        mission1 = subprocess.Popen(
            [str(avionics / "mission1"), "--quiet", "--duration", "2s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        os.close(write_end)
        write_end = -1
        made = refused_connections(MISSION2, count=400, within_s=2.5)
        try:
            stdout2, _ = mission2.communicate(timeout=30)
            stdout1, stderr1 = mission1.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            mission2.kill()
            mission1.kill()
            pytest.fail("a node did not end: it waits for an error stream nobody reads")
        took = time.monotonic() - started
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)

    assert made >= 100, f"only {made} garbage connections were made"
    assert mission2.returncode == 0, stdout2
    assert mission1.returncode == 0, stdout1 + stderr1
    # Its run of 3 s, the peers' meeting and set-up: not the 25 s and more it took when a full
    # error stream held its acceptor and its readers.
    assert took < 15, f"mission2 took {took:.1f} s"
    summary = parse_summary(stdout2)
    assert int(summary["log_drops"]) > 0, summary  # over 100 warnings a second, and none written
    # mission1's calls to mission2 were answered as on any run (test_remote_calls.py's bound).
    fields = parse_gates("mission1", stdout1)[("mission1", "planner.sensors")]
    calls = int(fields["calls"])
    assert calls >= 15, fields
    assert int(fields["failed"]) <= 2 and int(fields["answered"]) >= 0.8 * calls, fields
