#!/usr/bin/env python3
"""Clock synchronisation between two generated nodes in a LAN on one machine.

Two nodes of one model (`system Lan { ...; clock-sync master reference period P; }`) run in two
network namespaces joined through a third, the wire (tools/lan/lan.py, docs/lan.md), talking TCP;
the link has the latency and jitter of DESIGN.md's target link (100 us and 50 us each way), given
by `tc netem` where the kernel has it and by kairos-link-emulator where it has not (the output
says which, with the emulator's own lateness). The follower's local clock is skewed by
--clock-skew: both processes read the host's one monotonic clock, so the skew is exactly the offset
synchronisation must find, and the true error of the follower's global time at any instant is its
applied correction minus the skew. The follower logs every round (--clock-log); this prints the
average, p99 and max of that error beside the TMO paper's figures (110 us average, 307 us max) and
beside same-run baselines: the raw round trip of a UDP ping-pong between the two namespaces over
the same link, and over a bare veth pair.

Needs root and network namespaces (`ip netns`); where they are not permitted it says so and exits 0.

    python3 bench/clock_sync.py                 # 60 s
    python3 bench/clock_sync.py --minutes 10    # the issue's figure
    python3 bench/clock_sync.py --link direct   # over a bare veth pair (nothing added)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "lan"))
import lan as lans  # noqa: E402  (the LAN on one machine: namespaces and the link)

KAIROS = ROOT / "kairos"
PREFIX = ROOT / "build" / "prefix"
PAPER_AVERAGE_US = 110.0
PAPER_MAX_US = 307.0

MODEL = """\
// Two nodes whose global time is kept on the reference node's.
package lan

tmo Beacon {
  spm beat
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 5 ms) finish-by t + 50 ms
    wcet 10 us criticality soft;
}

tmo Listener {
  spm beat
    for t = from 0 s to forever every 100 ms
    start-during (t, t + 5 ms) finish-by t + 50 ms
    wcet 10 us criticality soft;
}

node reference { os linux scheduling rms endpoint "@ENDPOINT@" deploy Beacon as beacon }
node follower { os linux scheduling rms deploy Listener as listener }

system Lan { nodes reference, follower; clock-sync master reference period @PERIOD@; }
"""

ROUND = re.compile(r"^clock-round (?P<fields>.*)$", re.MULTILINE)
CLOCK = re.compile(r"^clock (?P<fields>.*)$", re.MULTILINE)


def fields(text: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in text.split())


def build_nodes(workdir: Path, endpoint: str, period: str = "100 ms") -> Path:
    """Writes the two-node model for `endpoint`, generates and builds it; returns the build dir."""
    model_dir = workdir / "model"
    model_dir.mkdir(parents=True, exist_ok=True)
    model = model_dir / "lan.tmo"
    model.write_text(MODEL.replace("@ENDPOINT@", endpoint).replace("@PERIOD@", period))
    generated = workdir / "generated"
    for command in (
        [KAIROS, "generate", model, "-o", generated],
        ["cmake", "-S", generated, "-B", workdir / "build", "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={PREFIX}"],
        ["cmake", "--build", workdir / "build"],
        # Their tcp: connections run TLS 1.3: each node proves its name with its key.
        [KAIROS, "keys", model, "-o", workdir / "build" / "keys"],
    ):
        result = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                                timeout=600)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{result.stdout}\n"
                               f"{result.stderr}")
    return workdir / "build"


Lan = lans.Lan
namespaces_permitted = lans.namespaces_permitted
remove_lan = lans.remove_lan


def make_lan(delay_us: float, jitter_us: float, mode: str = "auto") -> Lan:
    """The reference and the follower, each in its namespace, joined by the link (delay and
    jitter each way; netem or the link emulator, as `mode` says)."""
    return lans.make_lan(["reference", "follower"], lans.LinkSpec(delay_us, jitter_us), mode)


PING_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(30)
print("ready", flush=True)
while True:
    try:
        data, peer = s.recvfrom(64)
    except socket.timeout:
        break
    if data == b"stop":
        break
    s.sendto(data, peer)
"""

