"""DDS Security from the model, end to end: `kairos keys` makes the avionics system's CA, a key and
certificate per node and the signed governance and permissions documents (only mission1, whose
nav.update publishes the track channel, may publish its topic; only mission2, whose tracker reads
it, may read it). With them the two nodes' channel runs through Cyclone DDS's security plugins
(authenticated, access-controlled, encrypted), and a participant without them, which feeds an
unprotected mission2 hundreds of forged samples, gets none of them delivered. Everything stays on
loopback in the DDS domain of this run (conftest.py)."""

import os
import re
import subprocess
import time
from dataclasses import dataclass

import pytest

from conftest import ROOT, built_example, kairos

MODEL = ROOT / "examples" / "avionics" / "avionics.tmo"

cyclonedds = pytest.importorskip(
    "cyclonedds", reason="the cyclonedds package from PyPI is not installed: run scripts/setup-tests.sh"
)
from cyclonedds.core import Policy, Qos  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.idl import IdlStruct  # noqa: E402
from cyclonedds.idl.annotations import final  # noqa: E402
from cyclonedds.idl.types import bounded_str, float32, float64, sequence, uint32  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402


# The payload of the track channel, as the channels.idl Kairos emits for the model has it.
@final
@dataclass
class Waypoint(IdlStruct, typename="avionics::Waypoint"):
    lat: float64
    lon: float64
    alt: float32


@final
@dataclass
class NavState(IdlStruct, typename="avionics::NavState"):
    lat: float64
    lon: float64
    alt: float32
    leg: uint32
    route: sequence[Waypoint, 16]
    label: bounded_str[32]


@pytest.fixture(scope="module")
def avionics(tmp_path_factory):
    return built_example(tmp_path_factory, "avionics")


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    directory = tmp_path_factory.mktemp("keys")
    made = kairos("keys", MODEL, "-o", directory)
    assert made.returncode == 0, made.stdout + made.stderr
    return directory, made.stdout


def track_line(stdout: str) -> dict[str, str]:
    line = next(line for line in stdout.splitlines() if line.startswith("channel ")
                and " channel=track " in line)
    return dict(item.split("=", 1) for item in line.split()[1:])


def forge(seconds: float, until=lambda: False) -> int:
    """Writes forged NavState samples on the track channel's topic every 5 ms for `seconds` (or
    until `until()`), as a participant with no identity in this run's DDS domain: how many."""
    participant = DomainParticipant(int(re.search(r'Domain Id="(\d+)"',
                                                  os.environ["CYCLONEDDS_URI"])[1]))
    writer = DataWriter(participant, Topic(participant, "avionics_track", NavState),
                        qos=Qos(Policy.Reliability.BestEffort))
    forged = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end and not until():
        writer.write(NavState(lat=89.0, lon=179.0, alt=1e4, leg=99, route=[], label="forged"))
        forged += 1
        time.sleep(0.005)
    return forged


def run_with_forger(avionics, secured_by=None) -> tuple[dict, dict, int]:
    """mission2 and mission1 for 3 s, each with its node's DDS Security configuration from
    `secured_by` (or none), while a participant with no identity publishes forged NavState
    samples on the track channel's topic every 5 ms: the two nodes' track lines and how many
    forged samples were written."""
    def started(node: str, seconds: int) -> subprocess.Popen:
        env = dict(os.environ)
        if secured_by is not None:
            env["CYCLONEDDS_URI"] += f",file://{secured_by}/{node}.cyclonedds.xml"
        return subprocess.Popen([str(avionics / node), "--quiet", "--duration", f"{seconds}s"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)

    mission2 = started("mission2", 4)
    mission1 = started("mission1", 3)
    try:
        forged = forge(3.5)
        stdout1, stderr1 = mission1.communicate(timeout=60)
        stdout2, stderr2 = mission2.communicate(timeout=60)
    finally:
        for process in (mission1, mission2):
            if process.poll() is None:
                process.kill()
    assert mission1.returncode == 0 and mission2.returncode == 0, stderr1 + stderr2
    return track_line(stdout1), track_line(stdout2), forged


def test_keys_are_made_from_the_model_and_the_permissions_are_its_channels(keys):
    directory, said = keys
    for name in ["ca.pem", "governance.p7s", "mission1.pem", "mission1.key",
                 "mission1.permissions.p7s", "mission2.cyclonedds.xml"]:
        assert (directory / name).is_file(), name
    assert oct((directory / "mission1.key").stat().st_mode & 0o777) == "0o600"
    assert "node mission1: " in said and "publishes avionics_track, reads nothing" in said
    assert "publishes nothing, reads avionics_track" in said
    mission1 = (directory / "mission1.permissions.xml").read_text()
    assert "<subject_name>CN=mission1</subject_name>" in mission1
    assert "<publish><topics><topic>avionics_track</topic></topics></publish>" in mission1
    assert "<subscribe>" not in mission1 and "<default>DENY</default>" in mission1
    # Signed by the system CA: OpenSSL verifies each document against it.
    for document in ["governance.p7s", "mission1.permissions.p7s", "mission2.permissions.p7s"]:
        verified = subprocess.run(
            ["openssl", "smime", "-verify", "-in", directory / document, "-CAfile",
             directory / "ca.pem", "-out", os.devnull], capture_output=True, text=True)
        assert verified.returncode == 0, verified.stderr
    # Made again, the CA is kept and the nodes' keys are made anew under it.
    ca = (directory / "ca.pem").read_text()
    again = kairos("keys", MODEL, "-o", directory)
    assert again.returncode == 0 and "(kept)" in again.stdout, again.stdout + again.stderr
    assert (directory / "ca.pem").read_text() == ca


def test_a_participant_without_the_systems_keys_cannot_feed_a_secured_channel(avionics, keys):
    # Without security anyone in the domain feeds mission2's tracker: it delivers the forged
    # samples with mission1's (the test's control: the forger's samples do reach a reader).
    track1, track2, forged = run_with_forger(avionics)
    assert forged >= 300 and int(track2["delivered"]) > int(track1["published"]) + 100, (
        track1, track2, forged)
    # With the keys kairos made: mission1's samples delivered, none of the forger's.
    directory, _ = keys
    track1, track2, forged = run_with_forger(avionics, directory)
    published, delivered = int(track1["published"]), int(track2["delivered"])
    assert forged >= 300, forged
    assert 0.8 * published <= delivered <= published, (track1, track2, forged)
    # Through the security plugins' encryption, still within the channel's analysed bound.
    assert float(track2["delivery_max_us"]) <= float(track2["analysed_bound_us"]), track2
