#!/usr/bin/env python3
"""RMMC channel latency over Eclipse Cyclone DDS: one publisher node and 1, 4 and 16 subscriber
nodes on this host, beside Cyclone's own `ddsperf` ping-pong of the same payload size in the
same run.

One generated model per subscriber count: node `source` publishes a 64-byte sample (a uint64
sequence number and seven doubles) every --period on channel `feed` from an SpM whose body does
nothing else; each node `sinkK` reads the channel. Every node is its own process, as on separate
machines; they meet through DDS discovery. Each subscriber's `channel` line says how old its
samples were when its hub handed them to the reader (docs/channels.md): publication on the
source's lane -> the source's hub -> DDS -> the subscriber's hub -> the reader's history. The
baseline is `ddsperf ping` against as many `ddsperf pong` processes, at the same rate and
payload size: its round trip halved is DDS's own one-way latency between two processes here.

    python3 bench/channels.py                       # 1, 4, 16 subscribers, 5 s each
    python3 bench/channels.py --subscribers 4 --seconds 20
    python3 bench/channels.py --json build/bench/channels.json

Needs `make java cpp` (the kairos command and the runtime in build/prefix) and Debian's
cyclonedds-dev and cyclonedds-tools (idlc, ddsperf), which `make setup` installs.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KAIROS = ROOT / "kairos"
PREFIX = ROOT / "build" / "prefix"
PAYLOAD_BYTES = 64

MODEL_HEAD = """package chbench

struct Reading {   // 64 bytes in CDR: what ddsperf's `size 64` carries
  uint64 seq;
  double v1;
  double v2;
  double v3;
  double v4;
  double v5;
  double v6;
  double v7;
}

tmo Source {
  ods { segment sent { uint64 count; } }
  eac { channel feed : rmmc<Reading> best-effort validity 100 ms fan-out @FANOUT@; }
  spm publish
    for t = from 0 s to forever every @PERIOD@
    start-during (t, t + 1 ms) finish-by t + 5 ms
    wcet 200 us criticality hard
    uses sent write publishes feed;
}

node source {
  os linux
  deploy Source as source
}
"""

SINK_TMO = """tmo @SINK@ {
  ods { segment seen { uint64 count; } }
  eac { channel feed : rmmc<Reading> best-effort validity 100 ms fan-out @FANOUT@; }
  spm drain
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 5 ms) finish-by t + 50 ms
    wcet 500 us criticality soft
    uses seen write reads feed;
}
"""

SOURCE_HPP = """// chbench/Source.hpp -- the benchmark's publisher (bench/channels.py).
#pragma once

#include "chbench/Source.base.hpp"

namespace chbench {

class Source final : public SourceBase {
 private:
  void publish(PublishAccess ods, PublishChannels channels) override;
};

}  // namespace chbench
"""

SOURCE_CPP = """// chbench/Source.cpp -- publishes one sample per activation and does nothing else.
#include "chbench/Source.hpp"

namespace chbench {

void Source::publish(PublishAccess ods, PublishChannels channels) {
  Reading reading{};
  reading.seq = ++ods.sent.count;
  reading.v1 = static_cast<double>(reading.seq);
  channels.feed.publish(reading);
}

}  // namespace chbench
"""

SINK_HPP = """// chbench/Sink.hpp -- a subscriber of the benchmark (bench/channels.py).
#pragma once

#include "chbench/Sink.base.hpp"

namespace chbench {

class Sink final : public SinkBase {
 private:
  void drain(DrainAccess ods, DrainChannels channels) override;
};

}  // namespace chbench
"""

SINK_CPP = """// chbench/Sink.cpp -- takes what came; the hub has measured its age already.
#include "chbench/Sink.hpp"