PING_CLIENT = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
peer = (sys.argv[1], int(sys.argv[2]))
for k in range(int(sys.argv[3])):
    start = time.perf_counter_ns()
    s.sendto(b"ping", peer)
    try:
        s.recvfrom(64)
    except socket.timeout:
        continue
    print(time.perf_counter_ns() - start)
    time.sleep(0.002)
s.sendto(b"stop", peer)
"""


def udp_round_trips(lan: Lan | None, count: int = 500) -> list[float]:
    """Round trips (us) of a raw UDP ping-pong across the link (over loopback without a LAN)."""
    server_ns = [] if lan is None else lan.exec("reference")
    client_ns = [] if lan is None else lan.exec("follower")
    address = "127.0.0.1" if lan is None else lan.node("reference").address
    port = 7390
    server = subprocess.Popen([*server_ns, sys.executable, "-c", PING_SERVER, address, str(port)],
                              stdout=subprocess.PIPE, text=True)
    try:
        server.stdout.readline()
        client = subprocess.run(
            [*client_ns, sys.executable, "-c", PING_CLIENT, address, str(port), str(count)],
            capture_output=True, text=True, timeout=120)
        return [int(line) / 1000.0 for line in client.stdout.split()]
    finally:
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@dataclass
class Run:
    follower: dict[str, str]
    rounds: list[dict[str, str]]
    reference_stdout: str
    follower_stdout: str

    def errors_us(self, skew_ns: int) -> list[float]:
        """|follower's global time - reference's| at each round's end, once synchronised."""
        synced = [r for r in self.rounds if int(r["error_bound_ns"]) >= 0]
        # A round's applied correction is the one that held as it ended: from the second
        # synchronised round on, global time runs on an estimate.
        return [abs(int(r["applied_ns"]) - skew_ns) / 1000.0 for r in synced[1:]]

    def estimate_errors_us(self, skew_ns: int) -> list[float]:
        synced = [r for r in self.rounds if int(r["error_bound_ns"]) >= 0]
        return [abs(int(r["estimate_ns"]) - skew_ns) / 1000.0 for r in synced]


