"""RMMC channels on Eclipse Cyclone DDS, end to end: a generated Linux node publishes a channel
(whose payload has fields named like IDL keywords) and a Python subscriber (the `cyclonedds` package from PyPI, types written here to match the IDL
Kairos emits) receives every field; a Python publisher feeds a channel the node reads (taken in
DDS's listener) and one the node publishes too (taken by the node's hub, which feeds the same
reader with the node's own samples); and the avionics mission computer replicates navigation's
state from mission1 to mission2's tracker.
Everything stays on loopback in a DDS domain of this run (conftest.py sets CYCLONEDDS_URI).

The payload has fixed arrays (of doubles and of structs), whose type objects Debian's Cyclone DDS
0.10.2 (the node's) and the PyPI package's Cyclone 11 exchange while they match.
"""

import re
import subprocess
import time
from dataclasses import dataclass

import pytest

from conftest import ROOT, build_node_project, copy_example, kairos, run

cyclonedds = pytest.importorskip(
    "cyclonedds", reason="the cyclonedds package from PyPI is not installed: run scripts/setup-tests.sh"
)
from cyclonedds.core import Policy, Qos  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.idl import IdlEnum, IdlStruct  # noqa: E402
from cyclonedds.idl.annotations import final  # noqa: E402
from cyclonedds.idl.types import (  # noqa: E402
    array,
    bounded_str,
    float32,
    float64,
    int16,
    sequence,
    uint16,
    uint32,
)
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402

MODEL = """package probe

enum Mode { IDLE, TRACKING }
struct Point { double x; double y; }
struct Fix {
  uint32 seq; double lat; float alt; int16 delta; bool valid; string<12> label;
  sequence<Point, 4> trail; Mode state; uint16 port; bool local; double cov[3]; Point corners[2];
}

tmo Beacon {
  ods { segment s { uint32 count; } }
  eac { channel fixes : rmmc<Fix> reliable depth 8; channel beats : rmmc<Point> reliable depth 8; }
  spm emit for t = from 0 s to forever every 10 ms start-during (t, t + 2 ms) finish-by t + 8 ms
    wcet 100 us criticality hard uses s write publishes fixes, beats;
}

tmo Listener {
  ods { segment heard { uint32 orders; double last_x; } }
  eac { channel orders : rmmc<Point> reliable depth 4; channel beats : rmmc<Point> reliable depth 8; }
  spm hear for t = from 0 s to forever every 10 ms start-during (t, t + 2 ms) finish-by t + 8 ms
    wcet 100 us criticality soft uses heard write reads orders, beats;
}

node beacon { os linux scheduling rms deploy Beacon as b deploy Listener as l }
"""

BEACON_HPP = """#pragma once
#include "probe/Beacon.base.hpp"
namespace probe {
class Beacon final : public BeaconBase {
 private:
  void emit(EmitAccess ods, EmitChannels channels) override;
};
}  // namespace probe
"""

# Sample n carries values the subscriber can recompute from its seq alone.
BEACON_CPP = """#include "probe/Beacon.hpp"
namespace probe {
void Beacon::emit(EmitAccess ods, EmitChannels channels) {
  const ::std::uint32_t n = ods.s.count++;
  Fix fix{};
  fix.seq = n;
  fix.lat = 48.0 + 0.5 * n;
  fix.alt = 100.0F + static_cast<float>(n % 50);
  fix.delta = static_cast<::std::int16_t>(-static_cast<int>(n % 1000));
  fix.valid = n % 2 == 0;
  fix.label.assign(n % 2 == 0 ? "even" : "odd");
  for (::std::uint32_t k = 0; k < n % 5; ++k) {
    fix.trail.push_back(Point{1.0 * k, -1.0 * n});
  }
  fix.state = n % 3 == 0 ? Mode::TRACKING : Mode::IDLE;
  fix.port = static_cast<::std::uint16_t>(7400 + n % 100);
  fix.local = n % 4 == 0;
  fix.cov[0] = 0.25 * n;
  fix.cov[2] = -1.0;
  fix.corners[1] = Point{2.0, 1.0 * n};
  channels.fixes.publish(fix);
  channels.beats.publish(Point{static_cast<double>(n), 0.0});
}
}  // namespace probe
"""

