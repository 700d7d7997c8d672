"""A LAN on one machine: two nodes, each in a network namespace of its own, joined by a link with a
latency, a jitter and a bandwidth (docs/lan.md).

Three namespaces: one per node and a third, the wire, between them. Each node has one interface
(`lan0`) with an address of the LAN's subnet; its veth peer lives in the wire namespace. What the
wire does to a frame is the link:

- where the kernel has the netem qdisc, a bridge joins the two wire ends and `tc netem delay L J
  rate R` shapes what leaves each of them toward its node;
- where it has not (no module, no modprobe), `kairos-link-emulator` opens a raw socket on each wire
  end and forwards every frame to the other after serialisation, latency and jitter, in order, and
  measures how late it let each frame leave.

The nodes see the same thing either way: one Ethernet segment, two addresses, the model's delays.
Every description this module gives says which of the two carried the link.

Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) for `ip netns`; `namespaces_permitted()` says
whether it may run here. Namespaces are named per LAN (a random tag) and removed by `remove_lan`.
"""

import os
import re
import select
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EMULATOR_NAME = "kairos-link-emulator"
# The installed runtime's bin/ first (make cpp), then the build tree.
EMULATOR_CANDIDATES = (
    ROOT / "build" / "prefix" / "bin" / EMULATOR_NAME,
    ROOT / "build" / "cpp" / "tools" / "lan" / EMULATOR_NAME,
)
NODE_INTERFACE = "lan0"
SUBNET = "10.231.0"
# auto: netem where the kernel has it, else the emulator; direct: a bare veth pair between the
# two nodes (no wire namespace, nothing added: the baseline); bridge: any number of nodes on a
# bridge in the wire namespace, nothing added to the link (a switched LAN of hosts).
LINK_MODES = ("auto", "netem", "emulator", "direct", "bridge")


@dataclass(frozen=True)
class LinkSpec:
    """One direction's figures; both directions get the same (a full-duplex link)."""
    latency_us: float
    jitter_us: float = 0.0
    bandwidth_bps: int | None = None
    distribution: str = "uniform"  # or "normal": sigma = jitter / 2, cut at +-jitter

    def describe(self) -> str:
        bandwidth = "unlimited" if not self.bandwidth_bps else f"{self.bandwidth_bps / 1e6:g} Mbps"
        return (f"latency {self.latency_us:g} us, jitter {self.jitter_us:g} us "
                f"({self.distribution}), bandwidth {bandwidth}, each way")


@dataclass(frozen=True)
class LanNode:
    name: str
    namespace: str
    address: str
    wire_interface: str
    interface: str = NODE_INTERFACE


@dataclass
class Lan:
    tag: str
    wire_namespace: str
    nodes: list[LanNode]
    link: LinkSpec
    mode: str = ""           # "netem", "emulator" or "direct" once made
    why_not_netem: str = ""  # the kernel's answer when netem was tried and refused
    emulator: subprocess.Popen | None = None
    emulator_first_line: str = ""
    emulator_report: dict[str, dict[str, str]] = field(default_factory=dict)
    made: list[str] = field(default_factory=list)

    def node(self, name: str) -> LanNode:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(f"no node {name} on this LAN ({', '.join(n.name for n in self.nodes)})")

    def exec(self, name: str, *command) -> list[str]:
        """`command` as it runs inside node `name`'s namespace."""
        return ["ip", "netns", "exec", self.node(name).namespace, *map(str, command)]

    def describe(self) -> str:
        """One line saying what carries the link: say it beside every figure taken over it."""
        if self.mode == "direct":
            return "bare veth pair between the two namespaces: nothing added to the link"
        if self.mode == "bridge":
            return (f"{len(self.nodes)} namespaces on a bridge in the wire namespace: nothing "
                    "added to the link")
        if self.mode == "netem":
            carrier = "tc netem in the wire namespace (a bridge between the two veth pairs)"
        else:
            reason = f"this kernel has no netem: {self.why_not_netem}; " if self.why_not_netem \
                else ""
            carrier = f"{EMULATOR_NAME} in the wire namespace ({reason}user-space link)"
        return f"{self.link.describe()}; {carrier}"

    def cyclone_config(self, name: str) -> str:
        """Eclipse Cyclone DDS configuration for node `name` (the CYCLONEDDS_URI value): its LAN
        interface, not loopback, and the other nodes as unicast discovery peers."""
        me = self.node(name)
        peers = "".join(f'<Peer address="{n.address}"/>' for n in self.nodes if n.name != name)
        return ("<CycloneDDS><Domain><General><Interfaces>"
                f'<NetworkInterface name="{me.interface}"/></Interfaces>'
                "</General><Discovery><ParticipantIndex>auto</ParticipantIndex>"
                f"<Peers>{peers}</Peers></Discovery></Domain></CycloneDDS>")

    def environment(self, name: str) -> dict[str, str]:
        """The environment a node process of this LAN runs with (what DDS needs to find it)."""
        return {**os.environ, "CYCLONEDDS_URI": self.cyclone_config(name)}

    def stop_link(self) -> dict[str, dict[str, str]]:
        """Stops the link emulator (if it carries the link) and returns what it measured:
        {"link": {...}, "lateness": {...}, "a->b": {...}, "b->a": {...}}; {} under netem."""
        if self.emulator is None:
            return self.emulator_report
        process, self.emulator = self.emulator, None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        self.emulator_report = parse_emulator_output(self.emulator_first_line + output.decode())
        return self.emulator_report