def run_nodes(build: Path, seconds: float, skew: str, lan: Lan | None) -> Run:
    """Runs both nodes for `seconds` (in their namespaces when given a LAN)."""
    def command(node, *args):
        prefix = [] if lan is None else lan.exec(node)
        return [*prefix, str(build / node), "--quiet", "--duration", f"{int(seconds * 1000)}ms",
                "--keys", str(build / "keys"), *args]

    reference = subprocess.Popen(command("reference"), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)  # listening before the follower's first round
    follower = subprocess.Popen(
        command("follower", "--clock-skew", skew, "--clock-log", "--peer-wait", "10s"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outputs = {}
    for name, process in (("follower", follower), ("reference", reference)):
        try:
            stdout, stderr = process.communicate(timeout=seconds + 60)
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
            raise RuntimeError(f"node {name} did not end in time\n{stdout}\n{stderr}")
        if process.returncode != 0:
            raise RuntimeError(f"node {name} exited {process.returncode}\n{stdout}\n{stderr}")
        outputs[name] = stdout
    clock = [fields(m.group("fields")) for m in CLOCK.finditer(outputs["follower"])]
    if not clock:
        raise RuntimeError(f"the follower printed no clock line:\n{outputs['follower']}")
    rounds = [fields(m.group("fields")) for m in ROUND.finditer(outputs["follower"])]
    return Run(clock[0], rounds, outputs["reference"], outputs["follower"])


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the run (60)")
    parser.add_argument("--minutes", type=float, help="length of the run in minutes")
    parser.add_argument("--period", default="100 ms", help="clock-sync period (100 ms)")
    parser.add_argument("--skew", default="5ms", help="the follower's injected skew (5ms)")
    parser.add_argument("--delay-us", type=int, default=100)
    parser.add_argument("--jitter-us", type=int, default=50)
    parser.add_argument("--link", choices=lans.LINK_MODES, default="auto",
                        help="auto: netem where the kernel has it, else the link emulator; "
                             "direct: a bare veth pair (no delay or jitter)")
    args = parser.parse_args()
    seconds = args.minutes * 60 if args.minutes else args.seconds

    permitted, why = namespaces_permitted()
    if not permitted:
        print(f"clock_sync: skipped: {why}")
        return 0
    if not (PREFIX / "lib" / "cmake" / "Kairos").is_dir() or not KAIROS.exists():
        print("clock_sync: build first: make java cpp")
        return 1
    skew_ns = int(re.fullmatch(r"(-?\d+)ms", args.skew).group(1)) * 1_000_000 \
        if args.skew.endswith("ms") else None
    if skew_ns is None:
        print("clock_sync: --skew takes milliseconds, e.g. 5ms")
        return 2

    if args.link == "direct":
        args.delay_us = args.jitter_us = 0
    try:
        return measure(args, seconds, skew_ns)
    except RuntimeError as error:  # a LAN that cannot be made, a node that failed: said plainly
        print(f"clock_sync: {error}")
        return 1


def measure(args, seconds: float, skew_ns: int) -> int:
    # Baseline first, on a bare veth pair of its own, then the measured link.
    bare = make_lan(0, 0, "direct")
    try:
        bare_baseline = udp_round_trips(bare)
    finally:
        remove_lan(bare)
    lan = make_lan(args.delay_us, args.jitter_us, args.link)
    try:
        with tempfile.TemporaryDirectory(prefix="kairos-clock-bench-") as workdir:
            build = build_nodes(Path(workdir), f"tcp:{lan.node('reference').address}:7301",
                                args.period)
            baseline = udp_round_trips(lan) if lan.mode != "direct" else bare_baseline
            run = run_nodes(build, seconds, args.skew, lan)
        emulator = lan.stop_link()
    finally:
        remove_lan(lan)

    errors = run.errors_us(skew_ns)
    estimates = run.estimate_errors_us(skew_ns)
    load = os.getloadavg()
    print(f"clock synchronisation, {seconds:.0f} s, period {args.period}, skew {args.skew}")
    print(f"link: {lan.describe()}; load average {load[0]:.2f} {load[1]:.2f}")
    if lan.mode == "emulator":
        print(lans.describe_lateness(emulator))
    print(f"follower: {' '.join(f'{k}={v}' for k, v in run.follower.items())}")
    if not errors:
        print("no synchronised rounds: nothing to report")
        return 1
    print(f"{'what':58} {'avg':>9} {'p50':>9} {'p99':>9} {'max':>9}  samples")
    rows = [
        ("baseline: raw UDP ping-pong round trip, bare veth", bare_baseline),
        (f"baseline: raw UDP ping-pong round trip, this link ({lan.mode})", baseline),
        ("baseline: half that round trip", [t / 2 for t in baseline]),
        ("kairos: |estimated offset - skew| per round", estimates),
        ("kairos: |global time error| at each round's end", errors),
    ]
    for name, values in rows:
        if values:
            print(f"{name:58} {statistics.fmean(values):8.1f}u {percentile(values, 0.5):8.1f}u "
                  f"{percentile(values, 0.99):8.1f}u {max(values):8.1f}u  {len(values)}")
    print(f"{'TMO paper (clock sync on a LAN)':58} {PAPER_AVERAGE_US:8.1f}u {'':>9} {'':>9} "
          f"{PAPER_MAX_US:8.1f}u")
    print(f"{'target (DESIGN.md)':58} {20.0:8.1f}u {'':>9} {'':>9} {100.0:8.1f}u")
    return 0


if __name__ == "__main__":
    sys.exit(main())