LISTENER_HPP = """#pragma once
#include "probe/Listener.base.hpp"
namespace probe {
class Listener final : public ListenerBase {
 private:
  void hear(HearAccess ods, HearChannels channels) override;
};
}  // namespace probe
"""

LISTENER_CPP = """#include "probe/Listener.hpp"
namespace probe {
void Listener::hear(HearAccess ods, HearChannels channels) {
  ::kairos::channel::Sample<Point> order;
  while (channels.orders.take(order)) {
    ++ods.heard.orders;
    ods.heard.last_x = order.value.x;
  }
  ::kairos::channel::Sample<Point> beat;
  while (channels.beats.take(beat)) {
  }
}
}  // namespace probe
"""


class Mode(IdlEnum, typename="probe::Mode"):
    IDLE = 0
    TRACKING = 1


@dataclass
@final
class Point(IdlStruct, typename="probe::Point"):
    x: float64
    y: float64


@dataclass
@final
class Fix(IdlStruct, typename="probe::Fix"):
    seq: uint32
    lat: float64
    alt: float32
    delta: int16
    valid: bool
    label: bounded_str[12]
    trail: sequence[Point, 4]
    state: Mode
    port: uint16
    local: bool
    cov: array[float64, 3]
    corners: array[Point, 2]


def expected_fix(n: int) -> Fix:
    return Fix(
        seq=n,
        lat=48.0 + 0.5 * n,
        alt=100.0 + n % 50,
        delta=-(n % 1000),
        valid=n % 2 == 0,
        label="even" if n % 2 == 0 else "odd",
        trail=[Point(x=1.0 * k, y=-1.0 * n) for k in range(n % 5)],
        state=Mode.TRACKING if n % 3 == 0 else Mode.IDLE,
        port=7400 + n % 100,
        local=n % 4 == 0,
        cov=[0.25 * n, 0.0, -1.0],
        corners=[Point(x=0.0, y=0.0), Point(x=2.0, y=1.0 * n)],
    )


def channel_lines(stdout: str) -> dict[str, dict[str, str]]:
    lines = {}
    for line in stdout.splitlines():
        if line.startswith("channel "):
            fields = dict(pair.split("=", 1) for pair in line.split()[1:])
            lines[fields["channel"]] = fields
    return lines


