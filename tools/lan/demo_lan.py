#!/usr/bin/env python3
"""The avionics mission computer on a LAN on one machine (`make demo-lan`, docs/lan.md).

mission1 and mission2 of examples/avionics run in network namespaces of their own, joined by a
link with the figures of the model's `network lan` block (latency, jitter, bandwidth), carried by
`tc netem` where the kernel has it and by kairos-link-emulator otherwise (tools/lan/lan.py). They
talk TCP on their LAN addresses: a Unix domain socket cannot cross namespaces, so the demo runs a
copy of the model whose `endpoint` strings are the only change (each becomes `tcp:<the node's LAN
address>:<port>`, on the same line, so every `source=` line reference still points at the
example's line). Then it prints each gate's measured round trips beside the bound `kairos check`
analysed for it, both nodes' clock lines, and the link emulator's own lateness.

    python3 tools/lan/demo_lan.py [--seconds 5] [--link auto|netem|emulator] [--out DIR]

Needs root and `ip netns`; where they are not permitted it says why and exits 1.
"""

import argparse
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import lan as lans

ROOT = lans.ROOT
KAIROS = ROOT / "kairos"
PREFIX = ROOT / "build" / "prefix"
EXAMPLE = ROOT / "examples" / "avionics"
MODEL_NAME = "avionics.tmo"
NODES = ("mission1", "mission2")
# Ports for nodes whose endpoint is not TCP already (mission1's is a Unix domain socket).
FIRST_PORT = 7001

DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(ns|us|ms|s)$")
DURATION_NS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
RATE = re.compile(r"^(\d+(?:\.\d+)?)\s*(bps|kbps|Kbps|Mbps|Gbps)$")
RATE_BPS = {"bps": 1, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)


def network_between(model_text: str, a: str, b: str) -> lans.LinkSpec:
    """The LinkSpec of the model's `network` block that connects nodes a and b."""
    text = _strip_comments(model_text)
    for block in re.finditer(r"\bnetwork\s+\w+\s*\{(?P<body>[^}]*)\}", text):
        settings = {}
        for statement in block.group("body").split(";"):
            words = statement.split(None, 1)
            if len(words) == 2:
                settings[words[0]] = words[1].strip()
        connected = {n.strip() for n in settings.get("connects", "").split(",")}
        if {a, b} <= connected:
            def duration_us(key: str) -> float:
                value = settings.get(key)
                if value is None:
                    return 0.0
                match = DURATION.match(value)
                if not match:
                    raise ValueError(f"network {key} '{value}' is not a duration this demo reads")
                return float(match.group(1)) * DURATION_NS[match.group(2)] / 1000.0

            bandwidth = None
            if "bandwidth" in settings:
                match = RATE.match(settings["bandwidth"])
                if not match:
                    raise ValueError(f"network bandwidth '{settings['bandwidth']}' is not a rate")
                bandwidth = int(float(match.group(1)) * RATE_BPS[match.group(2)])
            return lans.LinkSpec(duration_us("latency"), duration_us("jitter"), bandwidth)
    raise ValueError(f"no network block of the model connects {a} and {b}")


def lan_model(example: Path, out: Path, addresses: dict[str, str]) -> Path:
    """Copies the example (model and method bodies) into out/model and points each node's
    endpoint at its LAN address over TCP; only the endpoint strings change."""
    target = out / "model"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(example, target)
    model = target / MODEL_NAME
    text = model.read_text()
    for index, (node, address) in enumerate(addresses.items()):
        block = re.search(
            rf"\bnode\s+{re.escape(node)}\s*\{{[^}}]*?\bendpoint\s+\"(?P<old>[^\"]*)\"", text)
        if block is None:
            raise ValueError(f"node {node} has no endpoint in {example / MODEL_NAME}")
        old = block.group("old")
        port_match = re.fullmatch(r"tcp:[^:]+:(\d+)", old)
        port = int(port_match.group(1)) if port_match else FIRST_PORT + index
        start, end = block.span("old")
        text = text[:start] + f"tcp:{address}:{port}" + text[end:]
    text += (f"\n// LAN demo (tools/lan/demo_lan.py): a copy of {example.name}/{MODEL_NAME} whose\n"
             "// node endpoints are TCP on the nodes' LAN addresses; nothing else differs.\n")
    model.write_text(text)
    return model


