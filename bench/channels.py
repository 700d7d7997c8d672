#!/usr/bin/env python3
"""RMMC channel latency over Eclipse Cyclone DDS: one publisher node and 1, 4 and 16 subscriber
nodes on this host, beside Cyclone's own `ddsperf` ping-pong of the same payload size in the
same run.

One generated model per subscriber count: node `source` publishes a 64-byte sample (a uint64
sequence number and seven doubles) every --period on channel `feed` from an SpM whose body does
nothing else; each node `sinkK` reads the channel. Every node is its own process, as on separate
machines; they meet through DDS discovery. Each subscriber's `channel` line says how old its
samples were when they were handed to the reader (docs/channels.md): publication on the source's
lane -> the source's hub -> DDS -> the subscriber's DDS listener -> the reader's history.

Two baselines run in the same invocation, one after the other, and the Kairos nodes a third time
under DDS Security (each with the keys `kairos keys` makes for the model):
- raw: bench/channels_raw_dds.c, Cyclone DDS with nothing of Kairos around it. A SCHED_FIFO
  thread writes the same idlc type every --period; each of as many subscriber processes takes
  the samples in its listener and records their age from the source timestamp. It is what a
  Kairos channel does on DDS, at the same period, payload, QoS and CPU placement: the ratio
  `kairos/raw` is what Kairos adds to DDS.
- ddsperf: `ddsperf ping` against as many `ddsperf pong` processes, at the same rate and payload
  size; its round trip halved. Its pong answers from the listener the moment a ping arrives, so
  the second half of each round trip runs on warm caches and an awake processor: a periodic
  one-way sample, cold each period, takes longer than that half (bench/README.md).

    python3 bench/channels.py                       # 1, 4, 16 subscribers, 5 s each
    python3 bench/channels.py --subscribers 4 --seconds 20
    python3 bench/channels.py --publisher-cpu 1 --subscriber-cpu 1   # all on CPU 1
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
# The channel's validity: DDS's lifespan on both sides, Kairos's and the raw baseline's.
VALIDITY_MS = 100

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
  eac { channel feed : rmmc<Reading> best-effort validity @VALIDITY@ ms fan-out @FANOUT@; }
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
  eac { channel feed : rmmc<Reading> best-effort validity @VALIDITY@ ms fan-out @FANOUT@; }
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
        "@PERIOD@", f"{period_ms} ms").replace("@VALIDITY@", str(VALIDITY_MS))
    # A TMO is deployed once in a system: each subscriber node deploys a class of its own.
    sinks = [f"sink{k}" for k in range(1, subscribers + 1)]
    for k, sink in enumerate(sinks, start=1):
        text += "\n" + SINK_TMO.replace("@SINK@", f"Sink{k}").replace(
            "@FANOUT@", str(subscribers)).replace("@VALIDITY@", str(VALIDITY_MS))
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
    # The system's keys, for the runs under DDS Security (kairos keys; kairos run does the same).
    run_checked([KAIROS, "keys", model, "-o", workdir / "build" / "keys"])
    # The raw baseline, on the C type idlc made for the model's channels.
    run_checked([os.environ.get("CC", "cc"), "-O2", "-Wall", "-Wextra", "-Werror",
                 "-I", workdir / "build", ROOT / "bench" / "channels_raw_dds.c",
                 workdir / "build" / "channels.c", "-lddsc", "-o", workdir / "build" / "raw_dds"])
    return workdir / "build"


def pinned(command: list, cpu: int) -> list:
    """`command` on CPU `cpu` (-1: any), for the programs that do not pin themselves."""
    return command if cpu < 0 else ["taskset", "-c", str(cpu), *command]


def node_cpu(cpu: int) -> list:
    return [] if cpu < 0 else ["--cpu", str(cpu)]


def fields(line: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in line.split()[1:])


def figures_line(stdout: str, prefix: str) -> dict[str, str]:
    """The fields of the first line of `stdout` that starts with `prefix` (`channel ` for a Kairos
    node, `raw ` for the raw DDS baseline, which prints the same names)."""
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return fields(line)
    raise RuntimeError(f"no `{prefix.strip()}` line in:\n{stdout}")


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


DISCOVERY_S = 1.5


def secured(keys: Path | None, node: str) -> dict | None:
    """The environment of node `node` under DDS Security with the keys in `keys` (none: as this
    process's): its configuration after any CYCLONEDDS_URI given here."""
    if keys is None:
        return None
    inherited = os.environ.get("CYCLONEDDS_URI", "")
    own = f"file://{keys / (node + '.cyclonedds.xml')}"
    return {**os.environ, "CYCLONEDDS_URI": f"{inherited},{own}" if inherited else own}


def one_way_run(sinks: list[list], source: list, seconds: float, prefix: str,
                envs: list | None = None, source_env: dict | None = None) -> dict:
    """Starts the subscribers, waits for discovery, runs the publisher for `seconds`, and gathers
    what the publisher published and the subscribers' delivery figures (`prefix` lines); each
    subscriber with its environment from `envs`, the publisher with `source_env` (none: this
    process's)."""
    sink_seconds = seconds + 2 * DISCOVERY_S
    envs = envs or [None] * len(sinks)
    running = [subprocess.Popen([str(part) for part in command], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
               for command, env in zip(sinks, envs)]
    time.sleep(DISCOVERY_S)
    published = subprocess.run([str(part) for part in source], capture_output=True, text=True,
                               timeout=seconds + 60, env=source_env)
    if published.returncode != 0:
        raise RuntimeError(f"the publisher failed:\n{published.stdout}\n{published.stderr}")
    lines = [figures_line(finish(sink, sink_seconds + 60), prefix) for sink in running]
    return {
        "published": int(figures_line(published.stdout, prefix)["published"]),
        "delivered": sum(int(line["delivered"]) for line in lines),
        "p50_us": statistics.median(float(line["delivery_p50_us"]) for line in lines),
        "p99_us": max(float(line["delivery_p99_us"]) for line in lines),
        "max_us": max(float(line["delivery_max_us"]) for line in lines),
    }


def kairos_run(build: Path, subscribers: int, seconds: float, cpus: tuple[int, int],
               keys: Path | None = None) -> dict:
    """The Kairos nodes: each sink's channel line, and the source's; with `keys`, each under DDS
    Security with its own."""
    sink_ms = int((seconds + 2 * DISCOVERY_S) * 1000)
    return one_way_run(
        [[build / f"sink{k}", "--quiet", "--duration", f"{sink_ms}ms", *node_cpu(cpus[1])]
         for k in range(1, subscribers + 1)],
        [build / "source", "--quiet", "--duration", f"{int(seconds * 1000)}ms",
         *node_cpu(cpus[0])],
        seconds, "channel ",
        [secured(keys, f"sink{k}") for k in range(1, subscribers + 1)],
        secured(keys, "source"))


def raw_run(build: Path, subscribers: int, seconds: float, period_ms: int,
            cpus: tuple[int, int]) -> dict:
    """The raw DDS baseline: as many subscriber processes, and its publisher."""
    return one_way_run(
        [[build / "raw_dds", "sub", "chbench_raw", VALIDITY_MS, seconds + 2 * DISCOVERY_S,
          cpus[1]]
         for _ in range(subscribers)],
        [build / "raw_dds", "pub", "chbench_raw", VALIDITY_MS, period_ms * 1000, seconds,
         cpus[0]],
        seconds, "raw ")


def combined(rounds: list[dict]) -> dict:
    """The rounds of one side as one figure: counts summed, the median of the rounds' medians and
    of their 99th percentiles, the largest maximum."""
    return {
        "published": sum(r["published"] for r in rounds),
        "delivered": sum(r["delivered"] for r in rounds),
        "p50_us": statistics.median(r["p50_us"] for r in rounds),
        "p99_us": statistics.median(r["p99_us"] for r in rounds),
        "max_us": max(r["max_us"] for r in rounds),
        "rounds_p50_us": [r["p50_us"] for r in rounds],
    }


DDSPERF_LINE = re.compile(
    r"size (?P<size>\d+) mean (?P<mean>[\d.]+)us min [\d.]+us 50% (?P<p50>[\d.]+)us "
    r"90% [\d.]+us 99% (?P<p99>[\d.]+)us max (?P<max>[\d.]+)us cnt (?P<cnt>\d+)")


def ddsperf_run(subscribers: int, seconds: float, period_ms: int,
                cpus: tuple[int, int]) -> dict:
    """ddsperf ping at the same rate and size against `subscribers` pong processes: its round
    trips per pong, over the whole run (each reporting second weighed by its count)."""
    pongs = [subprocess.Popen(pinned(["ddsperf", "-D", str(int(seconds + 4)), "pong"], cpus[1]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(subscribers)]
    try:
        time.sleep(1.0)
        ping = subprocess.run(pinned(["ddsperf", "-D", str(int(seconds)), "ping",
                                      f"{1000 // period_ms}Hz", "size", str(PAYLOAD_BYTES)],
                                     cpus[0]),
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
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs of Kairos and of raw DDS, taking turns (default 3)")
    parser.add_argument("--publisher-cpu", type=int, default=-1,
                        help="pin the publishing processes to this CPU (default: any)")
    parser.add_argument("--subscriber-cpu", type=int, default=-1,
                        help="pin the subscribing processes to this CPU (default: any)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if any(n < 1 or n > 16 for n in args.subscribers) or args.seconds <= 0 or not (
            1 <= args.period_ms <= 1000) or not 1 <= args.rounds <= 20:
        parser.error("subscribers 1..16, seconds > 0, period 1..1000 ms, rounds 1..20")
    for cpu in (args.publisher_cpu, args.subscriber_cpu):
        if cpu >= (os.cpu_count() or 1):
            parser.error(f"CPU {cpu}: this machine has CPUs 0..{(os.cpu_count() or 1) - 1}")
    for tool in ("ddsperf", "idlc"):
        if shutil.which(tool) is None:
            print(f"channels: `{tool}` is missing (Debian cyclonedds-tools): run `make setup`",
                  file=sys.stderr)
            return 2
    if not (PREFIX / "lib" / "cmake" / "Kairos").is_dir():
        print("channels: the runtime is not in build/prefix: run `make java cpp`", file=sys.stderr)
        return 2

    results = []
    cpus = (args.publisher_cpu, args.subscriber_cpu)
    where = " ".join(f"{side} on {'any CPU' if cpu < 0 else f'CPU {cpu}'}"
                     for side, cpu in (("publisher", cpus[0]), ("subscribers", cpus[1])))
    print(f"channel latency, {PAYLOAD_BYTES}-byte samples every {args.period_ms} ms, "
          f"{args.seconds:g} s per run, one host ({os.cpu_count()} CPUs, {where}, "
          f"load {os.getloadavg()[0]:.2f})")
    print(f"{'':>4}  {'kairos':^33}  {'raw cyclone dds':^33}  {'ddsperf rtt/2':^24}  "
          f"{'kairos p50 /':^14}  {'kairos under dds security':^33}  {'p50 /':>6}")
    print(f"{'subs':>4}  " + f"{'p50':>7} {'p99':>7} {'max':>7} {'delivered':>10}  " * 2
          + f"{'p50':>7} {'p99':>7} {'max':>8}  {'raw':>6} {'ddsperf':>7}  "
          + f"{'p50':>7} {'p99':>7} {'max':>7} {'delivered':>10}  {'kairos':>6}")
    with tempfile.TemporaryDirectory(prefix="kairos-channels-") as scratch:
        for subscribers in args.subscribers:
            build = build_nodes(Path(scratch) / f"n{subscribers}", subscribers, args.period_ms)
            # Kairos and raw DDS take turns, so that a change in the machine's load over the
            # run falls on both.
            kairos_rounds, raw_rounds, secure_rounds = [], [], []
            for _ in range(args.rounds):
                kairos_rounds.append(kairos_run(build, subscribers, args.seconds, cpus))
                raw_rounds.append(raw_run(build, subscribers, args.seconds, args.period_ms, cpus))
                secure_rounds.append(kairos_run(build, subscribers, args.seconds, cpus,
                                                build / "keys"))
            kairos, raw = combined(kairos_rounds), combined(raw_rounds)
            secure = combined(secure_rounds)
            dds = ddsperf_run(subscribers, args.seconds, args.period_ms, cpus)
            row = {"subscribers": subscribers, "kairos": kairos, "raw_dds": raw, "ddsperf": dds,
                   "kairos_dds_security": secure}
            row["ratio_p50_raw"] = row["kairos"]["p50_us"] / raw["p50_us"]
            row["ratio_p50_ddsperf"] = row["kairos"]["p50_us"] / (dds["rtt_p50_us"] / 2)
            row["ratio_p50_security"] = secure["p50_us"] / row["kairos"]["p50_us"]
            results.append(row)

            def figures(run: dict) -> str:
                delivered = f"{run['delivered']}/{run['published'] * subscribers}"
                return (f"{run['p50_us']:>7.1f} {run['p99_us']:>7.1f} {run['max_us']:>7.1f} "
                        f"{delivered:>10}")

            print(f"{subscribers:>4}  {figures(row['kairos'])}  {figures(raw)}  "
                  f"{dds['rtt_p50_us'] / 2:>7.1f} {dds['rtt_p99_us'] / 2:>7.1f} "
                  f"{dds['rtt_max_us'] / 2:>8.1f}  {row['ratio_p50_raw']:>5.2f}x "
                  f"{row['ratio_p50_ddsperf']:>6.2f}x  {figures(secure)}  "
                  f"{row['ratio_p50_security']:>5.2f}x", flush=True)
    print(f"us. kairos and raw: one-way age on delivery, from publication (raw: the write), "
          f"{args.rounds} rounds each, taking turns; p50 and p99: the median over rounds of the "
          f"median over subscribers of each one's median, and of the largest p99; max: the "
          f"largest. ddsperf: half its round trip, the same rate and size. Under DDS Security: "
          f"the same Kairos nodes, each with the keys kairos keys made (authenticated, "
          f"access-controlled, encrypted), a third turn of each round.")
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