@pytest.fixture(scope="module")
def beacon(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("beacon")
    (workdir / "probe.tmo").write_text(MODEL)
    impl = workdir / "src" / "probe"
    impl.mkdir(parents=True)
    (impl / "Beacon.hpp").write_text(BEACON_HPP)
    (impl / "Beacon.cpp").write_text(BEACON_CPP)
    (impl / "Listener.hpp").write_text(LISTENER_HPP)
    (impl / "Listener.cpp").write_text(LISTENER_CPP)
    out = workdir / "generated"
    result = kairos("generate", workdir / "probe.tmo", "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    build_node_project(out, workdir / "build")
    return workdir


def test_the_emitted_idl_names_each_payload_struct_in_its_package_module(beacon):
    idl = (beacon / "generated" / "channels.idl").read_text()
    assert "module probe {" in idl
    assert "@final struct Fix {" in idl and "sequence<::probe::Point, 4> trail;" in idl
    assert "string<12> label;" in idl
    assert "enum Mode { IDLE, TRACKING };" in idl
    # IDL keywords (`port`, `local`) are written escaped; IDL reads them without the underscore.
    assert "unsigned short _port;" in idl and "boolean _local;" in idl


def test_each_read_channel_is_taken_from_dds_by_its_readers_one_producer(beacon):
    node = (beacon / "generated" / "beacon.node.cpp").read_text()
    delivery = dict(re.findall(
        r"add_reader\(kChannels\[\d+\], [\w:]+, &on_dds::receive_(\w+), nullptr,\s*"
        r"::kairos::channel::dds::Delivery::(\w+)\)", node))
    # Only other nodes publish `orders`: DDS's listener feeds its reader. The node publishes
    # `beats` itself: its hub feeds the reader with both.
    assert delivery == {"orders": "kInListener", "beats": "kOnHub"}, delivery


def test_a_python_subscriber_receives_the_nodes_samples_field_by_field(beacon):
    participant = DomainParticipant()
    reliable = Qos(Policy.Reliability.Reliable(max_blocking_time=0), Policy.History.KeepLast(64))
    reader = DataReader(participant, Topic(participant, "probe_fixes", Fix), qos=reliable)
    writer = DataWriter(participant, Topic(participant, "probe_orders", Point), qos=reliable)
    beats = DataWriter(participant, Topic(participant, "probe_beats", Point), qos=reliable)
    node = subprocess.Popen(
        [beacon / "build" / "beacon", "--duration", "3s", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    received = []
    try:
        # Bounded: at most 10 s, whatever the node does.
        deadline = time.monotonic() + 10
        sent = 0
        while node.poll() is None and time.monotonic() < deadline:
            received.extend(reader.take(N=64))
            if sent < 50:
                writer.write(Point(x=float(sent), y=0.5))
                beats.write(Point(x=-1.0 - sent, y=0.5))
                sent += 1
            time.sleep(0.02)
        stdout, stderr = node.communicate(timeout=30)
    finally:
        if node.poll() is None:
            node.kill()
            node.communicate()
    received.extend(reader.take(N=64))
    assert node.returncode == 0, stdout + stderr
    # When the node ends, its writer's end arrives as an invalid sample (no data): not a Fix.
    received = [sample for sample in received if isinstance(sample, Fix)]

    # Discovery takes a moment: the first samples may be gone, but most of 3 s of 100 Hz arrive,
    # in order, each exactly as the node made it.
    assert len(received) >= 100, f"{len(received)} samples\n{stdout}\n{stderr}"
    seqs = [fix.seq for fix in received]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    for fix in received:
        assert fix == expected_fix(fix.seq)

    lines = channel_lines(stdout)
    fixes = lines["fixes"]
    assert fixes["topic"] == "probe_fixes"
    assert int(fixes["published"]) >= len(received)
    # The reverse direction: what the Python publisher wrote reached the node's reader.
    orders = lines["orders"]
    assert int(orders["delivered"]) >= 10, stdout
    assert int(orders["published"]) == 0
    # A channel the node publishes and Python too: the reader gets the node's own samples (one
    # delivery each, but for an edge when the run ends) and Python's as well.
    beats_line = lines["beats"]
    assert int(beats_line["published"]) >= 100, stdout
    assert int(beats_line["delivered"]) >= int(beats_line["published"]) - 2 + 10, stdout


def test_the_avionics_tracker_fuses_navigations_samples_over_dds(tmp_path):
    example = copy_example("avionics", tmp_path)
    out = tmp_path / "generated"
    result = kairos("generate", example / "avionics.tmo", "-o", out)
    assert result.returncode == 0, result.stderr
    build_node_project(out, tmp_path / "build")
    mission2 = subprocess.Popen(
        [tmp_path / "build" / "mission2", "--duration", "3s", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ran1 = run([tmp_path / "build" / "mission1", "--duration", "3s", "--quiet"], timeout=60)
        out2, err2 = mission2.communicate(timeout=60)
    finally:
        if mission2.poll() is None:
            mission2.kill()
            mission2.communicate()
    track1 = channel_lines(ran1.stdout)["track"]
    track2 = channel_lines(out2)["track"]
    # nav.update publishes at 40 Hz for 3 s; tracker.fuse takes the newest at 20 Hz (depth 1).
    assert 100 <= int(track1["published"]) <= 125, ran1.stdout
    assert int(track2["delivered"]) >= 50, out2 + err2
    assert int(track2["published"]) == 0
    # How old each sample was on delivery, by DDS's source timestamps: measured, and, as no sample
    # older than its 50 ms validity is delivered, below it.
    ages = [float(track2[f"delivery_{k}_us"]) for k in ("p50", "p99", "max")]
    assert 0 < ages[0] <= ages[1] <= ages[2] < 50_000, track2