def run_checked(command: list, what: str, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                            timeout=900, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed ({' '.join(map(str, command))}):\n{result.stdout}\n"
                           f"{result.stderr}")
    return result


def generate_and_build(model: Path, out: Path) -> tuple[Path, str]:
    """kairos check (its text report is returned), generate, the node build and the nodes' keys
    (build/keys)."""
    check = run_checked([KAIROS, "check", model], "kairos check")
    generated = out / "generated"
    run_checked([KAIROS, "generate", model, "-o", generated], "kairos generate")
    build = out / "build"
    run_checked(["cmake", "-S", generated, "-B", build, "-G", "Ninja",
                 f"-DCMAKE_PREFIX_PATH={PREFIX}"], "cmake configure")
    run_checked(["cmake", "--build", build], "the node build")
    # Their tcp: connections run TLS 1.3: each node proves its name with its key (run_nodes).
    run_checked([KAIROS, "keys", model, "-o", build / "keys"], "kairos keys")
    return build, check.stdout


@dataclass
class NodeRun:
    name: str
    returncode: int
    stdout: str
    stderr: str

    def lines(self, kind: str) -> list[dict[str, str]]:
        return [lans.fields(line.split(" ", 1)[1]) for line in self.stdout.splitlines()
                if line.startswith(kind + " ")]


def run_nodes(build: Path, lan: lans.Lan, seconds: float,
              options: dict[str, list[str]] | None = None) -> dict[str, NodeRun]:
    """Both nodes in their namespaces, for `seconds` each, started together; each waits up to
    10 s for the other before its engine starts (--peer-wait). `options`: more arguments per
    node (e.g. {"mission2": ["--clock-skew", "3ms"]})."""
    processes = {}
    try:
        for name in NODES:
            processes[name] = subprocess.Popen(
                lan.exec(name, build / name, "--duration", f"{int(seconds * 1000)}ms",
                         "--quiet", "--peer-wait", "10s", "--keys", build / "keys",
                         *(options or {}).get(name, [])),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=lan.environment(name))
        runs = {}
        for name, process in processes.items():
            try:
                stdout, stderr = process.communicate(timeout=seconds + 60)
            except subprocess.TimeoutExpired:
                process.kill()
                stdout, stderr = process.communicate()
                stderr += f"\n(killed: no end within {seconds + 60:.0f} s)"
            runs[name] = NodeRun(name, process.returncode, stdout, stderr)
        return runs
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()


def gate_rows(runs: dict[str, NodeRun]) -> list[dict[str, str]]:
    return [gate for run in runs.values() for gate in run.lines("gate")]


def within_bound(gate: dict[str, str]) -> bool:
    """Every call answered within the analysed bound: the longest answered round trip is within
    it and no call went unanswered past its deadline (late), which is beyond the bound."""
    return (float(gate["max_round_trip_us"]) <= float(gate["analysed_bound_us"])
            and int(gate["late"]) == 0)


def verdict(gate: dict[str, str]) -> str:
    if within_bound(gate):
        return "within bound"
    late = int(gate["late"])
    return "OVER the analysed bound" + (f" ({late} calls past the deadline)" if late else "")


def channel_rows(runs: dict[str, NodeRun]) -> list[dict[str, str]]:
    """The channel lines of the nodes where a chain delivers a channel (an analysed bound)."""
    return [channel for run in runs.values() for channel in run.lines("channel")
            if channel["analysed_bound_us"] != "none"]


def channel_within_bound(channel: dict[str, str]) -> bool:
    """Every sample delivered no older than the analysed bound on its delivery."""
    return float(channel["delivery_max_us"]) <= float(channel["analysed_bound_us"])


