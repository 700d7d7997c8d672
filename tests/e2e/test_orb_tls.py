"""Authenticated tcp: endpoints, end to end: the demo's mission2 takes only connections that
prove, by TLS 1.3 with a certificate of the system's CA, the node their hello names. Python's ssl
module (OpenSSL) is the other side: a standard TLS 1.3 client interoperates with the node's record
layer, and whoever lacks a node's key gets no connection."""

import socket
import ssl
import struct
import subprocess
import time

import pytest

from conftest import ROOT, built_example, make_keystore, tls_connect
from test_attacks import MISSION2, frame, hello_answered
from test_verdicts_hold import analysed, fields_of


@pytest.fixture(scope="module")
def avionics(tmp_path_factory):
    return built_example(tmp_path_factory, "avionics")


def started_mission2(avionics, seconds: str) -> subprocess.Popen:
    return subprocess.Popen([str(avionics / "mission2"), "--quiet", "--duration", seconds,
                             "--peer-wait", "0s"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def connected(make, within_s: float = 10):
    """`make()`'s connection once mission2 listens."""
    give_up = time.monotonic() + within_s
    while True:
        try:
            return make()
        except ConnectionRefusedError:
            assert time.monotonic() < give_up, "mission2 does not listen"
            time.sleep(0.02)


def reply_to(connection, request_id: int) -> bytes:
    """The reply frame with `request_id` (header and body)."""
    data = b""
    while True:
        while len(data) < 32:
            chunk = connection.recv(4096)
            assert chunk, "mission2 ended the connection"
            data += chunk
        size = struct.unpack_from("<I", data, 8)[0]
        while len(data) < 32 + size:
            data += connection.recv(4096)
        reply, data = data[:32 + size], data[32 + size:]
        if struct.unpack_from("<I", reply, 12)[0] == request_id:
            return reply


def test_a_standard_tls_client_with_a_nodes_key_calls_and_no_one_else_gets_a_connection(
        avionics, tmp_path, test_keystore):
    """mission2 of the demo runs with the session's keys. A Python ssl client with mission1's key
    says hello as mission1 and calls sensors.sample: answered. A client in the clear, one whose
    mission1 certificate another CA signed, and one with a key of the CA for another node that
    says hello as mission1 get no connection, and mission2 counts those that reached it as
    unauthenticated."""
    report = analysed(ROOT / "examples" / "avionics" / "avionics.tmo")
    band = next(task["priority"] for n in report["nodes"] if n["node"] == "mission2"
                for task in n["tasks"] if task["name"] == "sensors.sample")
    foreign = make_keystore(tmp_path / "foreign", ["mission1"])
    mission2 = started_mission2(avionics, "4s")
    try:
        # The node itself, by a standard client: TLS 1.3, AES-128-GCM, its hello, its call.
        with connected(lambda: tls_connect(MISSION2, "mission1", timeout=3)) as insider:
            assert insider.version() == "TLSv1.3"
            assert insider.cipher()[0] == "TLS_AES_128_GCM_SHA256"
            assert insider.getpeercert(binary_form=True), "mission2 proved no certificate"
            assert hello_answered(insider, "mission1", band)
            time.sleep(2.2)  # mission2's epoch: a request before it waits for it
            insider.sendall(frame(1, band, 7, struct.pack("<B", 0), obj=0, operation=0,
                                  budget_ns=100_000_000))  # sensors.sample(channel 0)
            reply = reply_to(insider, 7)
            assert reply[7] == 0, reply[:32]  # ReplyStatus::kOk
            assert len(reply) > 32, "an answered sample has a body"

        # In the clear: the hello is no TLS handshake.
        with socket.create_connection(MISSION2, timeout=3) as clear:
            assert not hello_answered(clear, "mission1", band)
        # mission1's name under another CA: mission2 does not accept its certificate (and this
        # client does not accept mission2's: its handshake fails first).
        with pytest.raises(ssl.SSLError, match="certificate verify failed"):
            tls_connect(MISSION2, "mission1", foreign, 3)
        # A node of the CA (the keystore's "sensor") that says it is mission1.
        with tls_connect(MISSION2, "sensor", timeout=3) as liar:
            assert not hello_answered(liar, "mission1", band)
    finally:
        stdout, stderr = mission2.communicate(timeout=60)
    assert mission2.returncode == 0, stderr
    (orb,) = fields_of("orb", stdout)
    assert int(orb["unauthenticated"]) >= 2, orb
    assert int(orb["requests"]) >= 1, orb
    assert "its hello names node 'mission1', its certificate node 'sensor'" in stderr, stderr


def test_a_node_without_its_keys_says_how_to_give_them_and_does_not_start(avionics, monkeypatch):
    """mission2's tcp: endpoint is authenticated: without --keys or KAIROS_KEYS it refuses to
    start and says what to do; with keys of a directory that has none of its own, it says which
    file is missing."""
    monkeypatch.delenv("KAIROS_KEYS")
    done = subprocess.run([str(avionics / "mission2"), "--duration", "1s"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0
    assert "give it its keys with --keys DIR or KAIROS_KEYS=DIR" in done.stderr, done.stderr
    assert "security none;" in done.stderr, done.stderr
    bad = subprocess.run([str(avionics / "mission2"), "--duration", "1s", "--keys", "/nonexistent"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "--keys /nonexistent: cannot read /nonexistent/ca.pem" in bad.stderr, bad.stderr