def fields(text: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in text.split() if "=" in item)


def parse_emulator_output(output: str) -> dict[str, dict[str, str]]:
    report: dict[str, dict[str, str]] = {}
    directions = 0
    for line in output.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "link":
            report["link"] = fields(rest)
        elif kind == "link-lateness":
            report["lateness"] = fields(rest)
        elif kind == "link-direction":
            report["a->b" if directions == 0 else "b->a"] = fields(rest)
            directions += 1
    return report


def describe_lateness(report: dict[str, dict[str, str]]) -> str:
    """The emulator's own error, as one line to print beside figures taken over its link."""
    lateness = report.get("lateness")
    if not lateness:
        return "link emulator: no report"
    link = report.get("link", {})
    return (f"link emulator's own lateness (frame left vs. planned): p50 {lateness['p50_us']} us, "
            f"p99 {lateness['p99_us']} us, max {lateness['max_us']} us over "
            f"{lateness['frames']} frames; scheduling {link.get('scheduling', '?')} on CPU "
            f"{link.get('cpu', '?')}")


def emulator_path() -> Path | None:
    for candidate in EMULATOR_CANDIDATES:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(EMULATOR_NAME)
    return Path(found) if found else None


def namespaces_permitted() -> tuple[bool, str]:
    """Whether network namespaces can be made here, and if not, why (for skip messages)."""
    if shutil.which("ip") is None:
        return False, "the ip command (iproute2) is not installed"
    if os.geteuid() != 0:
        return False, "network namespaces need root"
    probe = f"kairos-probe-{uuid.uuid4().hex[:8]}"
    result = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if result.returncode != 0:
        return False, f"ip netns add is not permitted here: {result.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return True, ""


def _ip(*args) -> None:
    result = subprocess.run(["ip", *map(str, args)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(map(str, args))}: {result.stderr.strip()}")


def _in_namespace(namespace: str, *command) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", namespace, *map(str, command)],
                          capture_output=True, text=True)


def _quiet_ipv6(namespace: str) -> None:
    # No router solicitations or address probes on the link: only the nodes' own traffic.
    _in_namespace(namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                  "net.ipv6.conf.default.disable_ipv6=1")


def _netem_arguments(link: LinkSpec) -> list[str]:
    arguments = ["netem", "delay", f"{link.latency_us:g}us"]
    if link.jitter_us:
        arguments.append(f"{link.jitter_us:g}us")
        if link.distribution == "normal":
            arguments += ["distribution", "normal"]
    if link.bandwidth_bps:
        arguments += ["rate", f"{link.bandwidth_bps}bit"]
    return arguments