def report(lan: lans.Lan, runs: dict[str, NodeRun], emulator: dict, seconds: float) -> str:
    out = [f"== LAN of {seconds:g} s: " + ", ".join(
        f"{n.name} {n.address} ({n.interface} in namespace {n.namespace})" for n in lan.nodes)]
    out.append(f"== link: {lan.describe()}")
    out.append("== gates: the longest measured round trip beside the bound kairos check analysed")
    out.append(f"  {'gate':20} {'node':9} {'callee':16} {'calls':>6} {'answered':>8} "
               f"{'late':>5} {'failed':>6} {'max round trip':>15} {'analysed bound':>15} "
               f"{'deadline':>10}  verdict")
    for gate in gate_rows(runs):
        out.append(f"  {gate['gate']:20} {gate['node']:9} {gate['callee']:16} {gate['calls']:>6} "
                   f"{gate['answered']:>8} {gate['late']:>5} {gate['failed']:>6} "
                   f"{gate['max_round_trip_us'] + ' us':>15} "
                   f"{gate['analysed_bound_us'] + ' us':>15} {gate['deadline_us'] + ' us':>10}  "
                   f"{verdict(gate)}")
    out.append("== channels: how old samples were on delivery beside the bound kairos check "
               "analysed")
    out.append(f"  {'channel':20} {'node':9} {'delivered':>9} {'p50 age':>12} {'p99 age':>12} "
               f"{'max age':>12} {'analysed bound':>15}  verdict")
    for channel in channel_rows(runs):
        out.append(f"  {channel['channel']:20} {channel['node']:9} {channel['delivered']:>9} "
                   f"{channel['delivery_p50_us'] + ' us':>12} "
                   f"{channel['delivery_p99_us'] + ' us':>12} "
                   f"{channel['delivery_max_us'] + ' us':>12} "
                   f"{channel['analysed_bound_us'] + ' us':>15}  "
                   f"{'within bound' if channel_within_bound(channel) else 'OVER the analysed bound'}")
    out.append("== global time")
    for run in runs.values():
        out += [line for line in run.stdout.splitlines() if line.startswith("clock ")]
    out.append("== nodes")
    for run in runs.values():
        out += [line for line in run.stdout.splitlines() if line.startswith("summary ")]
    if lan.mode == "emulator":
        out.append("== " + lans.describe_lateness(emulator))
        for direction in ("a->b", "b->a"):
            d = emulator.get(direction)
            if d:
                out.append(f"  {d['from']} -> {d['to']}: {d['frames']} frames, {d['bytes']} bytes, "
                           f"one-way delay mean {d['delay_mean_us']} us, p99 {d['delay_p99_us']} "
                           f"us, max {d['delay_max_us']} us; dropped {d['dropped_queue_full']}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long both nodes run (5)")
    parser.add_argument("--link", choices=("auto", "netem", "emulator"), default="auto",
                        help="auto: netem where the kernel has it, else the link emulator")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "demo-lan")
    args = parser.parse_args()

    permitted, why = lans.namespaces_permitted()
    if not permitted:
        print(f"demo-lan: cannot run here: {why}")
        return 1
    if not (PREFIX / "lib" / "cmake" / "Kairos").is_dir() or not KAIROS.exists():
        print("demo-lan: build first: make java cpp")
        return 1
    try:
        link = network_between((EXAMPLE / MODEL_NAME).read_text(), *NODES)
        lan = lans.make_lan(list(NODES), link, args.link)
    except (RuntimeError, ValueError) as error:
        print(f"demo-lan: {error}")
        return 1
    try:
        out = args.out.resolve()
        model = lan_model(EXAMPLE, out, {n.name: n.address for n in lan.nodes})
        shown = model.relative_to(ROOT) if model.is_relative_to(ROOT) else model
        print(f"== kairos check, generate and build {shown} (the example, TCP on the LAN)")
        build, check = generate_and_build(model, out)
        print("\n".join(line for line in check.splitlines() if " -> " in line and "GCT" in line))
        print(f"== run {' and '.join(NODES)} for {args.seconds:g} s in their namespaces")
        started = time.monotonic()
        runs = run_nodes(build, lan, args.seconds)
        emulator = lan.stop_link()
        print(report(lan, runs, emulator, time.monotonic() - started))
    except RuntimeError as error:
        print(f"demo-lan: {error}")
        return 1
    finally:
        lans.remove_lan(lan)
    failed = [run for run in runs.values() if run.returncode != 0]
    for run in failed:
        print(f"demo-lan: {run.name} exited {run.returncode}\n{run.stderr}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