namespace chbench {

void Sink::drain(DrainAccess ods, DrainChannels channels) {
  ::kairos::channel::Sample<Reading> sample{};
  while (channels.feed.take(sample)) {
    ++ods.seen.count;
  }
}

}  // namespace chbench
"""


def model_text(subscribers: int, period_ms: int) -> str:
    text = MODEL_HEAD.replace("@FANOUT@", str(max(subscribers, 1))).replace(
        "@PERIOD@", f"{period_ms} ms")
    # A TMO is deployed once in a system: each subscriber node deploys a class of its own.
    sinks = [f"sink{k}" for k in range(1, subscribers + 1)]
    for k, sink in enumerate(sinks, start=1):
        text += "\n" + SINK_TMO.replace("@SINK@", f"Sink{k}").replace(
            "@FANOUT@", str(subscribers))
        text += f"\nnode {sink} {{\n  os linux\n  deploy Sink{k} as {sink}\n}}\n"
    # One host's loopback, as the analysis should see it: a fraction of a millisecond.
    text += ("\nnetwork host {\n  latency 100 us;\n  jitter 100 us;\n  bandwidth 1000 Mbps;\n"
             f"  connects source, {', '.join(sinks)};\n}}\n")
    return text


def run_checked(command: list, cwd: Path | None = None) -> None:
    result = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True,
                            timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{result.stdout}\n"
                           f"{result.stderr}")


def build_nodes(workdir: Path, subscribers: int, period_ms: int) -> Path:
    """Writes the model with `subscribers` sink nodes and its method bodies, generates and builds
    it; returns the build directory (one program per node)."""
    impl = workdir / "impl" / "chbench"
    impl.mkdir(parents=True, exist_ok=True)
    (impl / "Source.hpp").write_text(SOURCE_HPP)
    (impl / "Source.cpp").write_text(SOURCE_CPP)
    for k in range(1, subscribers + 1):
        (impl / f"Sink{k}.hpp").write_text(SINK_HPP.replace("Sink", f"Sink{k}"))
        (impl / f"Sink{k}.cpp").write_text(SINK_CPP.replace("Sink", f"Sink{k}"))
    model = workdir / "chbench.tmo"
    model.write_text(model_text(subscribers, period_ms))
    generated = workdir / "generated"
    run_checked([KAIROS, "generate", model, "-o", generated, "--impl", workdir / "impl"])
    run_checked(["cmake", "-S", generated, "-B", workdir / "build", "-G", "Ninja",
                 f"-DCMAKE_PREFIX_PATH={PREFIX}", f"-DKAIROS_IMPL_DIR={workdir / 'impl'}"])
    run_checked(["cmake", "--build", workdir / "build"])
    return workdir / "build"


def fields(line: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in line.split()[1:])


def channel_line(stdout: str) -> dict[str, str]:
    for line in stdout.splitlines():
        if line.startswith("channel "):
            return fields(line)
    raise RuntimeError(f"no channel line in:\n{stdout}")


def finish(process: subprocess.Popen, timeout: float) -> str:
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise RuntimeError(f"a node did not end in time:\n{stdout}\n{stderr}")
    if process.returncode != 0:
        raise RuntimeError(f"a node failed ({process.returncode}):\n{stdout}\n{stderr}")
    return stdout


def kairos_run(build: Path, subscribers: int, seconds: float) -> dict:
    """Runs the sinks, then the source for `seconds`; each sink's delivery figures."""
    discovery_s = 1.5
    sink_seconds = seconds + 2 * discovery_s
    sinks = [subprocess.Popen([str(build / f"sink{k}"), "--quiet", "--duration",
                               f"{int(sink_seconds * 1000)}ms"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k in range(1, subscribers + 1)]
    time.sleep(discovery_s)
    source = subprocess.run([str(build / "source"), "--quiet", "--duration",
                             f"{int(seconds * 1000)}ms"], capture_output=True, text=True,
                            timeout=seconds + 60)
    if source.returncode != 0:
        raise RuntimeError(f"source failed:\n{source.stdout}\n{source.stderr}")
    published = int(channel_line(source.stdout)["published"])
    lines = [channel_line(finish(sink, sink_seconds + 60)) for sink in sinks]
    return {
        "published": published,
        "delivered": [int(line["delivered"]) for line in lines],
        "p50_us": [float(line["delivery_p50_us"]) for line in lines],
        "p99_us": [float(line["delivery_p99_us"]) for line in lines],
        "max_us": [float(line["delivery_max_us"]) for line in lines],
    }


DDSPERF_LINE = re.compile(
    r"size (?P<size>\d+) mean (?P<mean>[\d.]+)us min [\d.]+us 50% (?P<p50>[\d.]+)us "
    r"90% [\d.]+us 99% (?P<p99>[\d.]+)us max (?P<max>[\d.]+)us cnt (?P<cnt>\d+)")


def ddsperf_run(subscribers: int, seconds: float, period_ms: int) -> dict:
    """ddsperf ping at the same rate and size against `subscribers` pong processes: its round
    trips per pong, over the whole run (each reporting second weighed by its count)."""
    pongs = [subprocess.Popen(["ddsperf", "-D", str(int(seconds + 4)), "pong"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(subscribers)]
    try:
        time.sleep(1.0)
        ping = subprocess.run(["ddsperf", "-D", str(int(seconds)), "ping",
                               f"{1000 // period_ms}Hz", "size", str(PAYLOAD_BYTES)],
                              capture_output=True, text=True, timeout=seconds + 60)
    finally:
        for pong in pongs:
            pong.wait(timeout=seconds + 30)
    matches = [m for m in DDSPERF_LINE.finditer(ping.stdout) if int(m["cnt"]) > 0]
    if not matches:
        raise RuntimeError(f"ddsperf printed no latency:\n{ping.stdout}\n{ping.stderr}")
    # Every reporting second of every pong: its median and 99th percentile, weighed by count.
    weights = [int(m["cnt"]) for m in matches]
    return {
        "samples": sum(weights),
        "rtt_p50_us": weighted_median([float(m["p50"]) for m in matches], weights),
        "rtt_p99_us": max(float(m["p99"]) for m in matches),
        "rtt_max_us": max(float(m["max"]) for m in matches),
    }


def weighted_median(values: list[float], weights: list[int]) -> float:
    pairs = sorted(zip(values, weights))
    half, seen = sum(weights) / 2, 0
    for value, weight in pairs:
        seen += weight
        if seen >= half:
            return value
    return pairs[-1][0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--period-ms", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if any(n < 1 or n > 16 for n in args.subscribers) or args.seconds <= 0 or not (
            1 <= args.period_ms <= 1000):
        parser.error("subscribers 1..16, seconds > 0, period 1..1000 ms")
    for tool in ("ddsperf", "idlc"):
        if shutil.which(tool) is None:
            print(f"channels: `{tool}` is missing (Debian cyclonedds-tools): run `make setup`",
                  file=sys.stderr)
            return 2
    if not (PREFIX / "lib" / "cmake" / "Kairos").is_dir():
        print("channels: the runtime is not in build/prefix: run `make java cpp`", file=sys.stderr)
        return 2

    results = []
    print(f"channel latency, {PAYLOAD_BYTES}-byte samples every {args.period_ms} ms, "
          f"{args.seconds:g} s per run, one host ({os.cpu_count()} CPUs)")
    print(f"{'subs':>4}  {'kairos p50':>10} {'p99':>8} {'max':>8} {'delivered':>9}   "
          f"{'ddsperf rtt/2 p50':>17} {'p99':>8} {'max':>8}   {'kairos/dds p50':>14}")
    with tempfile.TemporaryDirectory(prefix="kairos-channels-") as scratch:
        for subscribers in args.subscribers:
            build = build_nodes(Path(scratch) / f"n{subscribers}", subscribers, args.period_ms)
            kairos = kairos_run(build, subscribers, args.seconds)
            dds = ddsperf_run(subscribers, args.seconds, args.period_ms)
            expected = kairos["published"] * subscribers
            row = {
                "subscribers": subscribers,
                "kairos": {
                    "published": kairos["published"],
                    "delivered": sum(kairos["delivered"]),
                    "p50_us": statistics.median(kairos["p50_us"]),
                    "p99_us": max(kairos["p99_us"]),
                    "max_us": max(kairos["max_us"]),
                },
                "ddsperf": dds,
            }
            row["ratio_p50"] = row["kairos"]["p50_us"] / (dds["rtt_p50_us"] / 2)
            results.append(row)
            k = row["kairos"]
            print(f"{subscribers:>4}  {k['p50_us']:>8.1f}us {k['p99_us']:>6.1f}us "
                  f"{k['max_us']:>6.1f}us {k['delivered']:>4}/{expected:<4}   "
                  f"{dds['rtt_p50_us'] / 2:>15.1f}us {dds['rtt_p99_us'] / 2:>6.1f}us "
                  f"{dds['rtt_max_us'] / 2:>6.1f}us   {row['ratio_p50']:>13.2f}x", flush=True)
    print("kairos: median over subscribers of each one's median age on delivery; p99 and max: "
          "the largest of any subscriber. ddsperf: half its round trip, the same rate and size.")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"period_ms": args.period_ms, "seconds": args.seconds,
                                         "payload_bytes": PAYLOAD_BYTES, "runs": results},
                                        indent=2) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, subprocess.TimeoutExpired) as failure:
        print(f"channels: {failure}", file=sys.stderr)
        sys.exit(1)