def make_lan(names: list[str], link: LinkSpec, mode: str = "auto",
             emulator_options: tuple[str, ...] = ()) -> Lan:
    """Two nodes' namespaces and the wire between them, the link running. `mode` "auto" uses
    netem where the kernel has it and the link emulator otherwise; "netem" and "emulator" insist.
    `emulator_options` go to the link emulator as they are (e.g. ("--cpu", "0", "--spin",
    "20us")). The caller removes the LAN with remove_lan (in a finally)."""
    if len(set(names)) != len(names) or len(names) < 2 or (len(names) != 2 and mode != "bridge"):
        raise ValueError(f"a LAN here joins two different nodes (any number on a bridge), "
                         f"not {names}")
    if mode not in LINK_MODES:
        raise ValueError(f"link mode is one of {', '.join(LINK_MODES)}, not {mode}")
    tag = uuid.uuid4().hex[:6]
    nodes = [LanNode(name=name, namespace=f"kairos-{name[:12]}-{tag}",
                     address=f"{SUBNET}.{index + 1}", wire_interface=f"w{index}")
             for index, name in enumerate(names)]
    lan = Lan(tag=tag, wire_namespace=f"kairos-wire-{tag}", nodes=nodes, link=link)
    direct = mode == "direct"
    try:
        for namespace in ([] if direct else [lan.wire_namespace]) + [n.namespace for n in nodes]:
            _ip("netns", "add", namespace)
            lan.made.append(namespace)
            _quiet_ipv6(namespace)
        if direct:
            _ip("link", "add", NODE_INTERFACE, "netns", nodes[0].namespace, "type", "veth",
                "peer", "name", NODE_INTERFACE, "netns", nodes[1].namespace)
            lan.mode = "direct"
        for node in nodes:
            if not direct:
                _ip("link", "add", node.interface, "netns", node.namespace, "type", "veth",
                    "peer", "name", node.wire_interface, "netns", lan.wire_namespace)
                _ip("-n", lan.wire_namespace, "link", "set", node.wire_interface, "up")
            # One segment per frame (no 64 KiB TCP segments): serialisation is per wire frame.
            _ip("-n", node.namespace, "link", "set", "dev", node.interface, "gso_max_segs", "1")
            _ip("-n", node.namespace, "addr", "add", f"{node.address}/24", "dev", node.interface)
            _ip("-n", node.namespace, "link", "set", node.interface, "up")
            _ip("-n", node.namespace, "link", "set", "lo", "up")
        if mode == "bridge":
            _bridge(lan)
            lan.mode = "bridge"
        if mode in ("auto", "netem"):
            _start_netem(lan)
            if not lan.mode and mode == "netem":
                raise RuntimeError(f"tc netem is not available here: {lan.why_not_netem}")
        if not lan.mode:
            _start_emulator(lan, emulator_options)
    except BaseException:
        remove_lan(lan)
        raise
    return lan


def _start_netem(lan: Lan) -> None:
    """Bridges the two wire ends and shapes each with netem; leaves lan.mode empty (and says
    why) when the kernel refuses the qdisc."""
    first = lan.nodes[0].wire_interface
    tried = _in_namespace(lan.wire_namespace, "tc", "qdisc", "add", "dev", first, "root",
                          *_netem_arguments(lan.link))
    if tried.returncode != 0:
        lan.why_not_netem = (tried.stderr.strip().removeprefix("Error: ").rstrip(".")
                             or f"tc exited {tried.returncode}")
        return
    for node in lan.nodes[1:]:
        added = _in_namespace(lan.wire_namespace, "tc", "qdisc", "add", "dev",
                              node.wire_interface, "root", *_netem_arguments(lan.link))
        if added.returncode != 0:
            raise RuntimeError(f"tc netem on {node.wire_interface}: {added.stderr.strip()}")
    _bridge(lan)
    lan.mode = "netem"


def _bridge(lan: Lan) -> None:
    """Joins every wire end on one bridge in the wire namespace."""
    _ip("-n", lan.wire_namespace, "link", "add", "br0", "type", "bridge")
    for node in lan.nodes:
        _ip("-n", lan.wire_namespace, "link", "set", node.wire_interface, "master", "br0")
    _ip("-n", lan.wire_namespace, "link", "set", "br0", "up")


def _start_emulator(lan: Lan, options: tuple[str, ...]) -> None:
    emulator = emulator_path()
    if emulator is None:
        raise RuntimeError(f"{EMULATOR_NAME} is not built: run `make cpp`")
    link = lan.link
    command = [emulator, "--between", lan.nodes[0].wire_interface, lan.nodes[1].wire_interface,
               "--latency", f"{link.latency_us:g}us", "--jitter", f"{link.jitter_us:g}us",
               "--distribution", link.distribution]
    if link.bandwidth_bps:
        command += ["--bandwidth", f"{link.bandwidth_bps}bps"]
    command += options
    process = subprocess.Popen(["ip", "netns", "exec", lan.wire_namespace, *map(str, command)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lan.emulator = process
    lan.mode = "emulator"
    # It prints its settings, then "link-ready" once both sockets are open; bounded wait. Read
    # from the descriptor itself: a buffered reader would hide what it read ahead from select.
    deadline = time.monotonic() + 10
    seen = b""
    while time.monotonic() < deadline and b"link-ready\n" not in seen:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    if b"link-ready\n" in seen:
        lan.emulator_first_line = seen.decode().replace("link-ready\n", "")
        return
    error = process.stderr.read().decode() if process.poll() is not None \
        else "no link-ready in 10 s"
    raise RuntimeError(f"{EMULATOR_NAME} did not start: {error.strip()}")


@dataclass
class SshServer:
    """An OpenSSH server in a node's namespace: root logs in with the LAN's key, nothing else."""
    node: str
    address: str
    process: subprocess.Popen


@dataclass
class SshKeys:
    """The LAN's client key and the host key its servers share, in a directory of the caller's."""
    directory: Path
    client_key: Path
    host_key: Path
    authorized_keys: Path


def sshd_path() -> Path | None:
    for candidate in ("/usr/sbin/sshd", shutil.which("sshd")):
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def make_ssh_keys(directory: Path) -> SshKeys:
    """A fresh client key (ed25519, no passphrase) and host key in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    keys = SshKeys(directory, directory / "client_ed25519", directory / "host_ed25519",
                   directory / "authorized_keys")
    for key in (keys.client_key, keys.host_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "kairos-lan",
                        "-f", str(key)], check=True, capture_output=True)
    keys.authorized_keys.write_text(keys.client_key.with_suffix(".pub").read_text())
    keys.authorized_keys.chmod(0o600)
    return keys


def start_sshd(lan: Lan, name: str, keys: SshKeys) -> SshServer:
    """sshd in node `name`'s namespace, on its LAN address, port 22, in the foreground; the
    caller stops it (stop_sshd). Its configuration is all on the command line: the machine's own
    sshd_config is not read."""
    sshd = sshd_path()
    if sshd is None:
        raise RuntimeError("sshd is not installed (Debian: apt-get install openssh-server)")
    # sshd's privilege separation directory, as its package's service would make it.
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    node = lan.node(name)
    config = keys.directory / "sshd_config"
    config.write_text("")
    command = [str(sshd), "-D", "-e", "-f", str(config), "-h", str(keys.host_key),
               "-o", f"ListenAddress={node.address}", "-o", "Port=22",
               "-o", f"PidFile={keys.directory / (name + '.sshd.pid')}",
               "-o", f"AuthorizedKeysFile={keys.authorized_keys}",
               "-o", "PermitRootLogin=prohibit-password", "-o", "PasswordAuthentication=no",
               "-o", "KbdInteractiveAuthentication=no", "-o", "UsePAM=no",
               "-o", "StrictModes=no", "-o", "Subsystem=sftp internal-sftp"]
    process = subprocess.Popen(lan.exec(name, *command), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    # Ready once it listens: bounded wait.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd in {name} exited: {process.stderr.read().decode().strip()}")
        listening = _in_namespace(node.namespace, "ss", "-Htln", f"sport = :22").stdout
        if node.address in listening:
            return SshServer(name, node.address, process)
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"sshd in {name} did not listen on {node.address}:22 in 10 s")


def stop_sshd(server: SshServer) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


def remove_lan(lan: Lan) -> None:
    """Stops the link and deletes the namespaces (and with them every veth end)."""
    if lan.emulator is not None:
        lan.stop_link()
    for namespace in reversed(lan.made):
        # What still runs there (a server, a connection it left) ends with it.
        pids = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True,
                              text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
    lan.made.clear()


def leftover_namespaces(lan: Lan) -> list[str]:
    """Namespaces of this LAN that still exist (for tests: none after remove_lan)."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    names = {line.split()[0] for line in listed.splitlines() if line.strip()}
    return sorted(n for n in names if re.search(lan.tag, n))
